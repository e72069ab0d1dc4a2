"""Token buckets: so many requests a second per key, in bursts up to a size.

Two limiters use it (``service.app``): one per seat token (``--rate``; the key
is the token's sha256, never the token) and one per client address on the
routes that take no token (``--public-rate``, ``--public-burst``).  Over a
limit: :class:`RateLimited` (``429``) with ``Retry-After``, the seconds until
the bucket holds a request again.
"""

from __future__ import annotations

import math
import time
from typing import Any

from litestar.connection import ASGIConnection

from .errors import RateLimited

MAX_KEYS = 100_000
"""Buckets kept; past it the oldest half is forgotten (they restart full)."""


class RateLimiter:
    """A token bucket per key: ``rate`` requests a second, bursts up to ``burst``
    (``rate`` 0: no limit).  ``setting`` names the option that sets it, for the message."""

    def __init__(self, rate: float, burst: int, setting: str = "--rate", clock=time.monotonic):
        self.rate = rate
        self.burst = max(int(burst), 1)
        self.setting = setting
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def check(self, key: str, who: str = "for this token") -> None:
        """Take one request from ``key``'s bucket, or raise :class:`RateLimited`."""
        if self.rate <= 0:
            return
        now = self.clock()
        level, last = self._buckets.get(key, (float(self.burst), now))
        level = min(float(self.burst), level + (now - last) * self.rate)
        if level < 1.0:
            self._buckets[key] = (level, now)
            wait = max(1, math.ceil((1.0 - level) / self.rate))
            raise RateLimited(
                f"too many requests {who} (limit {self.setting} {self.rate:g} a second, bursts of {self.burst}); retry after {wait} s",
                limit=self.setting.lstrip("-").replace("-", "_"),
                retry_after=wait,
            )
        self._buckets[key] = (level - 1.0, now)
        if len(self._buckets) > MAX_KEYS:
            for k in list(self._buckets)[: len(self._buckets) // 2]:
                del self._buckets[k]


    def refund(self, key: str) -> None:
        """Give back the request :meth:`check` just took from ``key``'s bucket (it was not
        served here: it is handed on to be checked again)."""
        if self.rate <= 0 or key not in self._buckets:
            return
        level, last = self._buckets[key]
        self._buckets[key] = (min(float(self.burst), level + 1.0), last)


def client_address(connection: ASGIConnection) -> str:
    """The client's address: the TCP peer's, or the one a trusted proxy names
    (uvicorn's ``--forwarded-allow-ips``, loopback by default)."""
    client = connection.client
    return client.host if client is not None and client.host else "unknown"


async def public_rate(connection: ASGIConnection, _: Any = None) -> None:
    """The guard of the routes that take no token: ``--public-rate`` per client address
    (a coroutine function, so Litestar runs it on the event loop, not in a worker thread)."""
    connection.app.state.public_limiter.check(client_address(connection), "from this address")
