"""Games whose players bear names that today's entry points refuse (control characters,
markup, 100+ characters), as a store written before name validation, or an import from
elsewhere, can still hold: the game is made under plain placeholder names and its events
renamed, so rendering code can be tested on such names."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tonk.core import Game
from tonk.core.events import decode, encode
from tonk.variants import load_ruleset


def game_with_names(names: Sequence[str], *, seed: int, options: dict | None = None) -> Game:
    """A new game (started, not dealt) with these player names, bypassing name checks."""
    ruleset = load_ruleset((), options)
    placeholders = [f"player{i}zz" for i in range(len(names))]
    game = Game.new(placeholders, ruleset=ruleset, seed=seed)
    events = []
    for e in game.events:
        text = encode(e).decode()
        for placeholder, name in zip(placeholders, names):
            text = text.replace(json.dumps(placeholder), json.dumps(name))
        events.append(decode(text))
    return Game(ruleset, events, seed=seed)
