"""Statements with ``?`` parameters on either back end, for the store's own side tables
(the evidence log): one text of each statement, run on SQLite as it is and on PostgreSQL
with ``%s`` parameters.  The SQL itself is kept to what both dialects share
(``INSERT ... ON CONFLICT DO NOTHING``, ``coalesce``, ``LIMIT``).

A store hands one out with ``store.statements()`` (reads) and
``store.statements_write()`` (one write transaction holding the store's append lock).
"""

from __future__ import annotations

import sqlite3
from typing import Any, Iterable, Protocol, Sequence


class Statements(Protocol):
    """What the side tables' code needs of a connection."""

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any: ...  # a cursor: fetchone(), fetchall(), iteration

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    def has_tables(self, names: Iterable[str]) -> bool: ...


class SqliteStatements:
    """The SQLite store's own connection."""

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
    """A psycopg connection (from the PostgreSQL store's pool), ``?`` turned into ``%s``.
    The statements given hold no literal ``?`` or ``%``."""

    def __init__(self, conn: Any):
        self._conn = conn

    @staticmethod
    def _sql(sql: str) -> str:
        return sql.replace("?", "%s")

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return self._conn.execute(self._sql(sql), tuple(args))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self._conn.cursor() as cur:
            cur.executemany(self._sql(sql), list(rows))

    def has_tables(self, names: Iterable[str]) -> bool:
        wanted = list(names)
        row = self._conn.execute(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname = ANY(%s)",
            (wanted,),
        ).fetchone()
        return row[0] == len(set(wanted))
