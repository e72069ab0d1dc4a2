"""The served tables' own records, outside the event log: seat-token hashes and table settings.

A seat token is a secret: it is never written down, only its sha256 (hex),
and a presented token is compared with every stored hash of the table in
constant time (``hmac.compare_digest``).  A table's settings (which seats
bots play, the hand limit, the turn timer) are not events of the game; they
sit here beside the token hashes, and so do the fair deal's secrets of a live game (its
server seed, the seeds of the seats that have sat: ``application.tables``), which no view
or route shows (``game_ended`` reveals the server seed).  Both tables are created on first use
(``CREATE TABLE IF NOT EXISTS``), so a store that never served a table has
neither, and the event log's schema and migrations are untouched.

Every back end keeps them (:class:`SeatTables`): the SQL ones with the same statements
through their dialect adapter (:class:`SqlSeatTables`; SQLite in the store's file,
PostgreSQL in the store's database, so every service node sharing the database knows
every table's tokens and settings; only the DDL differs), the in-memory store in
Python structures (:mod:`.memory`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Protocol

from .append_rules import storable
from .errors import StoreError
from .statements import POSTGRES, Statements

if TYPE_CHECKING:
    from .base import EventStore

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


#: the columns of each table, in the order :meth:`SeatTables.dump` gives its rows
COLUMNS = {"served_tables": "game_id, settings, closed", "seat_tokens": "game_id, seat, token_hash"}


class SeatTables(Protocol):
    """The two tables as a store keeps them (:meth:`~.base.EventStore.seat_tables`);
    :class:`SeatStore` is their users' interface."""

    def register(self, game_id: str, settings: str, hashes: list[tuple[str, str]]) -> None:
        """Record a table: its settings (JSON text) and each seat's token hash, at once."""
        ...

    def token_hashes(self, game_id: str) -> list[tuple[str, str]]:
        """(seat, token hash) of each seat of the table."""
        ...

    def settings(self, game_id: str) -> str | None: ...

    def closed(self, game_id: str) -> bool: ...

    def mark_closed(self, game_id: str) -> None: ...

    def set_settings(self, game_id: str, settings: str) -> None:
        """Replace the table's settings (JSON text): the service links a table to its rematch."""
        ...

    def add_token_hash(self, game_id: str, seat: str, token_hash: str) -> None:
        """Record the seat's token hash at the table unless the seat has one already."""
        ...

    def listing(self) -> list[tuple[str, str, bool]]:
        """(game_id, settings, closed) of every table, in the order they were created."""
        ...

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of each table (:data:`COLUMNS`), for a backup."""
        ...

    def load(self, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        """Add the rows :meth:`dump` gave."""
        ...


class SqlSeatTables:
    """The tables in a SQL store, through its dialect adapter: ``reading`` and ``writing``
    hand out the store's :class:`~.statements.Statements` (a write holds its append lock).
    The tables are created on first use."""

    def __init__(self, reading: Callable[[], ContextManager[Statements]], writing: Callable[[], ContextManager[Statements]], read_only: bool = False):
        self._reading = reading
        self._writing = writing
        self._present = False  # the tables were seen (never dropped: looked for until then)
        if not read_only:
            with writing() as sql:
                for ddl in _CREATE_POSTGRES if sql.dialect is POSTGRES else _CREATE_SQLITE:
                    sql.execute(ddl)

    def _rows(self, query: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        if not all(storable(a) for a in args if isinstance(a, str)):
            return []  # a table id holding NUL names no table (PostgreSQL refuses to be asked about one)
        with self._reading() as sql:
            if not self._present:  # (a catalogue read per request was a fifth of a served request's time)
                if not sql.has_tables(COLUMNS):
                    return []
                self._present = True
            return [tuple(r) for r in sql.execute(query.format(order=sql.dialect.table_order), args).fetchall()]

    def register(self, game_id: str, settings: str, hashes: list[tuple[str, str]]) -> None:
        with self._writing() as sql:
            sql.execute("INSERT INTO served_tables (game_id, settings) VALUES (?, ?)", (game_id, settings))
            sql.executemany("INSERT INTO seat_tokens (game_id, seat, token_hash) VALUES (?, ?, ?)", [(game_id, seat, h) for seat, h in hashes])

    def token_hashes(self, game_id: str) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self._rows("SELECT seat, token_hash FROM seat_tokens WHERE game_id = ?", (game_id,))]

    def settings(self, game_id: str) -> str | None:
        rows = self._rows("SELECT settings FROM served_tables WHERE game_id = ?", (game_id,))
        return str(rows[0][0]) if rows else None

    def closed(self, game_id: str) -> bool:
        rows = self._rows("SELECT closed FROM served_tables WHERE game_id = ?", (game_id,))
        return bool(rows and rows[0][0])

    def mark_closed(self, game_id: str) -> None:
        with self._writing() as sql:
            sql.execute("UPDATE served_tables SET closed = 1 WHERE game_id = ?", (game_id,))

    def set_settings(self, game_id: str, settings: str) -> None:
        with self._writing() as sql:
            sql.execute("UPDATE served_tables SET settings = ? WHERE game_id = ?", (settings, game_id))

    def add_token_hash(self, game_id: str, seat: str, token_hash: str) -> None:
        with self._writing() as sql:
            sql.execute("INSERT INTO seat_tokens (game_id, seat, token_hash) VALUES (?, ?, ?) ON CONFLICT (game_id, seat) DO NOTHING", (game_id, seat, token_hash))

    def listing(self) -> list[tuple[str, str, bool]]:
        return [(r[0], r[1], bool(r[2])) for r in self._rows("SELECT game_id, settings, closed FROM served_tables ORDER BY {order}")]

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        return {
            "served_tables": self._rows("SELECT game_id, settings, closed FROM served_tables ORDER BY {order}"),
            "seat_tokens": self._rows("SELECT game_id, seat, token_hash FROM seat_tokens ORDER BY game_id, seat"),
        }

    def load(self, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        with self._writing() as sql:
            for table, columns in COLUMNS.items():
                marks = ", ".join("?" for _ in columns.split(","))
                sql.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows.get(table, []))


class SeatStore:
    """Seat-token hashes and table settings beside an event store (any back end)."""

    def __init__(self, store: "EventStore"):
        self._path = store.path
        self._tables = store.seat_tables()

    def register(self, game_id: str, settings: dict[str, Any], tokens: dict[str, str]) -> None:
        """Record a new table: its settings and the hash of each seat's token."""
        try:
            self._tables.register(game_id, json.dumps(settings, sort_keys=True), [(seat, token_hash(tok)) for seat, tok in tokens.items()])
        except StoreError as exc:
            raise StoreError(f"{self._path}: the table {game_id} could not be recorded ({exc})") from None

    def seat_for(self, game_id: str, token: str) -> str | None:
        """The seat whose token this is at the table, or ``None``; every stored hash of the
        table is compared, each in constant time."""
        presented = token_hash(token)
        found = None
        for seat, stored in self._tables.token_hashes(game_id):
            if hmac.compare_digest(presented, stored) and found is None:
                found = seat
        return found

    def token_hash_of(self, game_id: str, seat: str) -> str | None:
        """The stored hash of ``seat``'s token at the table (the key of its stream tickets), or ``None``."""
        return next((stored for s, stored in self._tables.token_hashes(game_id) if s == seat), None)

    def settings(self, game_id: str) -> dict[str, Any] | None:
        text = self._tables.settings(game_id)
        return dict(json.loads(text)) if text is not None else None

    def closed(self, game_id: str) -> bool:
        return self._tables.closed(game_id)

    def mark_closed(self, game_id: str) -> None:
        self._tables.mark_closed(game_id)

    def link_rematch(self, game_id: str, rematch: str) -> None:
        """Name ``rematch`` in the settings of the table ``game_id`` (its game ended; the host
        started the rematch): the seats' views of the ended table then name it."""
        settings = self.settings(game_id)
        if settings is None:
            raise StoreError(f"{self._path}: no table {game_id} to link to its rematch")
        self._tables.set_settings(game_id, json.dumps({**settings, "rematch": rematch}, sort_keys=True))

    def set_private(self, game_id: str, key: str, value: Any) -> None:
        """Set ``key`` in the table's stored settings: the fair deal's secrets of a live game
        (the seats' client seeds) are kept here beside its server seed, never in the event log."""
        settings = self.settings(game_id)
        if settings is None:
            raise StoreError(f"{self._path}: no table {game_id}")
        self._tables.set_settings(game_id, json.dumps({**settings, key: value}, sort_keys=True))

    def add_token(self, game_id: str, seat: str, token: str) -> None:
        """Record the hash of ``seat``'s token at the table, unless the seat has a token already
        (a rematch's seat: its token is known only once the seat asks for it)."""
        self._tables.add_token_hash(game_id, seat, token_hash(token))

    def listing(self) -> list[tuple[str, dict[str, Any], bool]]:
        """``(game_id, settings, closed)`` of every table, in the order they were created."""
        return [(gid, dict(json.loads(settings)), closed) for gid, settings, closed in self._tables.listing()]

    def game_ids(self) -> list[str]:
        return [gid for gid, _, _ in self._tables.listing()]
