"""Group commit for a durable SQLite store: one fsync for the commands of many tables that
arrive together, each acknowledged only after the fsync that covers it.

A durable ``tonk serve`` on SQLite opens the store with ``synchronous=NORMAL``: in WAL mode a
commit then writes its frames to the ``-wal`` file without waiting for the disk (a killed
process loses nothing, the OS has the frames; SQLite itself syncs the WAL before every
checkpoint and the WAL header when the file is reused).  What a power cut could still lose is
made durable here: :class:`GroupSync` runs ``fsync`` on the ``-wal`` file in a worker thread,
and :func:`acknowledge_after_sync` holds back the answer of every request that may have written
(any method but GET, HEAD and OPTIONS) until an fsync that *started after the request's
handler returned* has completed.  Requests that finish while an fsync is running share the next
one, so one fsync covers the commits of every table that arrived meanwhile, and the event loop
goes on serving views and commands while the disk works.  An fsync that fails is an error
answer (500): nothing is acknowledged that may not be on disk.
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: methods that never write: their answers are not held back
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class GroupSync:
    """Coalesced calls of a blocking ``sync`` (an fsync), run in a worker thread."""

    def __init__(self, sync: Callable[[], None]):
        self._sync = sync
        self._pending: asyncio.Future[None] | None = None  # the next fsync's waiters
        self._running = False
        self.syncs = 0  # fsyncs done (for tests and benchmarks)

    async def wait(self) -> None:
        """Return once everything written before this call is on disk."""
        fut = self._pending
        if fut is None:
            fut = self._pending = asyncio.get_running_loop().create_future()
            if not self._running:
                self._running = True
                asyncio.ensure_future(self._run())
        await asyncio.shield(fut)

    async def _run(self) -> None:
        try:
            while self._pending is not None:
                fut, self._pending = self._pending, None  # later waiters need an fsync that starts later
                try:
                    await asyncio.to_thread(self._sync)
                except Exception as exc:
                    if not fut.done():
                        fut.set_exception(exc)
                    continue
                self.syncs += 1
                if not fut.done():
                    fut.set_result(None)
        finally:
            self._running = False


def acknowledge_after_sync(group: Callable[[], GroupSync | None]) -> Callable[[ASGIApp], ASGIApp]:
    """ASGI middleware: a writing request's response starts only after ``group().wait()``
    (no group: a store that syncs each commit itself, nothing to wait for)."""

    def middleware(app: ASGIApp) -> ASGIApp:
        async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http" or scope.get("method", "GET") in READ_METHODS:
                await app(scope, receive, send)
                return

            async def send_when_durable(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    g = group()
                    if g is not None:
                        await g.wait()
                await send(message)

            await app(scope, receive, send_when_durable)

        return wrapped

    return middleware
