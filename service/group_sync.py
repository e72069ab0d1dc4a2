"""Group commit for a durable SQLite store: one fsync for the commands of many tables that
arrive together, and nothing reaches a client before the fsync that covers it.

A durable ``tonk serve`` on SQLite opens the store with ``synchronous=NORMAL``: in WAL mode a
commit then writes its frames to the ``-wal`` file without waiting for the disk (a killed
process loses nothing, the OS has the frames; SQLite itself syncs the WAL before every
checkpoint).  What a power cut could still lose is made durable here: :class:`GroupSync` runs
``fsync`` on the ``-wal`` file in a thread of its own, numbered 1, 2, 3...; a *ticket* is the
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
import contextvars
import queue
import re
import threading
import time
from typing import Any, Awaitable, Callable

from litestar.types import ASGIApp, Message, Receive, Scope, Send

from .errors import answer_not_durable

#: methods that never write: their answers wait only for what they show
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

#: the paths that show one table (a seat's view, its stream, receipts; an ended game's replay)
_ONE_TABLE = re.compile(r"^/(?:tables|games)/([^/]+)/")


#: a durable SQLite store's :attr:`GroupSync.gather` (seconds): an fsync of the WAL takes about
#: 0.3-0.7 ms here, a command's handler about 0.5 ms
SQLITE_GATHER = 0.001

#: a durable SQLite store's appends share one transaction per turn of the event loop
#: (:meth:`Durability.batch_commits`; False: each append commits itself, as before)
SQLITE_BATCH = True


#: the number of the last batch of appends (:meth:`Durability.batch_commits`) that the running
#: request wrote to (0: none); its answer fails if that batch was lost, however late it asks
_WROTE_IN: contextvars.ContextVar[int] = contextvars.ContextVar("tonk_batch_written", default=0)


class SyncFailed(OSError):
    """The fsync that was to cover a commit failed: the commit may not be on disk."""


class GroupSync:
    """Coalesced calls of a blocking ``sync`` (an fsync), run one after another by a thread of
    their own: the next fsync starts as soon as the last one ends when a commit waits for it,
    without waiting for a turn of the event loop (which, busy with requests, would hold the
    disk idle between fsyncs and every answer longer).  The thread tells the loop of each fsync's
    end (``call_soon_threadsafe``), and the waiters are answered there; it ends after
    :data:`LINGER` seconds with nothing to do, and is started again when needed."""

    #: seconds the fsync thread waits for more work before it ends
    LINGER = 1.0

    def __init__(self, sync: Callable[[], None], gather: float = 0.0):
        self._sync = sync
        # seconds the thread lets pass after an fsync ends before it starts the next: commits
        # that arrive meanwhile share it (fewer fsyncs, fewer bytes written again, fewer
        # wake-ups), and no answer waits longer than one fsync and this for its own to start
        self.gather = gather
        self.started = 0  # fsyncs started (the running one's number, when one runs): the thread's
        self.done = 0  # the last fsync whose end the event loop has seen (they end in order)
        self._wanted = 0  # the highest ticket someone waits for
        self._failed: set[int] = set()
        self._waiting: dict[int, list[asyncio.Future[None]]] = {}  # ticket -> a future per waiter
        self._lock = threading.Lock()  # the thread's start and end, and _wanted, under it
        self._wake: queue.SimpleQueue[None] = queue.SimpleQueue()  # a put wakes the thread
        self._sleeping = False  # the thread is about to wait for a wake (or waits)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # where the ends are told
        self.syncs = 0  # fsyncs that succeeded (for tests and benchmarks)
        self.busy = False  # the thread runs an fsync, or gathers after one (the thread's)

    def ticket(self) -> int:
        """The number of the first fsync that starts after now: once it is done, everything
        written before this call is on disk (the thread counts an fsync as started before it
        calls ``sync``)."""
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
        loop = asyncio.get_running_loop()
        fut = loop.create_future()  # this waiter's own: one cancelled waiter cancels no other
        waiting = self._waiting.get(ticket)
        if waiting is None:
            self._waiting[ticket] = [fut]
            if ticket > self._wanted:
                self._want(ticket, loop)
        else:
            waiting.append(fut)
        await fut

    async def wait(self) -> None:
        """Return once everything written before this call is on disk."""
        await self.wait_for(self.ticket())

    async def idle(self) -> None:
        """Return once no fsync runs (before the file is closed)."""
        while self.done < self.started:  # an fsync started whose end the loop has not seen
            try:
                await self.wait_for(self.started)
            except SyncFailed:
                pass

    def free(self) -> bool:
        """Whether an fsync asked for now would start at once: none runs, none is gathered for,
        none is asked for already (read on the event loop; it may have just become free)."""
        return not self.busy and self._wanted <= self.started

    def request(self, ticket: int) -> None:
        """On the event loop: have fsync number ``ticket`` run (someone is about to wait for it)."""
        if ticket > self._wanted and ticket > self.done:
            self._want(ticket, asyncio.get_running_loop())

    def _want(self, ticket: int, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            self._wanted = max(self._wanted, ticket)
            self._loop = loop
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="tonk-group-sync", daemon=True)
                self._thread.start()
            elif self._sleeping:  # else it sees _wanted before it sleeps (it looks after saying so)
                self._wake.put(None)

    def _run(self) -> None:
        while True:
            if self._wanted > self.started:  # someone waits for an fsync not yet started
                self.busy = True
                n = self.started = self.started + 1
                error: BaseException | None = None
                try:
                    self._sync()
                except Exception as exc:
                    error = exc
                loop = self._loop
                if loop is not None:
                    try:
                        loop.call_soon_threadsafe(self._ended, n, error)
                    except RuntimeError:  # the loop has closed: nobody waits any more
                        pass
                if self.gather:
                    self._gather()
                self.busy = False
                continue
            self._sleeping = True
            if self._wanted > self.started:
                self._sleeping = False
                continue  # asked for between the check and saying so
            try:
                self._wake.get(timeout=self.LINGER)
            except queue.Empty:
                with self._lock:
                    if self._wanted <= self.started:
                        self._thread = None
                        self._sleeping = False
                        return
            self._sleeping = False

    def _gather(self) -> None:
        """In the thread, between two fsyncs: let :attr:`gather` seconds pass."""
        time.sleep(self.gather)

    def _ended(self, n: int, error: BaseException | None) -> None:
        """On the event loop: fsync ``n`` has ended; answer its waiters."""
        if error is None:
            self.syncs += 1
        else:
            self._failed.add(n)
        self.done = n
        for fut in self._waiting.pop(n, ()):
            if fut.done():
                continue  # its waiter was cancelled
            if error is None:
                fut.set_result(None)
            else:
                fut.set_exception(SyncFailed(f"the fsync of the store's write-ahead log failed (fsync {n}): {error}"))


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
        # deferred commits (:meth:`batch_commits`): the store's commit of its open batch, and what
        # to call with each table of a batch that was lost; while a batch is open, its tables
        # (their tickets are drawn once it has committed) and a future per request waiting for it
        self._commit: Callable[[], None] | None = None
        self._lost: Callable[[str], None] = lambda table_id: None
        self._batch: set[str] | None = None
        self._batch_waiters: list[asyncio.Future[int]] = []
        self._batch_no = 0  # the number of the open batch, else of the last one
        self._lost_batches: dict[int, SyncFailed] = {}  # the last batches lost, and why
        self._losses = 0  # batches lost so far
        self._lost_tables: dict[str, int] = {}  # table id -> the count of losses at its last one

    def committed(self, table_id: str) -> None:
        """A commit of ``table_id`` is being told to its listeners (``Tables`` calls this)."""
        if self.group is None:
            return
        if self._batch is not None:  # its ticket is drawn when the batch has committed
            self._batch.add(table_id)
            _WROTE_IN.set(self._batch_no)
            if self.group.free():  # the disk is idle: commit now, and the fsync starts now
                self._commit_batch()
            return
        t = self.group.ticket()
        self._tables[table_id] = self._last = t
        if len(self._tables) > 4096:  # forget the tickets already on disk
            done = self.group.done
            self._tables = {k: v for k, v in self._tables.items() if v > done}

    async def table(self, table_id: str, lost_after: int | None = None) -> None:
        """Return once the last commit of ``table_id`` is on disk.  ``lost_after``: the
        :attr:`_losses` count when the caller began (a route's read, whose answer may have been
        made before a batch of the table was lost): such a loss since fails it."""
        if self.group is not None:
            if lost_after is not None and self._lost_tables.get(table_id, 0) > lost_after:
                raise SyncFailed(f"the commit of the store's last writes of table {table_id} failed")
            if self._batch is not None and table_id in self._batch:
                await self._batch_committed()
            await self.group.wait_for(self._tables.get(table_id, 0))

    async def any_table(self) -> None:
        """Return once the last commit of every table is on disk."""
        if self.group is not None:
            if self._batch:
                await self._batch_committed()
            await self.group.wait_for(self._last)

    async def everything(self) -> None:
        """Return once everything written so far (a table's settings and seats too) is on disk."""
        if self.group is not None:
            if self._batch is not None:
                await self.group.wait_for(await self._batch_committed())
                return
            lost = self._lost_batches.get(_WROTE_IN.get())
            if lost is not None:  # this request wrote to a batch that was lost before it asked
                raise lost
            await self.group.wait()

    # --- deferred commits ----------------------------------------------------------------
    def batch_commits(self, store: Any, lost: Callable[[str], None]) -> None:
        """Let ``store``'s appends share one transaction per turn of the event loop
        (``SqliteEventStore.defer_commits``): the first append of a turn opens it, and a
        callback at the loop's next turn commits it (:meth:`_commit_batch`); only then are the
        batch's tickets drawn, so every answer still waits for an fsync that started after its
        command's commit.  A batch that is lost (its commit failed) fails every answer that
        waits for it (:class:`SyncFailed`, as a failed fsync does), and ``lost(table_id)`` is
        called for each of its tables (the service drops its cached fold)."""
        if self.group is None:
            return
        self._commit = store.commit_deferred
        self._lost = lost
        store.defer_commits(self._open_batch)

    def _open_batch(self) -> bool:
        """The store opens a batch (called on the event loop's thread): commit it at the next
        turn.  False (the append commits itself) when no loop runs here."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        if self._batch is None:  # else the commit at the next turn is called for already
            self._batch = set()
            self._batch_no += 1
            loop.call_soon(self._commit_batch)
        return True

    async def _batch_committed(self) -> int:
        """Return once the open batch has committed, with the ticket of the first fsync that
        started after its commit; :class:`SyncFailed` when it was lost."""
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()  # this waiter's own
        self._batch_waiters.append(fut)
        return await fut

    def _commit_batch(self) -> None:
        """On the event loop, a turn after the batch opened (or earlier: a commit of it told
        while no fsync ran, :meth:`committed`): commit it, draw its ticket, and release its
        waiters (to wait for that fsync)."""
        if self._batch is None:
            return  # committed already (the callback of a batch committed early)
        tables, self._batch = self._batch, None
        waiters, self._batch_waiters = self._batch_waiters, []
        failure: SyncFailed | None = None
        try:
            if self._commit is not None:
                self._commit()
        except Exception as exc:
            failure = SyncFailed(f"the commit of the store's last writes failed: {exc}")
            self._lost_batches[self._batch_no] = failure
            if len(self._lost_batches) > 64:
                del self._lost_batches[min(self._lost_batches)]
            self._losses += 1
            for table_id in tables | set(getattr(exc, "games", ())):
                self._tables.pop(table_id, None)
                self._lost_tables[table_id] = self._losses
                self._lost(table_id)
            if len(self._lost_tables) > 4096:
                self._lost_tables = {k: v for k, v in self._lost_tables.items() if v > self._losses - 64}
        assert self.group is not None
        t = self.group.ticket()
        if failure is None:
            for table_id in tables:
                self._tables[table_id] = t
            if tables:
                self._last = t
            if waiters:  # (committed early, the answer asks for its fsync when its handler returns)
                self.group.request(t)  # the fsync starts now, not when the waiters next run
        for fut in waiters:
            if fut.done():
                continue  # its waiter was cancelled
            if failure is None:
                fut.set_result(t)
            else:
                fut.set_exception(failure)

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
            losses = self._losses  # a batch of this table lost from now on fails the read too
            return lambda: self.table(table_id, lost_after=losses)
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
            failed = False

            async def send_when_durable(message: Message) -> None:
                nonlocal failed
                if failed:
                    return  # the answer was replaced: the rest of it never leaves
                if message["type"] == "http.response.start":
                    try:
                        await ready()
                    except SyncFailed as failure:
                        failed = True
                        await answer_not_durable(send, failure)
                        return
                await send(message)

            await app(scope, receive, send_when_durable)

        return wrapped

    return middleware
