"""Seat tokens on requests, one credential per purpose.

* A seat's or the host's token comes only in ``Authorization: Bearer TOKEN``:
  on every route of a table (view, receipts, commands, close, session).  A
  page of another origin cannot make a browser send that header without a
  CORS preflight, which this server never answers with a grant.
* The stream cookie (``POST .../session``; :mod:`.stream_ticket`) carries a
  ticket, not the token, and only ``GET /tables/{id}/events`` reads it.

A token is never logged or echoed; the per-token rate limit (:mod:`.rate_limit`)
keys its buckets by the token's sha256, not the token.
"""

from __future__ import annotations

COOKIE_PREFIX = "tonk_stream_"


def cookie_name(table_id: str, seat: str) -> str:
    """The stream cookie of ``seat`` at ``table_id``: one per seat, so a browser holding two
    seats of a table keeps both (the seat's name in hex: a cookie name takes no other text)."""
    return f"{_table_part(table_id)}_{seat.encode('utf-8').hex()}"


def _table_part(table_id: str) -> str:
    return COOKIE_PREFIX + "".join(c for c in table_id if c.isalnum() or c == "-")


def bearer_token(headers) -> str | None:
    """The token of a request: only the ``Authorization: Bearer`` header (never a cookie)."""
    auth = headers.get("authorization")
    if auth:
        scheme, _, value = auth.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
    return None


def stream_cookies(headers, table_id: str) -> dict[str, str]:
    """The table's stream cookies (tickets of :mod:`.stream_ticket`) by cookie name, for
    ``GET .../events`` only."""
    found: dict[str, str] = {}
    cookie = headers.get("cookie")
    if cookie:
        prefix = _table_part(table_id) + "_"
        for part in cookie.split(";"):
            name, _, value = part.strip().partition("=")
            if name.startswith(prefix) and value:
                found[name] = value
    return found
