"""The WAL of a served SQLite store copied into the file off the commit path.

SQLite's automatic checkpoint runs inside the commit that takes the WAL past its threshold
(1,000 pages, 1 MB at the store's 1 KB pages: every hundred or so commands): that commit
then syncs the WAL, copies its pages into the file and syncs the file, on the event loop,
and every request behind it waits.  ``tonk serve`` turns it off on its connection
(:meth:`~tonk.storage.sqlite.SqliteEventStore.checkpoint_apart`) and runs a PASSIVE
checkpoint on a connection of its own in a worker thread instead, every :data:`EVERY`
seconds: it never waits for the writer nor holds it up, and SQLite resets the WAL once a
checkpoint has copied all of it.  Durability is unchanged: the checkpoint syncs the WAL
before it copies and the file before the WAL is reused; commits are acknowledged after
the group's fsync as before (``.group_sync``).
"""

from __future__ import annotations

import asyncio
import logging

from ..storage.sqlite import SqliteEventStore

#: seconds between two checkpoints (a checkpoint with nothing to copy costs a few reads)
EVERY = 0.1


async def checkpoint_apart(store: SqliteEventStore, stopping: asyncio.Event, every: float = EVERY) -> None:
    """Checkpoint ``store`` in a worker thread every ``every`` seconds until ``stopping`` is set
    (start it after :meth:`~tonk.storage.sqlite.SqliteEventStore.checkpoint_apart`; await its
    end before the store is closed)."""
    while not stopping.is_set():
        try:
            await asyncio.to_thread(store.checkpoint)
        except Exception:  # a failed checkpoint leaves the WAL as it is: the next one tries again
            logging.getLogger("tonk.service").exception("WAL checkpoint")
        try:
            await asyncio.wait_for(stopping.wait(), every)
        except asyncio.TimeoutError:
            pass
