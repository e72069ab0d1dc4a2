"""Shared helpers for the replay viewer's tests: recorded games, and what a player never saw."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tonk.core import Game
from tonk.core.events import GameStarted, HandDealt, HandEnded
from tonk.core.state import State, evolve
from tonk.storage import EventStore


def record(path: Path, *, seed: int, players=("ann", "bob", "cy"), hands: int = 2, stop_after: int | None = None, finish: bool = True) -> Game:
    """Play ``hands`` hands with random legal moves (knocking seldom) and record them.
    With ``stop_after`` the last hand stops after that many actions, still being played."""
    game = Game.new(list(players), seed=seed, options={"max_turns_per_hand": 60})
    rng = random.Random(seed)
    with EventStore.open(path, create=True) as store:
        version = store.append(game.game_id, list(game.events), 0)
        for hand in range(hands):
            version = store.append(game.game_id, game.deal(), version)
            actions = 0
            while game.in_hand:
                if stop_after is not None and hand == hands - 1 and actions >= stop_after:
                    return game
                legal = game.legal_actions()
                choice = rng.choice([a for a in legal if type(a).__name__ != "Knock"] or legal)
                version = store.append(game.game_id, game.play(choice), version)
                actions += 1
        if finish:
            store.append(game.game_id, [game.end()], version)
    return game


def never_seen(events, player: str) -> set[str]:
    """The cards of the last hand that ``player`` never saw: every card that, from the deal to
    the end of the record, stayed in another player's hand or in the stock (a stock draw by
    another player stays hidden), and was not shown by the hand's end or in the cut for the
    first dealer (A3.1: every seat sees the cut)."""
    state = State()
    hidden: set[str] | None = None
    cut: set[str] = set()
    for event in events:
        evolve(state, event)
        if type(event) is GameStarted:
            cut = {c for cards in event.cut for c in cards}
        elif type(event) is HandDealt:
            hidden = set(state.stock).union(*(h for p, h in state.hands.items() if p != player))
        elif hidden is not None:
            hidden &= set(state.stock).union(*(h for p, h in state.hands.items() if p != player))
            if type(event) is HandEnded:
                hidden -= {c for h in event.hands.values() for c in h}
    return (hidden or set()) - cut


@pytest.fixture(name="record")
def record_fixture():
    """``record(path, seed=..., hands=..., stop_after=...)``: a random game recorded in a store."""
    return record


@pytest.fixture(name="never_seen")
def never_seen_fixture():
    """``never_seen(events, player)``: the cards of the last hand hidden from ``player`` throughout."""
    return never_seen


@pytest.fixture(name="tonk_cli")
def tonk_cli_fixture():
    """``tonk_cli(db, *args)``: run the CLI against ``db`` (a typer CliRunner result)."""
    from typer.testing import CliRunner

    from tonk.cli.app import app

    def run(db: Path, *args: str):
        return CliRunner().invoke(app, ["--db", str(db), *args])

    return run


@pytest.fixture(name="runner_json")
def runner_json_fixture(tonk_cli):
    """``runner_json(db, *args)``: the JSON a CLI command prints (it must succeed)."""
    import json

    def run(db: Path, *args: str):
        result = tonk_cli(db, *args)
        assert result.exit_code == 0, result.stderr
        return json.loads(result.stdout)

    return run
