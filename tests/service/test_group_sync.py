"""Group commit (service/group_sync.py): an answer waits for an fsync that started after its
handler returned; requests that finish together share one fsync; reads are never held."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from tonk.service.group_sync import GroupSync, acknowledge_after_sync


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

    asyncio.run(main())


def test_a_failed_fsync_fails_its_waiters_and_the_next_one_runs() -> None:
    calls = []

    def sync() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("disk gone")

    async def main() -> None:
        g = GroupSync(sync)
        with pytest.raises(OSError, match="disk gone"):
            await g.wait()
        await g.wait()
        assert len(calls) == 2

    asyncio.run(main())


def _run_app(method: str, group: GroupSync | None) -> list[str]:
    order: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        order.append("handled")
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def send(message: dict[str, Any]) -> None:
        order.append(message["type"])

    def sync() -> None:
        order.append("fsync")

    async def main() -> None:
        g = GroupSync(sync) if group is not None else None
        wrapped = acknowledge_after_sync(lambda: g)(app)
        await wrapped({"type": "http", "method": method}, None, send)

    asyncio.run(main())
    return order


def test_a_writing_request_is_answered_after_the_fsync() -> None:
    assert _run_app("POST", GroupSync(lambda: None)) == ["handled", "fsync", "http.response.start", "http.response.body"]


def test_reads_and_stores_that_sync_themselves_are_not_held() -> None:
    assert _run_app("GET", GroupSync(lambda: None)) == ["handled", "http.response.start", "http.response.body"]
    assert _run_app("POST", None) == ["handled", "http.response.start", "http.response.body"]
