"""A durable service on PostgreSQL commits without waiting for the disk and answers only
after a shared WAL flush that covers the commit (``service/group_sync.py``)."""

from __future__ import annotations

import pytest

pytest.importorskip("litestar")

from litestar.testing import TestClient  # noqa: E402

from tonk.service.app import ServiceConfig, create_app  # noqa: E402

pytestmark = pytest.mark.postgres


def _created(client: TestClient) -> dict:
    r = client.post("/tables", json={"seats": ["north", "east"], "bots": {"east": "random"}, "hand_limit": 1})
    assert r.status_code == 201, r.text
    return r.json()


def test_a_durable_service_on_postgresql_answers_after_a_wal_flush(pg_url):
    with TestClient(create_app(ServiceConfig(db=pg_url, public_rate=0, rate=0))) as client:
        state = client.app.state
        group = state.durability.group
        assert group is not None, "a durable PostgreSQL service has a group commit"
        assert state.tables.store.durable is False  # its commits do not wait: the group's flush does
        flushes = group.syncs
        _created(client)
        assert group.syncs > flushes  # the answer came after a flush that started after the commit


def test_a_service_that_is_not_durable_waits_for_no_flush(pg_url):
    with TestClient(create_app(ServiceConfig(db=pg_url, public_rate=0, rate=0, durable=False))) as client:
        assert client.app.state.durability.group is None
        _created(client)


def test_on_postgresql_a_read_waits_for_a_flush_that_starts_after_it(pg_url):
    """Another node's commits are visible before PostgreSQL flushes them, and this node's tickets
    do not know of them: every read of a table, of an ended game or of the tables' list waits for
    a flush of its own, so nothing another node committed is shown before it is on disk."""
    with TestClient(create_app(ServiceConfig(db=pg_url, public_rate=0, rate=0))) as client:
        group = client.app.state.durability.group
        created = _created(client)
        token = next(iter(created["tokens"].values()))
        for path, headers in ((f"/tables/{created['table']}/view", {"Authorization": f"Bearer {token}"}), ("/tables", {})):
            flushes = group.syncs
            assert client.get(path, headers=headers).status_code == 200
            assert group.syncs > flushes, f"GET {path} answered without a flush of its own"
