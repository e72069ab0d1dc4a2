"""Server-Sent Events: a seat's live stream and the spectators' delayed one.

A seat's stream starts with a ``snapshot`` (the seat's whole view, ``id`` =
the version it shows), then sends each stored event after it as that seat may
see it (``core.views``), one SSE message per event: ``id`` = the event's seq,
``event`` = its type, ``data`` = ``{"seq", "hash", "event"}`` (a ``hand_ended``
also carries the hand's ``deal`` revealed in full).  With ``Last-Event-ID`` the
stream resumes after that seq, without a snapshot, a gap or a duplicate.
A comment line keeps the connection alive every ``keepalive`` seconds.  A
stream ends by itself once the game has ended and all of it is sent.

When the server stops (SIGTERM, SIGINT: ``service.server``) every stream sends
what is left, then a ``shutdown`` message with a ``retry:`` field (no ``id``, so
the client's last event id stays the last event's), and ends: an EventSource
reconnects by itself, with ``Last-Event-ID``, once a server is back.

Spectators (no token) see no hidden card: events arrive only once the hand
they belong to has ended.  Their snapshot (the players, the status, the
horizon) holds no state and has no ``id``: the game up to the horizon follows it.

Nothing is sent before it is on disk: on a durable SQLite store every write (the opening
and each batch of events) waits for the group commit's fsync that covers the table's last
commit (``service/group_sync.py``), the same fsync that releases the answer of the command
that made it; an fsync that fails ends the stream (the client reconnects).

Bounded resources: each stream has a bounded queue; a client that stops
reading (its queue overflows, or a write does not complete within
``write_timeout``) is dropped.  The route checks the token and answers errors
as JSON; the stream itself is an ASGI app, so the server controls every write.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import msgspec

from ..application.table_types import SPECTATOR, TableError
from .group_sync import Durability

_enc = msgspec.json.Encoder()

#: the reconnection delay a ``shutdown`` message asks of EventSource clients (milliseconds)
RETRY_AFTER_SHUTDOWN_MS = 1000


def _message(event: str, data: Any, id: int | None = None) -> bytes:
    head = f"id: {id}\n" if id is not None else ""
    return f"{head}event: {event}\n".encode() + b"data: " + _enc.encode(data) + b"\n\n"


class _Subscription:
    """The "something was appended" notices of one stream, counted (one that falls ``size``
    notices behind is dropped), and the stream task's one wait for the next: a notice, the
    client leaving, the server stopping (:meth:`wake`) or the keep-alive's time."""

    def __init__(self, size: int):
        self.size = size
        self.pending = 0  # notices not yet taken by a wait
        self.dropped = False
        self._waiter: asyncio.Future[bool] | None = None

    def __call__(self, table, first: int, events) -> None:
        if self.dropped:
            return
        self.pending += 1
        if self.pending > self.size:
            self.dropped = True
        self.wake()

    def wake(self, *_: Any) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(True)

    def _quiet(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(False)

    async def next(self, timeout: float, *also: asyncio.Future) -> bool:
        """Return ``True`` at a notice (taking every one pending) or once one of ``also`` is done
        (each calls :meth:`wake` when it ends), ``False`` after ``timeout`` seconds of quiet."""
        if not self.pending and not any(f.done() for f in also):
            loop = asyncio.get_running_loop()
            waiter = self._waiter = loop.create_future()
            timer = loop.call_later(timeout, self._quiet)
            try:
                if not await waiter:
                    return False
            finally:
                timer.cancel()
                self._waiter = None
        self.pending = 0
        return True


def last_event_id(headers, version: int) -> int | None:
    """The seq a resuming client saw last (``Last-Event-ID``), or ``None`` for a fresh stream."""
    last_id = headers.get("last-event-id")
    if last_id is None:
        return None
    text = last_id.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 18):
        raise TableError(f"Last-Event-ID must be an event seq (a whole number), not {last_id[:40]!r}")
    after = int(text)
    if after > version:
        raise TableError(f"Last-Event-ID {after} is beyond the table's version {version}")
    return after


