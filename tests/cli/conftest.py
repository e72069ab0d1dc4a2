"""Shared helpers for the CLI tests: a runner, a fresh database, recorded games."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from random_games import random_game

from tonk.cli.app import app
from tonk.core import Game
from tonk.storage import EventStore


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
    with EventStore.open(path, create=True) as store:
        version = 0

        def append(game: Game, events: list) -> None:
            nonlocal version
            version = store.append(game.game_id, events, version)

        return random_game(seed, players=players, hands=hands, variants=variants, options=options, max_turns=60, end=finish, on_events=append)


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
