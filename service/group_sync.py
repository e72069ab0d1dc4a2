"""Group commit for a durable SQLite store: one fsync for the commands of many tables that
arrive together, and nothing reaches a client before the fsync that covers it.

A durable ``tonk serve`` on SQLite opens the store with ``synchronous=NORMAL``: in WAL mode a
commit then writes its frames to the ``-wal`` file without waiting for the disk (a killed
process loses nothing, the OS has the frames; SQLite itself syncs the WAL before every
checkpoint).  What a power cut could still lose is made durable here: :class:`GroupSync` runs
``fsync`` on the ``-wal`` file in a worker thread, numbered 1, 2, 3...; a *ticket* is the
number of the first fsync that starts after a moment, so everything written before that
moment is on disk once that fsync has completed.  Commits that arrive while an fsync runs
share the next one, and the event loop goes on serving while the disk works.

:class:`Durability` holds every answer back until its ticket's fsync is done:

* a writing request (any method but GET, HEAD and OPTIONS): its answer starts only after an
  fsync that started after its handler returned (:func:`acknowledge_after_sync`);
* a read of one table (``/tables/{id}/...``, ``/games/{id}/...``) and every event a stream
  sends (``service/streams.py``): after the fsync that covers the table's last commit (the
  ticket noted when the commit was told to the table's listeners, :meth:`Durability.committed`);
* the list of tables: after the fsync that covers the last commit of any table.

So another seat, a spectator or a second request never sees a move that a power cut could
still take back, and the author's answer and the other seats' stream events are released by
the same fsync (their order on the wire is then the network's: the page copes with either).
An fsync that fails fails every answer waiting for it (a 500; a stream ends and its client
reconnects): nothing is shown that may not be on disk.  Stores that sync each commit
themselves (PostgreSQL, SQLite ``--no-durable`` by choice) have no group: nothing waits.
"""

from __future__ import annotations

import asyncio
import re
from typing import Awaitable, Callable

from litestar.types import ASGIApp, Message, Receive, Scope, Send

#: methods that never write: their answers wait only for what they show
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

#: the paths that show one table (a seat's view, its stream, receipts; an ended game's replay)
_ONE_TABLE = re.compile(r"^/(?:tables|games)/([^/]+)/")


class SyncFailed(OSError):
    """The fsync that was to cover a commit failed: the commit may not be on disk."""


class GroupSync:
    """Coalesced calls of a blocking ``sync`` (an fsync), run one at a time in a worker thread."""

    def __init__(self, sync: Callable[[], None]):
        self._sync = sync
        self.started = 0  # fsyncs started (the running one's number, when one runs)
        self.done = 0  # the last fsync completed (they complete in order)
        self._failed: set[int] = set()
        self._waiting: dict[int, asyncio.Future[None]] = {}  # ticket -> its waiters' future
        self._task: asyncio.Future[None] | None = None  # held: the loop keeps only a weak reference
        self.syncs = 0  # fsyncs that succeeded (for tests and benchmarks)

    def ticket(self) -> int:
        """The number of the first fsync that starts after now: once it is done, everything
        written before this call is on disk."""
        return self.started + 1

    def waiters(self) -> int:
        """How many fsyncs have answers waiting for them (for tests)."""
        return len(self._waiting)

    async def wait_for(self, ticket: int) -> None:
        """Return once fsync number ``ticket`` has completed (at once if it has); raise
        :class:`SyncFailed` if it failed."""
        if ticket in self._failed:
            raise SyncFailed(f"the fsync of the store's write-ahead log failed (fsync {ticket})")
        if ticket <= self.done:
            return
        fut = self._waiting.get(ticket)
        if fut is None:
            fut = self._waiting[ticket] = asyncio.get_running_loop().create_future()
            if self._task is None or self._task.done():
                self._task = asyncio.ensure_future(self._run())
        await asyncio.shield(fut)

    async def wait(self) -> None:
        """Return once everything written before this call is on disk."""
        await self.wait_for(self.ticket())

    async def idle(self) -> None:
        """Return once no fsync runs (before the file is closed)."""
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)

    async def _run(self) -> None:
        while any(t > self.started for t in self._waiting):  # someone needs an fsync not yet started
            self.started += 1
            n = self.started
            error: BaseException | None = None
            try:
                await asyncio.to_thread(self._sync)
                self.syncs += 1
            except Exception as exc:
                self._failed.add(n)
                error = SyncFailed(f"the fsync of the store's write-ahead log failed (fsync {n}): {exc}")
            self.done = n
            fut = self._waiting.pop(n, None)
            if fut is not None and not fut.done():
                if error is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(error)
                    fut.exception()  # retrieved: a fsync nobody waits for any more is not "never retrieved"


