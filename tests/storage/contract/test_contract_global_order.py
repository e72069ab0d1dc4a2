"""The global reading order on every back end: positions 1, 2, 3, ... in commit order, no gap,
no event read twice or skipped, even with several writers (processes; threads for the
in-memory store) appending while a reader tails."""

from __future__ import annotations

import threading

import pytest

from tonk.storage import ConcurrencyError, StoreError
from tonk.storage.feed import follow

WAIT = 120


def test_positions_follow_the_appends_across_games(backend, games):
    a, b = games[0], games[1]
    with backend.open() as store:
        assert store.last_position() == 0 and store.read_all() == []
        store.append(a.game_id, a.events[:3], 0)
        store.append(b.game_id, b.events[:2], 0)
        store.append(a.game_id, a.events[3:5], 3)
        with pytest.raises(ConcurrencyError):
            store.append(b.game_id, b.events[2:4], 0)  # refused: takes no position
        store.append(b.game_id, b.events[2:4], 2)
        got = store.read_all()
        assert [p.position for p in got] == list(range(1, 10))
        assert [(p.game_id, p.seq) for p in got] == (
            [(a.game_id, s) for s in (1, 2, 3)] + [(b.game_id, s) for s in (1, 2)] + [(a.game_id, s) for s in (4, 5)] + [(b.game_id, s) for s in (3, 4)]
        )
        assert [p.event for p in got if p.game_id == a.game_id] == a.events[:5]
        # from the middle, with a limit: a game whose game_started is before the window decodes too
        assert [(p.position, p.event) for p in store.read_all(after=5, limit=3)] == [(6, a.events[3]), (7, a.events[4]), (8, b.events[2])]
        assert store.last_position() == 9


def _writer(open_store, events: list, chunk: int, barrier, done) -> None:
    try:
        barrier.wait(WAIT)
        with open_store() as store:
            gid = events[0].game_id
            version = 0
            while version < len(events):
                version = store.append(gid, events[version : version + chunk], version)
        done.put("ok")
    except BaseException as exc:  # reported to the test
        done.put(repr(exc))


def test_concurrent_writers_and_a_tailing_reader_see_every_position_once(backend, play):
    writers = [play(40 + k, hands=2) for k in range(4)]
    total = sum(len(g.events) for g in writers)
    backend.record([])  # the store exists before the writers race
    barrier, done = backend.barrier(len(writers) + 1), backend.queue()
    procs = [backend.worker(target=_writer, args=(backend.open, list(g.events), 1 + k % 2, barrier, done)) for k, g in enumerate(writers)]
    for p in procs:
        p.start()
    seen: list = []

    def finished() -> bool:  # everything read, or every writer gone (then one last read below)
        return len(seen) >= total or not any(p.is_alive() for p in procs)

    with backend.open(create=False) as store:
        barrier.wait(WAIT)
        for item in follow(store, 0, poll=0.05, stop=finished):
            seen.append(item)
            assert item.position == len(seen), f"position {len(seen)} was skipped or read twice: got {item.position}"
        seen.extend(store.read_all(after=seen[-1].position if seen else 0, limit=total))
        results = [done.get(timeout=WAIT) for _ in procs]
        for p in procs:
            p.join(WAIT)
        assert results == ["ok"] * len(writers)
        assert store.read_all(after=total) == []
        assert store.last_position() == total
    assert [p.position for p in seen] == list(range(1, total + 1))
    for g in writers:
        assert [p.event for p in seen if p.game_id == g.game_id] == g.events


@pytest.mark.postgres
def test_a_notify_wakes_a_waiting_follower(postgres_backend, games):
    """LISTEN/NOTIFY is the wake-up hint: a waiter returns when another connection appends."""
    g = games[0]
    postgres_backend.record([])
    with postgres_backend.open(create=False) as reader, postgres_backend.open(create=False) as writer:
        assert reader.wait_for_append(0.01) is False  # nothing appended: the wait times out (and starts listening)
        t = threading.Timer(0.2, lambda: writer.append(g.game_id, g.events, 0))
        t.start()
        try:
            assert reader.wait_for_append(60) is True
        finally:
            t.join()
        assert len(reader.read_all()) == len(g.events)


def test_sqlite_has_no_notification_so_a_wait_is_a_short_sleep(sqlite_backend):
    sqlite_backend.record([])
    with sqlite_backend.open(create=False) as store:
        assert store.wait_for_append(60) is False


@pytest.mark.postgres
def test_a_follower_whose_listener_is_cut_misses_nothing(postgres_backend, games):
    """A notification sent while the listener is down is lost; the follower polls the
    positions anyway, and listens again on its next wait."""
    import psycopg

    a, b = games[0], games[1]
    postgres_backend.record([])
    with postgres_backend.open(create=False) as reader, postgres_backend.open(create=False) as writer:
        reader.wait_for_append(0.01)  # listening
        with psycopg.connect(postgres_backend.target, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (reader._listener.info.backend_pid,))
        writer.append(a.game_id, a.events, 0)  # its NOTIFY reaches no one
        seen: list = []
        for item in follow(reader, 0, poll=0.05, stop=lambda: len(seen) >= len(a.events)):
            seen.append(item)
        assert [p.position for p in seen] == list(range(1, len(a.events) + 1))
        # listening again: the next append wakes the waiter
        reader.wait_for_append(0.01)
        t = threading.Timer(0.2, lambda: writer.append(b.game_id, b.events, 0))
        t.start()
        try:
            assert reader.wait_for_append(60) is True
        finally:
            t.join()


def test_an_in_memory_append_wakes_a_waiting_follower(memory_backend, games):
    """The in-memory store's hint is exact: an append notifies every waiter.  The test holds
    the store's lock while the writer starts, so the append can only land once the wait
    has released it (no race with the machine's speed)."""
    g = games[0]
    with memory_backend.open() as store:
        assert store.wait_for_append(0.01) is False  # nothing appended: the wait times out
        with store.db.lock:
            writer = threading.Thread(target=store.append, args=(g.game_id, g.events, 0))
            writer.start()
            assert store.wait_for_append(60) is True
        writer.join()
        assert len(store.read_all()) == len(g.events)


def test_the_bounds_of_a_read_of_the_global_order_are_taken_alike(backend, games):
    """A negative ``limit`` read every event on SQLite, none in memory and was 'cannot read
    the store' on PostgreSQL; an ``after`` past 64 bits was an OverflowError on SQLite alone."""
    g = games[0]
    backend.record([g])
    with backend.open(create=False) as store:
        assert [p.position for p in store.read_all(after=-5, limit=2)] == [1, 2]
        assert store.read_all(after=2**70) == [] and store.appended_after(2**70) == []
        assert len(store.read_all(limit=2**70)) == len(g.events) and len(store.appended_after(limit=2**70)) == len(g.events)
        for read in (store.read_all, store.appended_after):
            with pytest.raises(StoreError, match="limit must be a whole number >= 0, not -1"):
                read(0, -1)
            with pytest.raises(StoreError, match=r"after must be a whole number, not '3'"):
                read("3")
