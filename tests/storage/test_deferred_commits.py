"""Deferred commits on SQLite (``SqliteEventStore.defer_commits``, the service's group commit):
appends share one transaction, each in a savepoint of its own; another connection sees
nothing of the batch before ``commit_deferred``; an append that fails rolls back itself only;
a batch whose commit fails is lost whole (``BatchLost`` names its games) and nothing of it is
stored."""

from __future__ import annotations

import sqlite3

import pytest

from tonk.storage import EventStore, StoreError, UnknownGame
from tonk.storage.sqlite import BatchLost, LeanTransaction, SqliteTransaction


def _others_rows(raw_conn, db) -> int:
    conn = raw_conn(db)
    try:
        return int(conn.execute("SELECT count(*) FROM event_rows").fetchone()[0])
    finally:
        conn.close()


def test_appends_share_one_transaction_that_others_see_only_once_committed(db, play, raw_conn):
    a, b = play(3, hands=1), play(4, hands=1)
    with EventStore.open(db, durable=False) as store:
        opened = []
        store.defer_commits(lambda: opened.append(1) or True)
        assert store.append(a.game_id, a.events[:3], 0) == 3
        assert store.append(b.game_id, b.events[:2], 0) == 2
        assert store.append(a.game_id, a.events[3:5], 3) == 5
        assert opened == [1]  # one batch for the three appends
        assert store.read(a.game_id) == a.events[:5]  # this connection sees its batch
        assert _others_rows(raw_conn, db) == 0  # nobody else does before the commit
        store.commit_deferred()
        assert _others_rows(raw_conn, db) == 7
        assert store.append(b.game_id, b.events[2:], 2) == len(b.events)  # a new batch
        assert opened == [1, 1]
        store.commit_deferred()
        store.commit_deferred()  # nothing open: nothing to do
        assert store.read(b.game_id) == b.events
        assert store.verify() == []
        assert [p for p, _, _ in store.appended_after(0)] == list(range(1, 5 + len(b.events) + 1))  # gap-free order


def test_an_append_that_fails_in_a_batch_rolls_back_itself_only(db, play, monkeypatch):
    a, b = play(5, hands=1), play(6, hands=1)
    failing = {b.game_id}

    def insert_then_fail(original):
        def insert(self, rows, game_row):
            original(self, rows, game_row)  # its rows are written, then the write fails
            if rows[0][0] in failing:
                raise sqlite3.OperationalError("disk I/O error (simulated)")

        return insert

    monkeypatch.setattr(SqliteTransaction, "insert", insert_then_fail(SqliteTransaction.insert))
    monkeypatch.setattr(LeanTransaction, "insert", insert_then_fail(LeanTransaction.insert))
    with EventStore.open(db, durable=False) as store:
        store.defer_commits(lambda: True)
        assert store.append(a.game_id, a.events[:2], 0) == 2
        with pytest.raises(StoreError, match="nothing of this write is stored"):
            store.append(b.game_id, b.events[:3], 0)
        assert store.append(a.game_id, a.events[2:4], 2) == 4  # the batch goes on
        store.commit_deferred()
        assert store.read(a.game_id) == a.events[:4]
        with pytest.raises(UnknownGame):
            store.read(b.game_id)
        failing.clear()
        assert store.append(b.game_id, b.events[:3], 0) == 3  # as if never tried
        store.commit_deferred()
        assert store.read(b.game_id) == b.events[:3]
        assert store.verify() == []
        assert [p for p, _, _ in store.appended_after(0)] == list(range(1, 8))


class _CommitFails:
    """The store's connection, whose ``COMMIT`` fails (a disk error)."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn

    def execute(self, sql: str, *args):
        if sql == "COMMIT":
            raise sqlite3.OperationalError("disk I/O error (simulated)")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str):
        return getattr(self._conn, name)


def test_a_batch_whose_commit_fails_is_lost_whole_and_names_its_games(db, play, raw_conn):
    a, b = play(7, hands=1), play(8, hands=1)
    with EventStore.open(db, durable=False) as store:
        assert store.append(a.game_id, a.events[:1], 0) == 1  # committed before the batch
        store.defer_commits(lambda: True)
        real = store._conn
        store._conn = _CommitFails(real)  # type: ignore[assignment]
        store.append(a.game_id, a.events[1:3], 1)
        store.append(b.game_id, b.events[:2], 0)
        with pytest.raises(BatchLost) as lost:
            store.commit_deferred()
        assert lost.value.games == {a.game_id, b.game_id}
        store._conn = real
        assert store.read(a.game_id) == a.events[:1]
        with pytest.raises(UnknownGame):
            store.read(b.game_id)
        assert store.append(a.game_id, a.events[1:3], 1) == 3  # what it knew was forgotten
        store.commit_deferred()
        assert _others_rows(raw_conn, db) == 3
        assert store.verify() == []


def test_another_write_and_close_commit_the_open_batch_first(db, play, raw_conn):
    a = play(9, hands=1)
    store = EventStore.open(db, durable=False)
    store.defer_commits(lambda: True)
    store.append(a.game_id, a.events[:2], 0)
    with store.statements_write():  # a write of the side tables: its own transaction, after the batch's
        pass
    assert _others_rows(raw_conn, db) == 2
    store.append(a.game_id, a.events[2:4], 2)
    store.close()
    assert _others_rows(raw_conn, db) == 4


def test_inside_a_batch_the_mark_of_others_commits_is_the_one_read_under_its_write_lock(db, play, raw_conn):
    """``data_version`` inside an open batch answers the mark read when the batch took the write
    lock (no other connection can commit while it is held): the same as the pragma's answer,
    another connection's commit before the batch included."""
    a = play(10, hands=1)
    with EventStore.open(db, durable=False) as store:
        store.append(a.game_id, a.events[:1], 0)
        before = store.data_version()
        other = raw_conn(db)
        other.execute("CREATE TABLE another_writer (a)")
        other.commit()
        other.close()
        store.defer_commits(lambda: True)
        store.append(a.game_id, a.events[1:2], 1)
        pragma = int(store._conn.execute("PRAGMA data_version").fetchone()[0])
        assert store.data_version() == pragma != before
        store.commit_deferred()
        assert store.data_version() == pragma
