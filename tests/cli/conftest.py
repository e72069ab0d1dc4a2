"""Shared helpers for the CLI tests: a runner, a fresh database, recorded games."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tonk.cli.app import app
from tonk.core import Game
from tonk.storage import EventStore

sys.path.insert(0, str(Path(__file__).resolve().parent))  # script_helpers.py: the console script as a user runs it


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


def record_game(
    path: Path,
    *,
    seed: int,
    players=("ann", "bob", "cy"),
    hands: int = 2,
    options: dict | None = None,
    variants=(),
    finish: bool = True,
) -> Game:
    """Play a game with random legal actions and record it command by command."""
    game = Game.new(list(players), seed=seed, variants=variants, options={"max_turns_per_hand": 60, **(options or {})})
    rng = random.Random(seed)
    with EventStore.open(path, create=True) as store:
        version = store.append(game.game_id, list(game.events), 0)
        for _ in range(hands):
            version = store.append(game.game_id, game.deal(), version)
            while game.in_hand:
                actions = game.legal_actions()
                # knock seldom, so hands last a while
                choice = rng.choice([a for a in actions if type(a).__name__ != "Knock"] or actions)
                if rng.random() < 0.03 and type(actions[0]).__name__ == "Knock":
                    choice = actions[0]
                version = store.append(game.game_id, game.play(choice), version)
        if finish:
            store.append(game.game_id, [game.end()], version)
    return game


def invoke(runner: CliRunner, db: Path, *args: str, input: str | None = None):
    return runner.invoke(app, ["--db", str(db), *args], input=input)


@pytest.fixture(name="record_game")
def record_game_fixture():
    """``record_game(path, seed=..., ...)``: a random game recorded in the store."""
    return record_game


@pytest.fixture
def tonk(runner: CliRunner, db: Path):
    """``tonk(*args, input=None)``: run the CLI against the test database."""

    def run(*args: str, input: str | None = None):
        return invoke(runner, db, *args, input=input)

    return run
