"""Caps on the tables in play: so many on the server (``--max-tables``), so many created by
one client address (``--max-tables-per-client``).

A table holds a slot from its creation until its game ends (the hand limit, or
the host's close once the hand in play has ended); then the slot is free again.
Over the server's cap a creation is ``503`` (the server is full: no fault of
the client), over the address's cap ``429``; both with ``Retry-After`` and
nothing stored.  0 is no cap.

The count lives in memory: at start-up every table of the store still in play
takes a server slot (its creator's address was never stored, so it counts for
no address); the tables this server creates count for their address too.
Several nodes on one store each count the tables in play when they started and
those they created.
"""

from __future__ import annotations

from collections import Counter

from ..application.tables import Table, Tables
from .errors import RateLimited, ServerFull

RETRY_AFTER = 60
"""Seconds a refused creation is told to wait (``Retry-After``): a game in play ends when it ends."""


class TableSlots:
    """Which tables are in play, and which address created each (``None``: before this start)."""

    def __init__(self, max_tables: int, max_per_client: int):
        self.max_tables = max_tables
        self.max_per_client = max_per_client
        self.creator: dict[str, str | None] = {}
        self.per_client: Counter[str] = Counter()

    def load(self, tables: Tables) -> int:
        """Take a slot for every table of the store still in play; returns how many."""
        for row in tables.listing():
            if row["status"] != "ended":
                self.hold(tables, row["table"], None, made_now=False)
        return len(self.creator)

    def check(self, client: str) -> None:
        """Raise unless ``client`` may create a table now."""
        if self.max_tables and len(self.creator) >= self.max_tables:
            raise ServerFull(
                f"the server has {len(self.creator)} tables in play, its limit (--max-tables {self.max_tables}); retry when a game has ended",
                limit="max_tables",
                retry_after=RETRY_AFTER,
            )
        if self.max_per_client and self.per_client[client] >= self.max_per_client:
            raise RateLimited(
                f"this address has created {self.per_client[client]} tables still in play, the limit (--max-tables-per-client {self.max_per_client}); "
                "finish or close one (POST /tables/{id}/close with its host token) first",
                limit="max_tables_per_client",
                retry_after=RETRY_AFTER,
            )

    def hold(self, tables: Tables, table_id: str, client: str | None, *, made_now: bool = True) -> None:
        """``table_id`` (just created by ``client``, or found in play) takes a slot until its game ends."""
        if table_id in self.creator:
            return
        self.creator[table_id] = client
        if client is not None:
            self.per_client[client] += 1

        def on_append(table: Table, first: int, events: list) -> None:
            if table.game.state.game_over:
                self.release(table_id)
                table.listeners.discard(on_append)

        tables.listen(table_id, on_append)
        if made_now and tables.table(table_id).game.state.game_over:  # ended as it was made (a tonk on the deal)
            self.release(table_id)

    def release(self, table_id: str) -> None:
        if table_id not in self.creator:
            return
        client = self.creator.pop(table_id)
        if client is not None:
            self.per_client[client] -= 1
            if self.per_client[client] <= 0:
                del self.per_client[client]

    @property
    def in_play(self) -> int:
        return len(self.creator)
