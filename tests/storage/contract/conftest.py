"""The store contract's back ends: every test here takes ``backend`` and runs once on SQLite,
once on PostgreSQL (marked ``postgres``: a throwaway server, see tests/conftest.py) and once
on the in-memory store.  A test of what only a SQL database does (its triggers refusing a
statement) takes ``sql_backend``: SQLite and PostgreSQL."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from tonk.storage.memory import MemoryDatabase, MemoryEventStore
from tonk.storage.open import open_store

ctx = multiprocessing.get_context("fork")  # no store is open in the parent when it forks

#: the columns of an events row, in the order the stores keep them
EVENT_COLUMNS = ("game_id", "seq", "type", "payload", "recorded_at", "hash", "prev_hash", "command_id", "position", "chain")
GAME_COLUMNS = ("game_id", "started_at", "ended_at", "players", "variants", "options", "hands", "net", "status", "events")


@dataclass
class Backend:
    """One back end under test: ``target`` is what ``--db`` would say.  The changes made
    outside the engine (``edit_event``, ``delete_events``, ``edit_game``,
    ``cut_evidence_log``) go around the store: SQL on a plain connection with the
    append-only triggers dropped first, or the in-memory database's rows replaced.
    ``worker`` starts a concurrent writer (a process, or a thread for memory, which
    only one process can see)."""

    name: str
    target: str
    opener: Callable[..., Any]
    edit_event: Callable[[str, int, str, Callable[[Any], Any]], None]
    delete_events: Callable[[str, Callable[[int], bool]], None]
    edit_game: Callable[[str, str, Any], None]
    cut_evidence_log: Callable[[int], None]
    worker: Callable[..., Any] = ctx.Process
    barrier: Callable[[int], Any] = ctx.Barrier
    queue: Callable[[], Any] = ctx.Queue
    raw: Callable[..., list[tuple]] = field(default=lambda *a: [])  # SQL back ends: a statement outside the engine
    drop_triggers: Callable[[], None] = lambda: None  # SQL back ends: the append-only triggers on events
    refusal: type[BaseException] = Exception  # SQL back ends: what the database raises when it refuses

    def open(self, **kw: Any):
        return self.opener(**kw)

    def record(self, games) -> None:
        with self.open() as store:
            for g in games:
                store.append(g.game_id, g.events, 0)


def _sql_changes(raw: Callable[..., list[tuple]], drop_triggers: Callable[[], None]) -> dict[str, Callable]:
    def tamper(sql: str, *args) -> None:
        drop_triggers()
        raw(sql, *args)

    def edit_event(game_id: str, seq: int, column: str, change: Callable[[Any], Any]) -> None:
        [(old,)] = raw(f"SELECT {column} FROM events WHERE game_id = ? AND seq = ?", game_id, seq)
        tamper(f"UPDATE events SET {column} = ? WHERE game_id = ? AND seq = ?", change(old), game_id, seq)

    def delete_events(game_id: str, which: Callable[[int], bool]) -> None:
        for (seq,) in raw("SELECT seq FROM events WHERE game_id = ?", game_id):
            if which(seq):
                tamper("DELETE FROM events WHERE game_id = ? AND seq = ?", game_id, seq)

    def edit_game(game_id: str, column: str, value: Any) -> None:
        raw(f"UPDATE games SET {column} = ? WHERE game_id = ?", value, game_id)

    return {"edit_event": edit_event, "delete_events": delete_events, "edit_game": edit_game, "drop_triggers": drop_triggers}


def _sqlite(path: Path) -> Backend:
    def raw(sql: str, *args) -> list[tuple]:
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()

    def drop_triggers() -> None:
        raw("DROP TRIGGER IF EXISTS events_no_update")
        raw("DROP TRIGGER IF EXISTS events_no_delete")

    def cut_evidence_log(start: int) -> None:
        raw("DROP TRIGGER evidence_log_no_delete")
        raw("DELETE FROM evidence_log WHERE leaf_index >= ?", start)

    return Backend(
        "sqlite", str(path), lambda **kw: open_store(path, **kw), cut_evidence_log=cut_evidence_log, raw=raw,
        refusal=sqlite3.IntegrityError, **_sql_changes(raw, drop_triggers),
    )


def _postgres(url: str) -> Backend:
    import psycopg

    def raw(sql: str, *args) -> list[tuple]:
        with psycopg.connect(url, autocommit=True) as conn:
            cur = conn.execute(sql.replace("?", "%s"), args)
            return cur.fetchall() if cur.description else []

    def drop_triggers() -> None:
        raw("DROP TRIGGER IF EXISTS events_no_update ON events")

    def cut_evidence_log(start: int) -> None:
        raw("DROP TRIGGER evidence_log_no_update ON evidence_log")
        raw("DELETE FROM evidence_log WHERE leaf_index >= ?", start)

    return Backend(
        "postgres", url, lambda **kw: open_store(url, **kw), cut_evidence_log=cut_evidence_log, raw=raw,
        refusal=psycopg.errors.RaiseException, **_sql_changes(raw, drop_triggers),
    )


def _memory() -> Backend:
    db = MemoryDatabase()

    def replace(game_id: str, keep: Callable[[tuple], tuple | None]) -> None:
        with db.lock:
            db.events = [r for r in (keep(r) if r[0] == game_id else r for r in db.events) if r is not None]
            rows = [r for r in db.events if r[0] == game_id]
            if rows:
                db.by_game[game_id] = rows
            else:
                db.by_game.pop(game_id, None)

    def edit_event(game_id: str, seq: int, column: str, change: Callable[[Any], Any]) -> None:
        i = EVENT_COLUMNS.index(column)
        replace(game_id, lambda r: (*r[:i], change(r[i]), *r[i + 1 :]) if r[1] == seq else r)

    def delete_events(game_id: str, which: Callable[[int], bool]) -> None:
        replace(game_id, lambda r: None if which(r[1]) else r)

    def edit_game(game_id: str, column: str, value: Any) -> None:
        i = GAME_COLUMNS.index(column)
        row = db.games[game_id]
        db.games[game_id] = (*row[:i], value, *row[i + 1 :])

    def cut_evidence_log(start: int) -> None:
        del db.tables["evidence_log"][start:]

    return Backend(
        "memory", ":memory:", lambda **kw: MemoryEventStore.open_memory(db, **kw), edit_event, delete_events, edit_game, cut_evidence_log,
        worker=threading.Thread, barrier=threading.Barrier, queue=__import__("queue").Queue,
    )


def _backend(name: str, request, tmp_path) -> Backend:
    if name == "sqlite":
        return _sqlite(tmp_path / "tonk.db")
    if name == "memory":
        return _memory()
    return _postgres(request.getfixturevalue("pg_url"))


POSTGRES = pytest.param("postgres", marks=pytest.mark.postgres)


@pytest.fixture(params=["sqlite", POSTGRES, "memory"])
def backend(request, tmp_path) -> Backend:
    return _backend(request.param, request, tmp_path)


@pytest.fixture(params=["sqlite", POSTGRES])
def sql_backend(request, tmp_path) -> Backend:
    return _backend(request.param, request, tmp_path)


@pytest.fixture
def sqlite_backend(tmp_path) -> Backend:
    return _sqlite(tmp_path / "other.db")


@pytest.fixture
def postgres_backend(pg_url) -> Backend:
    return _postgres(pg_url)


@pytest.fixture
def memory_backend() -> Backend:
    return _memory()
