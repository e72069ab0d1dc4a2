"""The one dialect adapter of the two SQL back ends: each statement is written once, with
``?`` parameters, in the SQL that SQLite and PostgreSQL share (``INSERT ... ON CONFLICT``,
``coalesce``, ``CASE``, ``LIMIT``); :class:`Dialect` turns it into the driver's text
(``%s`` parameters for psycopg) and holds the few phrases that differ.

The statements on the ``events`` and ``games`` tables are here; the side tables' own
statements are beside their code (:mod:`.evidence_log`, :mod:`.seats`), run through a
:class:`Statements` that a SQL store hands out (``store.statements()`` for reads,
``store.statements_write()`` for one write transaction holding the store's append lock).
"""

from __future__ import annotations

import sqlite3
from typing import Any, Iterable, Protocol, Sequence

from .projection import COLUMNS


class Dialect:
    """How one SQL back end spells what the two do not share."""

    def __init__(self, name: str, param: str, json_has: str, table_order: str, games_write: str):
        self.name = name
        self._param = param
        #: a JSON array column holding a value: ``{column}`` and one ``?``
        self.json_has = json_has
        #: the order the served tables were created in
        self.table_order = table_order
        #: a ``games`` row written whole, replacing the game's row if it has one
        self.games_write = self.sql(games_write)

    def sql(self, text: str) -> str:
        """``text`` with its ``?`` parameters in the driver's style (the statements hold no
        literal ``?`` or ``%``)."""
        return text if self._param == "?" else text.replace("?", self._param)


_GAMES_VALUES = f"INTO games ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)})"
SQLITE = Dialect(
    "sqlite", "?", "EXISTS (SELECT 1 FROM json_each(games.{column}) WHERE value = ?)", "rowid",
    # (an upsert would do on SQLite too, but lays the file out otherwise: the replay of a
    # store written so reads some 5 % slower)
    "INSERT OR REPLACE " + _GAMES_VALUES,
)
POSTGRES = Dialect(
    "postgresql", "%s", "jsonb_exists({column}::jsonb, ?)", "n",
    f"INSERT {_GAMES_VALUES} ON CONFLICT (game_id) DO UPDATE SET {', '.join(f'{c} = excluded.{c}' for c in COLUMNS[1:])}",
)

# --- the events table ----------------------------------------------------------------------
INSERT_EVENT = (
    "INSERT INTO events (game_id, seq, type, payload, recorded_at, hash, prev_hash, command_id, position, chain) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
LAST_ROW = "SELECT seq, hash, type FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1"
BY_COMMAND = "SELECT 1 FROM events WHERE game_id = ? AND command_id = ? LIMIT 1"
LAST_POSITION = "SELECT coalesce(max(position), 0) FROM events"
VERSION = "SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?"
PAYLOADS = "SELECT seq, payload FROM events WHERE game_id = ? ORDER BY seq"
ALL_PAYLOADS = "SELECT game_id, seq, payload FROM events ORDER BY game_id, seq"
FIRST_PAYLOAD = "SELECT payload FROM events WHERE game_id = ? AND seq = 1"
FEED_ROWS = "SELECT position, game_id, seq, payload FROM events WHERE position > ? ORDER BY position LIMIT ?"
HASH_ROWS = "SELECT seq, type, hash FROM events WHERE game_id = ? AND seq > ? ORDER BY seq"
GAME_IDS = "SELECT DISTINCT game_id FROM events ORDER BY game_id"
GAME_COUNT = "SELECT count(DISTINCT game_id) FROM events"
#: ``{payload}``: the payload as the bytes hashed; ``{chain}``: the chain column (or 1 in a
#: store older than the column)
CHAIN_ROWS = "SELECT game_id, seq, type, {payload}, hash, prev_hash, {chain}, recorded_at, command_id FROM events"
RECORD_ROWS = "SELECT game_id, seq, type, recorded_at, hash, prev_hash, command_id, {chain}, payload FROM events WHERE game_id = ? ORDER BY seq"
SCAN = "SELECT game_id, seq, payload, recorded_at FROM events ORDER BY game_id, seq"

# --- the games projection ------------------------------------------------------------------
GAMES_SELECT = f"SELECT {', '.join(COLUMNS)} FROM games"
GAME_ROW = GAMES_SELECT + " WHERE game_id = ?"
GAMES_ORDER = " ORDER BY started_at, game_id"
#: what the projection check reads (:func:`~.projection.derive`)
GAME_COUNTS = "SELECT game_id, count(*), sum(CASE WHEN type = 'hand_dealt' THEN 1 ELSE 0 END) FROM events GROUP BY game_id"
FOLDED_ROWS = (
    "SELECT game_id, seq, type, payload, recorded_at FROM events "
    "WHERE type IN ('game_started', 'hand_ended', 'game_ended') ORDER BY game_id, seq"
)


def games_query(dialect: Dialect, player: str | None, variant: str | None) -> tuple[str, list[str]]:
    """The ``games`` rows (oldest first), optionally only those with ``player`` seated and
    ``variant`` pinned, in ``dialect``: the statement and its arguments."""
    where, args = [], []
    for column, value in (("players", player), ("variants", variant)):
        if value is not None:
            where.append(dialect.json_has.format(column=column))
            args.append(value)
    sql = GAMES_SELECT + (" WHERE " + " AND ".join(where) if where else "") + GAMES_ORDER
    return dialect.sql(sql), args


class Statements(Protocol):
    """What the side tables' code needs of a connection: ``?`` statements run in the
    store's dialect."""

    dialect: Dialect

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any: ...  # a cursor: fetchone(), fetchall(), iteration

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    def has_tables(self, names: Iterable[str]) -> bool: ...


class SqliteStatements:
    """The SQLite store's own connection."""

    dialect = SQLITE

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self._conn.execute(sql, tuple(args))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._conn.executemany(sql, rows)

    def has_tables(self, names: Iterable[str]) -> bool:
        wanted = set(names)
        found = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return wanted <= found


class PostgresStatements:
    """A psycopg connection (from the PostgreSQL store's pool), ``?`` turned into ``%s``."""

    dialect = POSTGRES

    def __init__(self, conn: Any):
        self._conn = conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return self._conn.execute(POSTGRES.sql(sql), tuple(args))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self._conn.cursor() as cur:
            cur.executemany(POSTGRES.sql(sql), list(rows))

    def has_tables(self, names: Iterable[str]) -> bool:
        wanted = list(names)
        row = self._conn.execute(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname = ANY(%s)",
            (wanted,),
        ).fetchone()
        return bool(row[0] == len(set(wanted)))