def resume_after(tables, table_id: str, viewer: str, headers) -> int | None:
    """The seq a resuming ``viewer`` saw last (``Last-Event-ID``), checked against the store's
    version (or the spectators' horizon in it), not against a cached fold that another node's
    appends have not reached yet; ``None`` for a fresh stream."""
    table = tables.fresh(table_id)
    return last_event_id(headers, tables.spectator_horizon(table_id) if viewer == SPECTATOR else table.version)


def stream_app(tables, config, stopping: asyncio.Event, table_id: str, viewer: str, after: int | None, durability: Durability | None = None, *, turn_views: bool = False):
    """The ASGI app that streams ``table_id`` to ``viewer`` (a seat, or :data:`SPECTATOR`),
    fresh (``after`` None) or resumed after seq ``after``, until the game is over, the client
    goes, or ``stopping`` is set (the server stops); auth is checked before it is made.  Each
    write waits until what it sends is on disk (``durability``; none: the store syncs each
    commit itself).  ``turn_views`` (``?view=turn``): each write that leaves the seat to act
    ends with the seat's view (:func:`turn_view`)."""
    durable = durability or Durability()

    async def app(scope, receive, send) -> None:
        await _stream(tables, config, stopping, table_id, viewer, after, receive, send, durable, turn_views)

    return app


def shutdown_message(sent: int) -> bytes:
    """The last message of a stream the server ends because it stops: no ``id`` (the client
    resumes after the last event it got), a ``retry:`` delay, and what to do in the data."""
    data = {"reason": "the server is stopping", "reconnect": "with Last-Event-ID, once the server is back", "last_event_id": sent, "retry_ms": RETRY_AFTER_SHUTDOWN_MS}
    return f"retry: {RETRY_AFTER_SHUTDOWN_MS}\n".encode() + _message("shutdown", data)


async def _stream(tables, config, stopping: asyncio.Event, table_id: str, viewer: str, after: int | None, receive, send, durable: Durability, turn_views: bool = False) -> None:
    table = tables.table(table_id)
    sub = _Subscription(config.stream_queue)
    table.listeners.add(sub)
    try:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-store"), (b"x-accel-buffering", b"no")],
            }
        )
        # subscribed before the backlog is read: an event stored from here on is in the backlog, or
        # noticed, or both (``sent`` keeps it from being sent twice)
        opening, sent = _opening(tables, table_id, viewer, after)
        turn: tuple[int, int] | None = None  # the seat's last turn this stream has shown (a view shows its start)
        if turn_views:
            pushed, turn = turn_view(tables, table_id, viewer, None)
            if after is not None:
                opening += pushed  # a fresh stream's snapshot is the view already
        disconnected = asyncio.ensure_future(_wait_disconnect(receive))
        stop = asyncio.ensure_future(stopping.wait())
        disconnected.add_done_callback(sub.wake)
        stop.add_done_callback(sub.wake)
        write = functools.partial(_write, send, config, stopping, stop)
        try:
            await durable.table(table_id)  # nothing before it is on disk
            await write(opening)
            while not disconnected.done():
                # every wake-up reads what is new (a notice is only a hint that something is)
                items = tables.items(table_id, viewer, sent)
                if items:
                    # the view, if any, read with the items (no await between): it shows exactly them
                    pushed = b""
                    if turn_views:
                        pushed, turn = turn_view(tables, table_id, viewer, turn)
                    await durable.table(table_id)  # the fsync that releases the answer of the command that stored them
                    await write(b"".join([*(_message(i.event["type"], i, i.seq) for i in items), pushed]))
                    sent = items[-1].seq
                if _finished(tables, table_id, viewer, sent) or sub.dropped:
                    break
                if stopping.is_set():
                    await write(shutdown_message(sent))
                    break
                if not await sub.next(config.keepalive, disconnected, stop):
                    await write(b": keep-alive\n\n")
        finally:
            disconnected.cancel()
            stop.cancel()
        await write(b"", more=False)
    except (asyncio.TimeoutError, OSError):
        # a client that stopped reading, or an fsync that failed (SyncFailed): returning with
        # the response unfinished makes the server close the connection
        sub.dropped = True
    finally:
        table.listeners.discard(sub)


