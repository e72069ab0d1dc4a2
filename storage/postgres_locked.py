"""A write transaction on the PostgreSQL store's side tables (served tables, seat tokens, the
evidence log) holding the append lock, in as few round trips as its reads allow.

``BEGIN``, the lock (the position counter's ``SELECT … FOR UPDATE``) and every write wait, and go
out in one pipeline with the transaction's next read, or with ``COMMIT``: a transaction that
only writes (a new table's settings and tokens, a seat's seed) is one round trip, and the lock is
held only while the server runs it, never across a round trip to the client.  A read sees the
writes before it (they are sent first, in order).  A write's own result is never asked for
(the side tables' code reads with ``SELECT``), so ``execute`` of a write returns ``None``.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from .statements import POSTGRES, PostgresStatements

#: the append lock: the one-row position counter, locked first (``storage/postgres.py``)
LOCK_POSITION = "SELECT last FROM event_position FOR UPDATE"


def _reads(sql: str) -> bool:
    head = sql.lstrip()[:6].upper()
    return head.startswith("SELECT") or head.startswith("WITH")


class LockedWrites(PostgresStatements):
    """The :class:`~.statements.Statements` of one such transaction on an autocommit connection
    (call :meth:`commit` at its end, :meth:`rollback` on failure)."""

    def __init__(self, conn: Any):
        super().__init__(conn)
        self._begun = False
        self._pending: list[tuple[str, Any, bool]] = []  # (sql, args or rows, many) not yet sent

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        text = POSTGRES.sql(sql)
        if _reads(text):
            return self._send(text, tuple(args))
        self._pending.append((text, tuple(args), False))
        return None

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        batch = [tuple(r) for r in rows]
        if batch:
            self._pending.append((POSTGRES.sql(sql), batch, True))

    def has_tables(self, names: Iterable[str]) -> bool:
        self._send()
        return super().has_tables(names)

    def _send(self, query: str | None = None, args: tuple[Any, ...] = ()) -> Any:
        """Send what waits (``BEGIN`` and the lock first, once), then ``query``: its cursor."""
        conn = self._conn
        found = None
        with conn.pipeline():
            if not self._begun:
                conn.execute("BEGIN")
                conn.execute(LOCK_POSITION)
                self._begun = True
            cur = conn.cursor()
            for sql, params, many in self._pending:
                if many:
                    cur.executemany(sql, params)
                else:
                    cur.execute(sql, params)
            self._pending = []
            if query is not None:
                found = conn.execute(query, args)
        return found

    def commit(self) -> None:
        if not self._begun and not self._pending:
            return  # nothing was asked or written: no transaction
        with self._conn.pipeline():
            self._send()
            self._conn.execute("COMMIT")

    def rollback(self) -> None:
        self._pending = []
        if self._begun or self._conn.info.transaction_status != 0:  # 0: idle
            self._conn.execute("ROLLBACK")