class Durability:
    """What each answer must wait for before it leaves (see the module's text): no group,
    nothing (the store syncs each commit itself)."""

    def __init__(self, group: GroupSync | None = None, *, shared: bool = False):
        self.group = group
        # several processes write the file (tonk serve --workers): a read may show another's
        # commit that this process's tickets do not know of, so it waits for an fsync that
        # starts after it, as a write does (an fsync covers every process's commits before it)
        self.shared = shared
        self._tables: dict[str, int] = {}  # table id -> the ticket of its last commit
        self._last = 0  # the ticket of the last commit of any table

    def committed(self, table_id: str) -> None:
        """A commit of ``table_id`` is being told to its listeners (``Tables`` calls this)."""
        if self.group is None:
            return
        t = self.group.ticket()
        self._tables[table_id] = self._last = t
        if len(self._tables) > 4096:  # forget the tickets already on disk
            done = self.group.done
            self._tables = {k: v for k, v in self._tables.items() if v > done}

    async def table(self, table_id: str) -> None:
        """Return once the last commit of ``table_id`` is on disk."""
        if self.group is not None:
            await self.group.wait_for(self._tables.get(table_id, 0))

    async def any_table(self) -> None:
        """Return once the last commit of every table is on disk."""
        if self.group is not None:
            await self.group.wait_for(self._last)

    async def everything(self) -> None:
        """Return once everything written so far (a table's settings and seats too) is on disk."""
        if self.group is not None:
            await self.group.wait()

    def wait_before_answer(self, method: str, path: str) -> Callable[[], Awaitable[None]] | None:
        """What an answer to ``method path`` waits for before it starts, or ``None`` (nothing):
        a writing request, everything written before this call (it is called once the
        handler has returned); a read of one table, that table's last commit; the tables'
        list, every table's; pages, static files, /ping and the schema, nothing."""
        if self.group is None:
            return None
        one = _ONE_TABLE.match(path)
        if method not in READ_METHODS:
            return self.everything
        if self.shared and (one is not None or path.rstrip("/") == "/tables"):
            return self.everything
        if one is not None:
            table_id = one.group(1)
            return lambda: self.table(table_id)
        if path.rstrip("/") == "/tables":
            return self.any_table
        return None


def acknowledge_after_sync(durability: Callable[[Scope], Durability | None]) -> Callable[[ASGIApp], ASGIApp]:
    """ASGI middleware: a response starts only after what it may show is on disk (a writing
    request: everything written before its handler returned; a read of one table: that
    table's last commit; the tables' list: every table's).  Streams wait event by event
    themselves (``service/streams.py``)."""

    def middleware(app: ASGIApp) -> ASGIApp:
        async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
            d = durability(scope) if scope["type"] == "http" else None
            wait = d.wait_before_answer(str(scope.get("method", "GET")), scope.get("path", "")) if d is not None else None
            if wait is None:
                await app(scope, receive, send)
                return
            ready = wait

            async def send_when_durable(message: Message) -> None:
                if message["type"] == "http.response.start":
                    await ready()
                await send(message)

            await app(scope, receive, send_when_durable)

        return wrapped

    return middleware
