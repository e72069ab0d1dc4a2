"""Group commit (service/group_sync.py): an answer waits for an fsync that started after its
handler returned; answers that finish together share one fsync; a read of a table waits for
the fsync of that table's last commit; a stream never sends an event before the fsync that
covers it (the same one that releases the command's answer)."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import threading
from typing import Any

import pytest

from seating import sit_at  # tests/support
from tonk.service.group_sync import Durability, GroupSync, SyncFailed, acknowledge_after_sync
from tonk.storage import EventStore


class GatedSync:
    """A sync that blocks until the test opens its gate; records each call's start."""

    def __init__(self) -> None:
        self.started = 0
        self.gate = threading.Semaphore(0)
        self.entered = threading.Semaphore(0)

    def __call__(self) -> None:
        self.started += 1
        self.entered.release()
        self.gate.acquire()


async def _entered(s: GatedSync) -> None:
    await asyncio.to_thread(s.entered.acquire)


def test_a_wait_needs_an_fsync_that_started_after_it() -> None:
    async def main() -> None:
        s = GatedSync()
        g = GroupSync(s)
        a = asyncio.ensure_future(g.wait())
        await _entered(s)  # fsync 1 runs (it covers a)
        b = asyncio.ensure_future(g.wait())  # b's commit came after fsync 1 started
        c = asyncio.ensure_future(g.wait())
        await asyncio.sleep(0)
        s.gate.release()  # fsync 1 ends: a is answered, b and c are not
        await a
        await _entered(s)  # fsync 2 (b's and c's, shared) started
        assert not b.done() and not c.done()
        s.gate.release()
        await asyncio.gather(b, c)
        assert s.started == 2 and g.syncs == 2
        await g.wait_for(1)  # done already: no fsync more
        assert s.started == 2

    asyncio.run(main())


def test_the_next_fsync_starts_when_the_last_ends_even_while_the_event_loop_is_busy() -> None:
    """A commit that waits while an fsync runs gets the next fsync as soon as that one ends: the
    fsyncs' thread starts it without a turn of the event loop (a loop busy with requests would
    otherwise leave the disk idle and every answer waiting longer)."""

    async def main() -> None:
        s = GatedSync()
        g = GroupSync(s)
        a = asyncio.ensure_future(g.wait())
        await _entered(s)  # fsync 1 runs
        b = asyncio.ensure_future(g.wait())
        await asyncio.sleep(0)  # b waits for fsync 2
        s.gate.release()  # fsync 1 ends, and the loop stays busy (blocked here) ...
        assert s.entered.acquire(timeout=120), "fsync 2 did not start while the loop was busy"  # a safety net, not a speed test
        s.gate.release()
        await asyncio.gather(a, b)
        assert s.started == 2 and g.syncs == 2 and g.waiters() == 0

    asyncio.run(main())


class GatedGathering(GroupSync):
    """A group whose thread, between two fsyncs, gathers until the test lets it go on (once)."""

    def __init__(self, sync: GatedSync) -> None:
        super().__init__(sync, gather=0.001)
        self.gathering = threading.Semaphore(0)
        self.go_on = threading.Semaphore(0)
        self.gathered = 0

    def _gather(self) -> None:
        self.gathered += 1
        if self.gathered == 1:
            self.gathering.release()
            self.go_on.acquire()


def test_commits_that_arrive_while_the_thread_gathers_share_the_next_fsync_and_wait_for_it() -> None:
    """With ``gather``, the thread lets a moment pass after an fsync ends before it starts the
    next: the commits of that moment share the next fsync, and none is answered before it."""

    async def main() -> None:
        s = GatedSync()
        g = GatedGathering(s)
        a = asyncio.ensure_future(g.wait())
        await _entered(s)  # fsync 1 runs (it covers a)
        b = asyncio.ensure_future(g.wait())
        await asyncio.sleep(0)  # b waits for fsync 2
        s.gate.release()  # fsync 1 ends; the thread gathers
        assert await asyncio.to_thread(g.gathering.acquire, True, 120), "the thread did not gather"  # a safety net, not a speed test
        await a
        c = asyncio.ensure_future(g.wait())  # commits of the gathering moment
        d = asyncio.ensure_future(g.wait())
        await asyncio.sleep(0)
        assert s.started == 1 and not (b.done() or c.done() or d.done())
        g.go_on.release()
        await _entered(s)  # fsync 2 starts: it covers b, c and d
        await asyncio.sleep(0)
        assert not (b.done() or c.done() or d.done())  # none before the fsync that covers it ends
        s.gate.release()
        await asyncio.gather(b, c, d)
        assert s.started == 2 and g.syncs == 2 and g.waiters() == 0

    asyncio.run(main())


