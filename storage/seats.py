"""The served tables' own records, outside the event log: seat-token hashes and table settings.

A seat token is a secret: it is never written down, only its sha256 (hex),
and a presented token is compared with every stored hash of the table in
constant time (``hmac.compare_digest``).  A table's settings (which seats
bots play, the hand limit, the turn timer) are not events of the game; they
sit here beside the token hashes.  Both tables are created on first use
(``CREATE TABLE IF NOT EXISTS``), so a store that never served a table has
neither, and the event log's schema and migrations are untouched.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from .errors import StoreError

_CREATE = (
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


def token_hash(token: str) -> str:
    """The sha256 of a token's text, in hex: all the store keeps of it."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class SeatStore:
    """Seat-token hashes and table settings in the same SQLite file as an ``EventStore``."""

    def __init__(self, store: Any):
        self._conn = store.db.conn
        self._path = store.path
        for sql in _CREATE:
            self._conn.execute(sql)
        self._conn.commit()

    def register(self, game_id: str, settings: dict[str, Any], tokens: dict[str, str]) -> None:
        """Record a new table: its settings and the hash of each seat's token."""
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("INSERT INTO served_tables (game_id, settings) VALUES (?, ?)", (game_id, json.dumps(settings, sort_keys=True)))
            conn.executemany(
                "INSERT INTO seat_tokens (game_id, seat, token_hash) VALUES (?, ?, ?)",
                [(game_id, seat, token_hash(tok)) for seat, tok in tokens.items()],
            )
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, Exception) and type(exc).__module__ == "sqlite3":
                raise StoreError(f"{self._path}: the table {game_id} could not be recorded ({exc})") from None
            raise

    def seat_for(self, game_id: str, token: str) -> str | None:
        """The seat whose token this is at the table, or ``None``; every stored hash of the
        table is compared, each in constant time."""
        presented = token_hash(token)
        found = None
        for seat, stored in self._conn.execute("SELECT seat, token_hash FROM seat_tokens WHERE game_id = ?", (game_id,)):
            if hmac.compare_digest(presented, stored) and found is None:
                found = seat
        return found

    def settings(self, game_id: str) -> dict[str, Any] | None:
        row = self._conn.execute("SELECT settings FROM served_tables WHERE game_id = ?", (game_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def closed(self, game_id: str) -> bool:
        row = self._conn.execute("SELECT closed FROM served_tables WHERE game_id = ?", (game_id,)).fetchone()
        return bool(row and row[0])

    def mark_closed(self, game_id: str) -> None:
        self._conn.execute("UPDATE served_tables SET closed = 1 WHERE game_id = ?", (game_id,))
        self._conn.commit()

    def game_ids(self) -> list[str]:
        return [r[0] for r in self._conn.execute("SELECT game_id FROM served_tables ORDER BY rowid")]