def _opening(tables, table_id: str, viewer: str, after: int | None) -> tuple[bytes, int]:
    """The stream's first write and the seq it brings the viewer to: a fresh stream's snapshot
    (a spectator's followed by the game up to the horizon), or a resumed stream's backlog after
    seq ``after``.  Read without an await: nothing can be stored in between."""
    if after is None:
        if viewer == SPECTATOR:
            sent = tables.spectator_horizon(table_id)
            table = tables.table(table_id)
            first = {"table": table.id, "players": list(table.game.players), "status": table.status, "version": sent}
            # no id: the events up to the horizon follow it, and a client that leaves before
            # they come must not resume after them
            chunks = [_message("snapshot", first)]
            chunks += [_message(i.event["type"], i, i.seq) for i in tables.items(table_id, viewer, 0)]
        else:
            view = tables.view(table_id, viewer)
            sent = view.version
            chunks = [_message("snapshot", view, sent)]
        return b"".join(chunks), sent
    items = tables.items(table_id, viewer, after)
    chunks = [_message(i.event["type"], i, i.seq) for i in items]
    return (b"".join(chunks) if chunks else b": resumed\n\n"), (items[-1].seq if items else after)


def turn_view(tables, table_id: str, viewer: str, shown: tuple[int, int] | None) -> tuple[bytes, tuple[int, int] | None]:
    """A ``view`` message when a turn of seat ``viewer`` has begun that the stream has not
    shown yet (``shown``: the last one it has, as (hand, turn)), else nothing; and the turn the
    stream has shown now.  ``id`` = the version the view shows, ``data`` = the seat's view as
    ``GET .../view`` answers it (the legal actions in it).  A client that follows its stream
    (``?view=turn``) learns from it that its turn has come and what it may do, without asking:
    one request per command (its own command's answer carries its view after it, with
    ``?view=true``; a turn the seat's own command begins, a new hand's first, is pushed too)."""
    if viewer == SPECTATOR:
        return b"", shown
    state = tables.table(table_id).game.state
    if not state.in_hand or state.to_act != viewer or state.game_over:
        return b"", shown
    turn = (state.hand_no, state.turn_no)
    if turn == shown:
        return b"", shown  # the seat's own draw, spread or hit: its answer holds the view
    view = tables.view(table_id, viewer, current=True)  # the cached fold: the one the items were read from
    return _message("view", view, view.version), turn


def _finished(tables, table_id: str, viewer: str, sent: int) -> bool:
    """Whether the game has ended and the stream has sent all of it: events stored while the
    last write was under way (the game's end among them) are still to be sent."""
    now = tables.table(table_id)  # the cached fold may have been folded again (another node)
    return now.game.state.game_over and sent >= now.version


async def _write(send, config, stopping: asyncio.Event, stop: asyncio.Future, body: bytes, more: bool = True) -> None:
    """Send ``body``; :class:`asyncio.TimeoutError` when the client does not take it within
    ``config.write_timeout`` or, once the server stops (``stopping`` set, ``stop`` done), within
    half its shutdown timeout (so a stream ends by itself before the server would cut it off).
    A write the transport takes at once (the usual case) costs no task and no wait."""
    loop = asyncio.get_running_loop()
    short = min(config.write_timeout, config.shutdown_timeout / 2)
    async with asyncio.timeout(short if stopping.is_set() else config.write_timeout) as limit:
        active = True

        def shorten(_: Any) -> None:
            when = limit.when()
            if active and (when is None or loop.time() + short < when):
                limit.reschedule(loop.time() + short)

        stop.add_done_callback(shorten)
        try:
            await send({"type": "http.response.body", "body": body, "more_body": more})
        finally:
            active = False
            stop.remove_done_callback(shorten)


async def _wait_disconnect(receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
