"""The served tables' own records, outside the event log: seat-token hashes and table settings.

A seat token is a secret: it is never written down, only its sha256 (hex),
and a presented token is compared with every stored hash of the table in
constant time (``hmac.compare_digest``).  A table's settings (which seats
bots play, the hand limit, the turn timer) are not events of the game; they
sit here beside the token hashes.  Both tables are created on first use
(``CREATE TABLE IF NOT EXISTS``), so a store that never served a table has
neither, and the event log's schema and migrations are untouched.

Both back ends keep them, with the same statements: SQLite in the store's file,
PostgreSQL in the store's database (so every service node sharing the database
knows every table's tokens and settings).  Only the DDL and the parameter style
differ (:class:`_SqliteSeats`, :class:`_PostgresSeats`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from .errors import StoreError

_CREATE_SQLITE = (
    """CREATE TABLE IF NOT EXISTS served_tables (
        game_id  TEXT PRIMARY KEY NOT NULL,
        settings TEXT NOT NULL,
        closed   INTEGER NOT NULL DEFAULT 0
    ) STRICT""",
    """CREATE TABLE IF NOT EXISTS seat_tokens (
        game_id    TEXT NOT NULL,
        seat       TEXT NOT NULL,
        token_hash TEXT NOT NULL CHECK (length(token_hash) = 64),
        PRIMARY KEY (game_id, seat)
    ) STRICT""",
)


_CREATE_POSTGRES = (
    """CREATE TABLE IF NOT EXISTS served_tables (
        n        BIGSERIAL,
        game_id  TEXT PRIMARY KEY NOT NULL,
        settings TEXT NOT NULL,
        closed   INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS seat_tokens (
        game_id    TEXT NOT NULL,
        seat       TEXT NOT NULL,
        token_hash TEXT NOT NULL CHECK (length(token_hash) = 64),
        PRIMARY KEY (game_id, seat)
    )""",
)


def token_hash(token: str) -> str:
    """The sha256 of a token's text, in hex: all the store keeps of it."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_sqlite_tables(store: Any) -> None:
    """The two tables in a SQLite store, unless it has them."""
    conn = store.db.conn
    for sql in _CREATE_SQLITE:
        conn.execute(sql)
    conn.commit()


class _SqliteSeats:
    """The statements' runner on the SQLite store's own connection."""

    def __init__(self, store: Any):
        self._conn = store.db.conn
        create_sqlite_tables(store)

    def rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        return self._conn.execute(sql, args).fetchall()

    def write(self, statements: list[tuple[str, tuple]]) -> None:
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            for sql, args in statements:
                conn.execute(sql, args)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


class _PostgresSeats:
    """The statements' runner on the PostgreSQL store's connection pool (``?`` becomes ``%s``)."""

    def __init__(self, store: Any):
        self._pool = store._pool
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(7412043)")  # two nodes starting at once
            for sql in _CREATE_POSTGRES:
                conn.execute(sql)

    def rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._pool.connection() as conn:
            return conn.execute(sql.replace("?", "%s"), args).fetchall()

    def write(self, statements: list[tuple[str, tuple]]) -> None:
        with self._pool.connection() as conn, conn.transaction():
            for sql, args in statements:
                conn.execute(sql.replace("?", "%s"), args)


class SeatStore:
    """Seat-token hashes and table settings beside an event store (SQLite or PostgreSQL)."""

    def __init__(self, store: Any):
        self._path = store.path
        self._db = _PostgresSeats(store) if hasattr(store, "_pool") else _SqliteSeats(store)

    def register(self, game_id: str, settings: dict[str, Any], tokens: dict[str, str]) -> None:
        """Record a new table: its settings and the hash of each seat's token."""
        statements = [("INSERT INTO served_tables (game_id, settings) VALUES (?, ?)", (game_id, json.dumps(settings, sort_keys=True)))]
        statements += [("INSERT INTO seat_tokens (game_id, seat, token_hash) VALUES (?, ?, ?)", (game_id, seat, token_hash(tok))) for seat, tok in tokens.items()]
        try:
            self._db.write(statements)
        except Exception as exc:
            if type(exc).__module__ == "sqlite3" or type(exc).__module__.startswith("psycopg"):
                raise StoreError(f"{self._path}: the table {game_id} could not be recorded ({exc})") from None
            raise

    def seat_for(self, game_id: str, token: str) -> str | None:
        """The seat whose token this is at the table, or ``None``; every stored hash of the
        table is compared, each in constant time."""
        presented = token_hash(token)
        found = None
        for seat, stored in self._db.rows("SELECT seat, token_hash FROM seat_tokens WHERE game_id = ?", (game_id,)):
            if hmac.compare_digest(presented, stored) and found is None:
                found = seat
        return found

    def token_hash_of(self, game_id: str, seat: str) -> str | None:
        """The stored hash of ``seat``'s token at the table (the key of its stream tickets), or ``None``."""
        rows = self._db.rows("SELECT token_hash FROM seat_tokens WHERE game_id = ? AND seat = ?", (game_id, seat))
        return rows[0][0] if rows else None

    def settings(self, game_id: str) -> dict[str, Any] | None:
        rows = self._db.rows("SELECT settings FROM served_tables WHERE game_id = ?", (game_id,))
        return json.loads(rows[0][0]) if rows else None

    def closed(self, game_id: str) -> bool:
        rows = self._db.rows("SELECT closed FROM served_tables WHERE game_id = ?", (game_id,))
        return bool(rows and rows[0][0])

    def mark_closed(self, game_id: str) -> None:
        self._db.write([("UPDATE served_tables SET closed = 1 WHERE game_id = ?", (game_id,))])

    def listing(self) -> list[tuple[str, dict[str, Any], bool]]:
        """``(game_id, settings, closed)`` of every table, in the order they were created."""
        order = "n" if isinstance(self._db, _PostgresSeats) else "rowid"
        rows = self._db.rows(f"SELECT game_id, settings, closed FROM served_tables ORDER BY {order}")
        return [(gid, json.loads(settings), bool(closed)) for gid, settings, closed in rows]

    def game_ids(self) -> list[str]:
        order = "n" if isinstance(self._db, _PostgresSeats) else "rowid"
        return [r[0] for r in self._db.rows(f"SELECT game_id FROM served_tables ORDER BY {order}")]