def test_a_failed_fsync_fails_its_waiters_and_the_next_one_runs() -> None:
    calls = []

    def sync() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("disk gone")

    async def main() -> None:
        g = GroupSync(sync)
        with pytest.raises(SyncFailed, match="disk gone"):
            await g.wait()
        with pytest.raises(SyncFailed):  # what fsync 1 was to cover is never said to be on disk
            await g.wait_for(1)
        await g.wait()
        assert len(calls) == 2

    asyncio.run(main())


def _run_app(method: str, path: str, durability: Durability | None) -> list[str]:
    order: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        order.append("handled")
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def send(message: dict[str, Any]) -> None:
        order.append(message["type"])

    async def main() -> None:
        wrapped = acknowledge_after_sync(lambda scope: durability)(app)
        await wrapped({"type": "http", "method": method, "path": path}, None, send)  # type: ignore[arg-type]

    asyncio.run(main())
    return order


def _logging(order: list[str]) -> GroupSync:
    return GroupSync(lambda: order.append("fsync"))


def test_a_writing_request_is_answered_after_the_fsync() -> None:
    order: list[str] = []
    d = Durability(_logging(order))
    got = _run_app("POST", "/tables/t1/commands", d)
    assert got[0] == "handled" and order == ["fsync"] and got[1:] == ["http.response.start", "http.response.body"]


def test_a_read_of_a_table_waits_for_that_tables_last_commit_only() -> None:
    order: list[str] = []
    d = Durability(_logging(order))
    d.committed("t1")  # a commit of t1, not yet on disk
    assert _run_app("GET", "/tables/t2/view", d) == ["handled", "http.response.start", "http.response.body"]
    assert order == []  # another table's commit holds nothing
    assert _run_app("GET", "/tables/t1/view", d) == ["handled", "http.response.start", "http.response.body"]
    assert order == ["fsync"]  # t1's view left after the fsync of its commit
    assert _run_app("GET", "/tables/t1/view", d) == ["handled", "http.response.start", "http.response.body"]
    assert order == ["fsync"]  # on disk already: no fsync more
    d.committed("t3")
    _run_app("GET", "/tables", d)  # the list shows every table's status
    assert order == ["fsync", "fsync"]


def test_reads_without_a_table_and_stores_that_sync_themselves_are_not_held() -> None:
    order: list[str] = []
    d = Durability(_logging(order))
    d.committed("t1")
    assert _run_app("GET", "/ping", d) == ["handled", "http.response.start", "http.response.body"]
    assert _run_app("GET", "/static/table.js", d) == ["handled", "http.response.start", "http.response.body"]
    assert order == []
    nothing = Durability()  # PostgreSQL, or SQLite --no-durable
    nothing.committed("t1")
    assert _run_app("POST", "/tables/t1/commands", nothing) == ["handled", "http.response.start", "http.response.body"]
    assert _run_app("POST", "/tables/t1/commands", None) == ["handled", "http.response.start", "http.response.body"]


