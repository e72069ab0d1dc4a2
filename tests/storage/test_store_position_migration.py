"""A SQLite store of schema 1 (before the global order) is upgraded: every stored event gets
its position in the order it was written, and appends continue from there."""

from __future__ import annotations

import sqlite3
from hashlib import sha256

from sqlite_utils import Database, Migrations

from tonk.storage import EventStore
from tonk.storage.payload_zip import as_text
from tonk.storage.schema import STEPS, _events_and_games

COLUMNS = "game_id, seq, type, payload, recorded_at, hash, prev_hash, command_id"


def as_chain_version_1(rows: list[tuple]) -> list[tuple]:
    """The rows of one game hashed as tonk hashed them then: ``sha256(prev_hash || payload)``."""
    out, prev = [], "0" * 64
    for gid, seq, type_, stored, at, _, _, cmd in rows:
        payload = as_text(stored)  # read from a store of today, where a large payload is compressed
        h = sha256(prev.encode() + payload.encode()).hexdigest()
        out.append((gid, seq, type_, payload, at, h, prev, cmd))
        prev = h
    return out


def make_schema_1_store(path, rows) -> None:
    db = Database(path)
    first = Migrations("tonk")
    first(name=STEPS[0][0])(_events_and_games)
    first.apply(db)
    db.conn.execute("PRAGMA user_version = 1")
    db.conn.executemany(f"INSERT INTO events ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    db.conn.commit()
    db.close()


def test_a_schema_1_store_gets_positions_in_insertion_order(tmp_path, games, record):
    current = tmp_path / "now.db"
    record(current, games[:2])
    conn = sqlite3.connect(current)
    a, b = (
        as_chain_version_1(conn.execute(f"SELECT {COLUMNS} FROM events WHERE game_id = ? ORDER BY seq", (g.game_id,)).fetchall())
        for g in games[:2]
    )
    conn.close()
    rows = a[:5] + b + a[5:]  # written interleaved: part of one game, the other game, the rest
    old = tmp_path / "old.db"
    make_schema_1_store(old, rows)
    with EventStore.open(old) as store:
        assert store.verify() == []
        got = store.read_all(limit=10_000)
        assert [p.position for p in got] == list(range(1, len(rows) + 1))
        assert [(p.game_id, p.seq) for p in got] == [(r[0], r[1]) for r in rows]
        g = games[2]
        store.append(g.game_id, g.events, 0)
        assert [p.position for p in store.read_all(after=len(rows), limit=10_000)] == list(range(len(rows) + 1, len(rows) + len(g.events) + 1))
    conn = sqlite3.connect(old)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(STEPS)
    conn.close()
