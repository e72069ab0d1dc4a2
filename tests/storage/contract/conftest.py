"""The store contract's back ends: every test here takes ``backend`` and runs once on SQLite
and once on PostgreSQL (marked ``postgres``: a throwaway server, see tests/conftest.py)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from tonk.storage.open import open_store


@dataclass
class Backend:
    """One back end under test: ``target`` is what ``--db`` would say; ``raw`` runs SQL
    outside the engine (``?`` placeholders on both), ``tamper`` drops the append-only
    triggers first; ``refusal`` is the error the database raises when it refuses."""

    name: str
    target: str
    raw: Callable[..., list[tuple]]
    tamper: Callable[..., None]
    refusal: type[BaseException]

    def open(self, **kw: Any):
        return open_store(self.target, **kw)

    def record(self, games) -> None:
        with self.open() as store:
            for g in games:
                store.append(g.game_id, g.events, 0)


def _sqlite(path: Path) -> Backend:
    def raw(sql: str, *args) -> list[tuple]:
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()

    def tamper(sql: str, *args) -> None:
        raw("DROP TRIGGER IF EXISTS events_no_update")
        raw("DROP TRIGGER IF EXISTS events_no_delete")
        raw(sql, *args)

    return Backend("sqlite", str(path), raw, tamper, sqlite3.IntegrityError)


def _postgres(url: str) -> Backend:
    import psycopg

    def raw(sql: str, *args) -> list[tuple]:
        with psycopg.connect(url, autocommit=True) as conn:
            cur = conn.execute(sql.replace("?", "%s"), args)
            return cur.fetchall() if cur.description else []

    def tamper(sql: str, *args) -> None:
        raw("DROP TRIGGER IF EXISTS events_no_update ON events")
        raw(sql, *args)

    return Backend("postgres", url, raw, tamper, psycopg.errors.RaiseException)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request, tmp_path) -> Backend:
    if request.param == "sqlite":
        return _sqlite(tmp_path / "tonk.db")
    return _postgres(request.getfixturevalue("pg_url"))


@pytest.fixture
def sqlite_backend(tmp_path) -> Backend:
    return _sqlite(tmp_path / "other.db")


@pytest.fixture
def postgres_backend(pg_url) -> Backend:
    return _postgres(pg_url)