def test_a_stream_sends_a_move_only_after_the_fsync_that_covers_it(tmp_path) -> None:
    """Another seat's stream must not show a move a power cut could still take back: with the
    fsync held, the move is stored and told to the stream, and the stream waits; the fsync
    done, the move is sent.  (Before, the stream sent it at once, ahead of the fsync and of the
    author's answer.)"""
    from tonk.application.table_types import TableSettings
    from tonk.application.tables import Tables
    from tonk.service.app import ServiceConfig
    from tonk.service.streams import stream_app

    log: list[str] = []
    gate = threading.Event()
    gate.set()

    def sync() -> None:
        gate.wait()
        log.append("fsync done")

    async def scenario() -> None:
        with EventStore.open(tmp_path / "s.db") as store:
            tables = Tables(store)
            group = GroupSync(sync)
            durability = Durability(group)
            tables.wrote = durability.committed
            for _ in range(20):  # a deal can end the hand at once: a table where someone may act
                created = sit_at(tables, tables.create(TableSettings(seats=["ann", "bob"])))
                views = {s: tables.view(created.table, s) for s in ("ann", "bob")}
                actor = next((s for s, v in views.items() if v.legal), None)
                if actor is not None:
                    break
            else:
                raise AssertionError("20 tables in a row ended their first hand at the deal")
            other = "bob" if actor == "ann" else "ann"
            disconnect = asyncio.Event()
            opened = asyncio.Event()

            async def send(message: dict[str, Any]) -> None:
                body = message.get("body", b"")
                if b"event: snapshot" in body:
                    log.append("snapshot sent")
                    opened.set()
                elif b"\nevent: " in body or body.startswith(b"id: "):
                    log.append("event sent")

            async def receive() -> dict[str, Any]:
                await disconnect.wait()
                return {"type": "http.disconnect"}

            app = stream_app(tables, ServiceConfig(keepalive=60), asyncio.Event(), created.table, other, None, durability)
            streaming = asyncio.ensure_future(app({}, receive, send))
            await asyncio.wait_for(opened.wait(), 60)  # a safety net against a hang, not a speed test
            gate.clear()  # the disk is slow now
            view = views[actor]
            legal = dict(random.Random(5).choice([c for c in view.legal if c["action"] != "knock"] or view.legal))
            action = legal.pop("action")
            legal.pop("player", None)
            tables.act(created.table, actor, action, {k: v for k, v in legal.items() if v not in (None, {})}, view.version, "c1")
            log.append("move stored")
            # let the stream run until it either sent the move or waits for an fsync
            for _ in range(6000):
                if "event sent" in log or group.waiters():
                    break
                await asyncio.sleep(0.01)
            assert "event sent" not in log, log
            gate.set()
            for _ in range(6000):
                if "event sent" in log:
                    break
                await asyncio.sleep(0.01)
            disconnect.set()
            await asyncio.wait_for(streaming, 60)
            gate.set()

    asyncio.run(scenario())
    stored = log.index("move stored")
    assert "fsync done" in log[stored:] and "event sent" in log[stored:], log
    assert log.index("fsync done", stored) < log.index("event sent", stored), log


def _playable(tables: Any) -> tuple[str, str, dict[str, Any], int]:
    """A new table where a person is to act: (table id, seat, a legal command's fields, version)."""
    from tonk.application.table_types import TableSettings

    for _ in range(20):  # a deal can end the hand at once: a table where someone may act
        created = sit_at(tables, tables.create(TableSettings(seats=["ann", "bob"])))
        for seat in ("ann", "bob"):
            view = tables.view(created.table, seat)
            if view.legal:
                legal = dict(random.Random(5).choice([c for c in view.legal if c["action"] != "knock"] or view.legal))
                legal.pop("player", None)
                return created.table, seat, {k: v for k, v in legal.items() if v not in (None, {})}, view.version
    raise AssertionError("20 tables in a row ended their first hand at the deal")


def _batched(store: Any, sync: Any) -> tuple[Any, GroupSync, Durability, str, str, dict[str, Any], int]:
    """A table where a person may act, served from ``store`` with its appends shared per turn of
    the loop and each fsync made by ``sync``: (tables, group, durability, table id, seat, a legal
    command's fields, version)."""
    from tonk.application.tables import Tables

    tables = Tables(store)
    group = GroupSync(sync)
    durability = Durability(group)
    tables.wrote = durability.committed
    table_id, seat, fields, version = _playable(tables)
    durability.batch_commits(store, tables.forget)
    return tables, group, durability, table_id, seat, fields, version


class _CommitFails:
    """A store's connection whose ``COMMIT`` fails as a failing disk's would (the rest is the real one's)."""

    def __init__(self, conn: Any):
        self._conn = conn

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "COMMIT":
            raise sqlite3.OperationalError("disk I/O error (simulated)")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def _rows(path) -> int:
    """The events another connection sees committed."""

    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM event_rows").fetchone()[0])
    finally:
        conn.close()


def test_a_batched_command_is_answered_only_after_an_fsync_that_started_after_its_commit(tmp_path) -> None:
    """With the appends of a loop's turn in one transaction (``Durability.batch_commits``): a
    command told while an fsync runs is committed at the turn's end, not at once; its answer
    and the table's readers wait for the first fsync that starts after that commit (the one
    running covers nothing of it), and that fsync starts with the commit on disk's way."""

    db = tmp_path / "s.db"
    gated = GatedSync()
    seen_at_start: list[int] = []

    def sync() -> None:
        seen_at_start.append(_rows(db))  # what was committed when this fsync started
        gated()

    async def scenario() -> None:
        with EventStore.open(db, durable=False) as store:
            tables, group, durability, table_id, seat, fields, version = _batched(store, sync)
            first = asyncio.ensure_future(group.wait())
            await _entered(gated)  # fsync 1 runs
            before = _rows(db)
            action = fields.pop("action")
            tables.act(table_id, seat, action, fields, version, "c1")
            assert _rows(db) == before  # in the open batch: not committed while fsync 1 runs
            answer = asyncio.ensure_future(durability.everything())
            reader = asyncio.ensure_future(durability.table(table_id))
            for _ in range(3):
                await asyncio.sleep(0)  # the loop's next turn commits the batch
            after = _rows(db)
            assert after > before
            assert not answer.done() and not reader.done()
            gated.gate.release()  # fsync 1 ends: it started before the commit
            await first
            await _entered(gated)  # fsync 2 started, after the commit
            assert seen_at_start == [before, after]
            assert not answer.done() and not reader.done()
            gated.gate.release()
            await asyncio.wait_for(asyncio.gather(answer, reader), 60)  # a safety net, not a speed test
            assert group.started == 2

    asyncio.run(scenario())


