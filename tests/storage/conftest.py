"""Shared helpers for the store tests: games played by the engine, stores, file digests."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from random_games import random_game
from tonk.core import Game
from tonk.storage import EventStore


def play(seed: int, *, hands: int = 2, players=("ann", "bob", "cy"), variants=(), end: bool = True) -> Game:
    """A game of random legal play, knocking seldom (the same for the same arguments)."""
    return random_game(seed, hands=hands, players=players, variants=variants, end=end)


def record(path: Path, games: list[Game]) -> None:
    """Append each game whole, in one transaction each."""
    with EventStore.open(path) as store:
        for g in games:
            store.append(g.game_id, g.events, 0)


def digest(path: Path) -> str:
    """sha256 of the file's bytes; fails if a WAL with content is left beside it."""
    wal = Path(str(path) + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0, "a WAL with content is left: close the store first"
    return hashlib.sha256(path.read_bytes()).hexdigest()


def raw_conn(path: Path) -> sqlite3.Connection:
    """A plain connection, outside the engine (for tampering)."""
    return sqlite3.connect(path, isolation_level=None)


def tamper(db: Path, sql: str, *args) -> None:
    """Change stored rows outside the engine: drop the append-only triggers, run ``sql``."""
    conn = raw_conn(db)
    conn.execute("DROP TRIGGER IF EXISTS events_no_update")
    conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
    conn.execute(sql, args)
    conn.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "tonk.db"


@pytest.fixture(scope="session")
def games() -> list[Game]:
    """Three finished games, one with a house rule, and one game still in play."""
    return [play(1), play(2, hands=3), play(3, variants=("hit-penalty",)), play(4, hands=1, end=False)]


# The helpers as fixtures (test modules cannot import this conftest by name).
@pytest.fixture(name="play")
def play_fixture():
    return play


@pytest.fixture(name="record")
def record_fixture():
    return record


@pytest.fixture(name="digest")
def digest_fixture():
    return digest


@pytest.fixture(name="raw_conn")
def raw_conn_fixture():
    return raw_conn


@pytest.fixture(name="tamper")
def tamper_fixture():
    return tamper
