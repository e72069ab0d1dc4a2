"""A store opened ``bulk`` (``tonk simulate``): larger pages for a new file, commits not each
fsynced, and every commit on disk when ``close()`` returns."""

from __future__ import annotations

import os
import sqlite3

import pytest

from tonk.application.simulate import SimConfig, run_games
from tonk.storage import EventStore
from tonk.storage.open import open_store
from tonk.storage.schema import BULK_CHECKPOINT_BYTES, BULK_PAGE_SIZE, PAGE_SIZE
from tonk.storage.sqlite import SqliteEventStore


def _page_size(path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()


def test_a_new_bulk_store_has_the_bulk_page_size_and_normal_sync(tmp_path, play):
    path = tmp_path / "bulk.db"
    store = open_store(path, create=True, bulk=True)
    assert isinstance(store, SqliteEventStore)
    assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert store._conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == BULK_CHECKPOINT_BYTES // BULK_PAGE_SIZE
    g = play(1)
    store.append(g.game_id, g.events, 0)
    store.close()
    assert BULK_PAGE_SIZE != PAGE_SIZE
    assert _page_size(path) == BULK_PAGE_SIZE
    with EventStore.open(path) as again:  # an ordinary writer later: the file keeps its pages
        assert again.read(g.game_id) == g.events
        assert again.verify() == []
    assert _page_size(path) == BULK_PAGE_SIZE


def test_a_store_made_by_another_writer_keeps_its_page_size_when_opened_bulk(tmp_path, play):
    path = tmp_path / "served.db"
    EventStore.open(path).close()
    with open_store(path, create=True, bulk=True) as store:
        g = play(2)
        store.append(g.game_id, g.events, 0)
    assert _page_size(path) == PAGE_SIZE


def test_an_ordinary_store_commits_with_full_sync(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert store._conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000  # SQLite's default


def test_closing_a_bulk_store_fsyncs_its_wal_before_closing(tmp_path, monkeypatch, play):
    path = tmp_path / "bulk.db"
    store = open_store(path, create=True, bulk=True)
    g = play(3)
    store.append(g.game_id, g.events, 0)
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        target = os.readlink(f"/proc/self/fd/{fd}") if os.path.exists(f"/proc/self/fd/{fd}") else str(fd)
        synced.append(target)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    store.close()
    assert f"{path}-wal" in synced  # the WAL, with every commit, reached the disk in close()


def test_a_failed_fsync_at_close_is_raised_and_the_store_is_closed(tmp_path, monkeypatch, play):
    store = open_store(tmp_path / "bulk.db", create=True, bulk=True)
    g = play(4)
    store.append(g.game_id, g.events, 0)

    def failing(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(OSError):
        store.close()
    with pytest.raises(sqlite3.ProgrammingError):  # closed all the same
        store._conn.execute("SELECT 1")


def test_a_simulation_writes_a_bulk_store(tmp_path):
    path = tmp_path / "sim.db"
    config = SimConfig(hands=12, players=3, bots=("random",), seed=5, hands_per_game=4)
    run_games(config, range(config.games), str(path))
    assert _page_size(path) == BULK_PAGE_SIZE
    with EventStore.open(path) as store:
        assert store.game_count() == 3
        assert store.verify() == []
