"""A seat's view shows the last ended hand whole (``last_hand``), kept per seat between views:
it follows each hand's end, and the other seats' client seeds open in it once the game has ended."""

from __future__ import annotations

import random

from seating import sit_at  # tests/support
from tonk.application.table_types import TableSettings
from tonk.application.tables import Tables
from tonk.core.events import HandEnded
from tonk.storage.open import open_store


def test_the_last_hand_follows_each_hands_end_and_opens_the_seeds_at_the_games_end(tmp_path):
    with open_store(tmp_path / "t.db") as store:
        tables = Tables(store)
        rng = random.Random(7)
        # the views must see the last hand change at least once, but the deck can end the game
        # on one command or at the sitting (the command that ends hand 1, then initial tonks at
        # the deals of hands 2 and 3; or three initial tonks): another game then, 10 at most
        for _ in range(10):
            seen_ends = _play_and_check(tables, rng)
            if len(seen_ends) >= 2:
                break
        else:
            raise AssertionError("at 10 games in a row the views saw the last hand change no time")


def _play_and_check(tables: Tables, rng: random.Random) -> set[int]:
    """Play a game of three hands, checking every view's last hand on the way: the seqs of the
    hand ends the views showed."""
    c = sit_at(tables, tables.create(TableSettings(seats=("ann", "bob"), hand_limit=3)))
    seen_ends: set[int] = set()
    for _ in range(2000):
        views = {seat: tables.view(c.table, seat) for seat in ("ann", "bob")}
        events = tables.table(c.table).game.events
        ends = [i + 1 for i, e in enumerate(events) if type(e) is HandEnded]
        over = tables.table(c.table).game.state.game_over
        for seat, v in views.items():
            if not ends:
                assert v.last_hand is None
                continue
            assert v.last_hand is not None and v.last_hand["seq"] == ends[-1]
            seeds = v.last_hand["deal"].get("client_seeds")
            if seeds is not None:
                assert set(seeds) == ({"ann", "bob"} if over else {seat})
            seen_ends.add(ends[-1])
        if over:
            return seen_ends
        seat, v = next((s, v) for s, v in views.items() if v.legal)
        cmd = rng.choice(v.legal)
        fields = {k: val for k, val in cmd.items() if k not in ("action", "player")}
        tables.act(c.table, seat, cmd["action"], fields, v.version, f"{seat}-{v.version}")
    raise AssertionError("the game did not end in 2000 commands")