def test_a_command_told_while_no_fsync_runs_is_committed_at_once(tmp_path) -> None:
    """The disk idle, a batch is not kept open for the turn's end: the command's commit is made
    when it is told, and its answer waits for the next fsync (which starts after it)."""

    db = tmp_path / "s.db"
    gated = GatedSync()

    async def scenario() -> None:
        with EventStore.open(db, durable=False) as store:
            tables, group, durability, table_id, seat, fields, version = _batched(store, gated)
            before = _rows(db)
            action = fields.pop("action")
            tables.act(table_id, seat, action, fields, version, "c1")
            assert _rows(db) > before  # committed before any turn of the loop
            answer = asyncio.ensure_future(durability.everything())
            await _entered(gated)
            assert not answer.done()
            gated.gate.release()
            await asyncio.wait_for(answer, 60)
            assert group.started == 1

    asyncio.run(scenario())


def test_a_lost_batch_fails_its_answers_and_drops_its_tables_folds(tmp_path) -> None:
    """A batch whose commit fails is lost whole: every answer waiting for it fails (the 503 of
    a failed fsync), and each of its tables is folded again from the store, without the lost
    move."""

    gated = GatedSync()

    async def scenario() -> None:
        with EventStore.open(tmp_path / "s.db", durable=False) as store:
            tables, group, durability, table_id, seat, fields, version = _batched(store, gated)
            first = asyncio.ensure_future(group.wait())
            await _entered(gated)  # fsync 1 runs: the batch waits for the turn's end
            real = store._conn
            store._conn = _CommitFails(real)  # type: ignore[assignment]

            async def read() -> None:  # a reader that shows the move, as a stream or a GET would
                assert tables.table(table_id).version > version
                await durability.table(table_id)

            reader = asyncio.ensure_future(read())  # it runs before the turn's end commits
            action = fields.pop("action")
            tables.act(table_id, seat, action, fields, version, "c1")
            answer = asyncio.ensure_future(durability.everything())  # it asks after the commit failed
            with pytest.raises(SyncFailed, match="commit"):
                await asyncio.wait_for(answer, 60)
            with pytest.raises(SyncFailed):
                await asyncio.wait_for(reader, 60)
            store._conn = real
            assert tables.table(table_id).version == version  # folded again: the move is not stored
            gated.gate.release()
            await first

    asyncio.run(scenario())


def test_a_routes_read_made_before_its_tables_batch_was_lost_fails_even_when_it_asks_later(tmp_path) -> None:
    """A route's read of a table takes its wait when the request begins and asks it when the
    answer starts: a batch of the table lost in between (the answer may show its move) fails
    it, however late it asks; a read begun after the loss is answered."""

    gated = GatedSync()

    async def scenario() -> None:
        with EventStore.open(tmp_path / "s.db", durable=False) as store:
            tables, group, durability, table_id, seat, fields, version = _batched(store, gated)
            first = asyncio.ensure_future(group.wait())
            await _entered(gated)  # fsync 1 runs: the batch waits for the turn's end
            read = durability.wait_before_answer("GET", f"/tables/{table_id}/view")  # the request begins
            assert read is not None
            real = store._conn
            store._conn = _CommitFails(real)  # type: ignore[assignment]
            action = fields.pop("action")
            tables.act(table_id, seat, action, fields, version, "c1")  # the read's answer may show it
            for _ in range(3):
                await asyncio.sleep(0)  # the turn's end: the commit fails
            store._conn = real
            with pytest.raises(SyncFailed, match="commit"):
                await read()
            later = durability.wait_before_answer("GET", f"/tables/{table_id}/view")
            assert later is not None
            gated.gate.release()
            await first
            await asyncio.wait_for(later(), 60)  # begun after the loss: its answer is the store's

    asyncio.run(scenario())
