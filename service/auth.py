"""Seat tokens on requests, one credential per purpose, and a per-token rate limit.

* A seat's or the host's token comes only in ``Authorization: Bearer TOKEN``:
  on every route of a table (view, receipts, commands, close, session).  A
  page of another origin cannot make a browser send that header without a
  CORS preflight, which this server never answers with a grant.
* The stream cookie (``POST .../session``; :mod:`.stream_ticket`) carries a
  ticket, not the token, and only ``GET /tables/{id}/events`` reads it.

A token is never logged or echoed; the rate limiter keys its buckets by the
token's sha256, not the token.
"""

from __future__ import annotations

import time

from ..storage.seats import token_hash
from .errors import RateLimited

COOKIE_PREFIX = "tonk_stream_"


def cookie_name(table_id: str) -> str:
    return COOKIE_PREFIX + "".join(c for c in table_id if c.isalnum() or c == "-")


def bearer_token(headers) -> str | None:
    """The token of a request: only the ``Authorization: Bearer`` header (never a cookie)."""
    auth = headers.get("authorization")
    if auth:
        scheme, _, value = auth.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
    return None


def stream_cookie(headers, table_id: str) -> str | None:
    """The table's stream cookie (a ticket of :mod:`.stream_ticket`), for ``GET .../events`` only."""
    cookie = headers.get("cookie")
    if cookie:
        want = cookie_name(table_id)
        for part in cookie.split(";"):
            name, _, value = part.strip().partition("=")
            if name == want and value:
                return value
    return None


class RateLimiter:
    """A token bucket per token: ``rate`` requests a second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int, clock=time.monotonic):
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def check(self, token: str) -> None:
        if self.rate <= 0:
            return
        key = token_hash(token)
        now = self.clock()
        level, last = self._buckets.get(key, (float(self.burst), now))
        level = min(float(self.burst), level + (now - last) * self.rate)
        if level < 1.0:
            self._buckets[key] = (level, now)
            raise RateLimited(f"too many requests for this token (limit {self.rate:g}/s, bursts of {self.burst}); retry shortly")
        self._buckets[key] = (level - 1.0, now)
        if len(self._buckets) > 100_000:  # bounded: forget the oldest half
            for k in list(self._buckets)[: len(self._buckets) // 2]:
                del self._buckets[k]
