"""The one random-game player of the test suite: games of random legal play, the same for
the same arguments (tests/support is on pytest's ``pythonpath``; the ``random_game``
fixture of tests/conftest.py hands it out)."""

from __future__ import annotations

import random
from typing import Callable, Iterable

from tonk.core import Game, Ruleset
from tonk.core.events import Event
from tonk.variants import load_ruleset


def seldom_knock(rng: random.Random, actions: list):
    """A random legal action, knocking seldom (so that hands last a while)."""
    moves = [a for a in actions if type(a).__name__ != "Knock"] if rng.random() > 0.05 else actions
    return rng.choice(moves or actions)


def random_game(
    seed: int,
    *,
    players: Iterable[str] = ("ann", "bob", "cy"),
    hands: int = 2,
    variants: Iterable[str] = (),
    options: dict | None = None,
    max_turns: int = 200,
    end: bool = True,
    pick: Callable[[random.Random, list], object] = seldom_knock,
    on_events: Callable[[Game, list[Event]], None] | None = None,
    ruleset: Ruleset | None = None,
) -> Game:
    """A game of ``hands`` hands of random legal play (``pick`` chooses among the legal
    actions); ``on_events`` sees each step's events as they happen (e.g. to append them
    to a store command by command)."""
    rng = random.Random(seed)
    if ruleset is None:  # given: e.g. a traced one (its options must be these)
        ruleset = load_ruleset(tuple(variants), {"max_turns_per_hand": max_turns, **(options or {})})
    game = Game.new(list(players), seed=seed, ruleset=ruleset)
    def step(events: list[Event]) -> None:
        if on_events is not None:
            on_events(game, events)

    step(list(game.events))
    for _ in range(hands):
        step(game.deal())
        while game.in_hand:
            step(game.play(pick(rng, game.legal_actions())))
    if end:
        step([game.end()])
    return game
