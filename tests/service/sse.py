"""A small Server-Sent Events reader for the tests: reads a stream in a thread."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx


class SSE:
    """Messages of one stream as dicts (``id``, ``event``, ``data`` decoded), comments counted."""

    def __init__(self, url: str, headers: dict[str, str] | None = None):
        self.messages: list[dict[str, Any]] = []
        #: when each message arrived (``time.time()``), in the order of ``messages``
        self.received: list[float] = []
        self.comments: list[tuple[float, str]] = []
        self.status: int | None = None
        self.body = b""
        self.ended = False
        self._client = httpx.Client(timeout=httpx.Timeout(30, read=60))
        self._headers = headers or {}
        self._url = url
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(30)

    def _run(self) -> None:
        try:
            with self._client.stream("GET", self._url, headers=self._headers) as r:
                self.status = r.status_code
                if r.status_code != 200:
                    self.body = r.read()
                    self._ready.set()
                    return
                self._ready.set()
                current: dict[str, Any] = {}
                for line in r.iter_lines():
                    if line.startswith(":"):
                        self.comments.append((time.monotonic(), line))
                    elif line == "":
                        if current:
                            current["data"] = json.loads(current.get("data", "null"))
                            self.received.append(time.time())
                            self.messages.append(current)
                            current = {}
                    else:
                        field, _, value = line.partition(": ")
                        current[field] = value
        except httpx.HTTPError:
            pass
        finally:
            self.ended = True
            self._ready.set()

    def wait_for(self, predicate, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self):
                return
            time.sleep(0.02)
        raise AssertionError(f"stream condition not met; {len(self.messages)} messages, ended={self.ended}")

    def events(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("event") != "snapshot"]

    def close(self) -> None:
        self._client.close()
