"""The WAL of a served SQLite store is copied into the file by a checkpoint in a worker thread
(``service/wal_checkpoints.py``), never by a commit on the event loop: the served connection's
automatic checkpoint is off, the store's own ``checkpoint()`` copies what no reader needs, and
every commit stays in the store."""

from __future__ import annotations

import time
from pathlib import Path
import pytest
from litestar.testing import TestClient

from tonk.service.app import ServiceConfig, create_app
from tonk.storage.sqlite import SqliteEventStore

from ..support.seating import httpx_post, sit_everyone


def _autocheckpoint(store: SqliteEventStore) -> int:
    return int(store._conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])


def test_a_store_checkpoints_apart_and_keeps_every_commit(tmp_path: Path):
    from tonk.storage.base import EventStore

    path = tmp_path / "s.db"
    with TestClient(create_app(ServiceConfig(db=str(path), public_rate=0, rate=0))) as client:
        r = client.post("/tables", json={"seats": ["ann", "bob"], "bots": {"bob": "random"}, "hand_limit": 2})
        seated = sit_everyone(httpx_post(client), r.json())
        table = seated["table"]
        version = client.get(f"/tables/{table}/view", headers={"Authorization": f"Bearer {seated['tokens']['ann']}"}).json()["version"]
    # a second store on the file, as tonk serve opens it, then checkpointing apart
    with EventStore.open(path) as other:
        assert isinstance(other, SqliteEventStore)
        assert _autocheckpoint(other) > 0  # SQLite's default: commits checkpoint themselves
        other.checkpoint_apart()
        assert _autocheckpoint(other) == 0
        assert other.version(table) == version
        frames, copied = other.checkpoint()
        assert frames == copied  # nobody reads an older snapshot: everything copied
    with EventStore.open(path) as again:
        assert again.version(table) == version and not again.verify(table)


def test_the_served_store_is_checkpointed_by_the_service_not_by_its_commits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    done: list[tuple[int, int]] = []
    checkpoint = SqliteEventStore.checkpoint

    def counted(self: SqliteEventStore) -> tuple[int, int]:
        result = checkpoint(self)
        done.append(result)
        return result

    apart: list[int] = []
    checkpoint_apart = SqliteEventStore.checkpoint_apart

    def noted(self: SqliteEventStore) -> None:
        checkpoint_apart(self)
        apart.append(_autocheckpoint(self))

    monkeypatch.setattr(SqliteEventStore, "checkpoint", counted)
    monkeypatch.setattr(SqliteEventStore, "checkpoint_apart", noted)
    with TestClient(create_app(ServiceConfig(db=str(tmp_path / "t.db"), public_rate=0, rate=0))) as client:
        assert apart == [0]  # no commit of the service copies the WAL on the event loop
        r = client.post("/tables", json={"seats": ["ann", "bob"], "bots": {"bob": "random"}, "hand_limit": 2})
        sit_everyone(httpx_post(client), r.json())
        before = len(done)
        for _ in range(3000):  # a bounded wait for the worker thread's next checkpoints, not a timing
            if len(done) >= before + 2 and done[-1][1] > 0:
                break
            time.sleep(0.01)
        assert len(done) >= before + 2 and done[-1][1] > 0  # frames of the table's commits copied
