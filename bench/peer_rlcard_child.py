"""RLCard's bare gin-rummy engine playing random legal actions: one whole process.

Run by ``bench/peer_rlcard.py`` under the RLCard venv (``build/peer-rlcard/venv``), as a
plain script that imports nothing of tonk:

    PYTHON bench/peer_rlcard_child.py HANDS SEED   ->  one JSON line

The loop is RLCard's own game object with no agent and no environment wrapper
(``rlcard.games.gin_rummy.game.GinRummyGame``): ``init_game`` deals a hand, then
until ``is_over`` the judge's ``get_legal_actions`` gives the legal actions, one
is picked uniformly at random and ``step`` plays it.  ``step`` is the engine's
only way to apply an action; it also builds the next player's state dict, as
every caller of the engine pays.  Every step is counted as an action, the two
closing score steps (``ScoreNorthPlayerAction``, ``ScoreSouthPlayerAction``, which
RLCard's env also offers as legal actions and steps) included; the count without
them is reported too.
"""

from __future__ import annotations

import json
import random
import sys
import time


def main(argv: list[str]) -> int:
    t_start = time.perf_counter()
    hands, seed = int(argv[0]), int(argv[1])
    import numpy as np
    from rlcard.games.gin_rummy.game import GinRummyGame
    from rlcard.games.gin_rummy.utils.action_event import ScoreNorthPlayerAction, ScoreSouthPlayerAction

    game = GinRummyGame()
    game.np_random = np.random.RandomState(seed)
    rng = random.Random(seed)
    choice = rng.choice
    legal = game.judge.get_legal_actions
    step = game.step
    score_types = (ScoreNorthPlayerAction, ScoreSouthPlayerAction)
    actions = scores = 0
    t_play = time.perf_counter()
    for _ in range(hands):
        game.init_game()
        while not game.is_over():
            action = choice(legal())
            step(action)
            actions += 1
            if isinstance(action, score_types):
                scores += 1
    t_end = time.perf_counter()
    print(
        json.dumps(
            {
                "hands": hands,
                "actions": actions,
                "player_actions": actions - scores,
                "play_seconds": t_end - t_play,
                "in_process_seconds": t_end - t_start,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
