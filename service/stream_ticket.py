"""The stream cookie's value: a stateless, scoped, expiring ticket for one seat's stream.

A browser's ``EventSource`` cannot send an ``Authorization`` header, so
``POST /tables/{id}/session`` (with the seat's token in that header) answers an
HttpOnly cookie.  Its value is not the token: it is a ticket that opens only
``GET /tables/{id}/events`` for that seat at that table, until it expires::

    TICKET = b64url(seat) "." expiry "." b64url(mac)
    mac    = HMAC-SHA256(key = sha256(token), "tonk-stream-v1\\n" table "\\n" seat "\\n" expiry)

``expiry`` is Unix seconds (:data:`LIFETIME` after it was issued).  The key is
the hash the store keeps of the seat's token (never sent to a client), so the
server keeps no new state, a ticket survives a restart, and no one without the
token (or the store) can make one; the token cannot be derived from it.  The
purpose string binds the ticket to streams, the table and the seat, so it opens
no other route and no other table.  Macs are compared in constant time.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from typing import Callable

from ..application.table_types import BadToken

PURPOSE = "tonk-stream-v1"
LIFETIME = 12 * 3600
"""Seconds a stream ticket is valid (12 hours); the page asks for a new one when its stream is refused."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(token_hash: str, table_id: str, seat: str, expiry: int) -> bytes:
    message = f"{PURPOSE}\n{table_id}\n{seat}\n{expiry}".encode("utf-8")
    return hmac.new(bytes.fromhex(token_hash), message, hashlib.sha256).digest()


def issue_ticket(token_hash: str, table_id: str, seat: str, *, lifetime: int = LIFETIME, now: float | None = None) -> str:
    """A ticket for ``seat``'s stream at ``table_id``, valid ``lifetime`` seconds from ``now``."""
    expiry = int(time.time() if now is None else now) + lifetime
    return f"{_b64(seat.encode('utf-8'))}.{expiry}.{_b64(_mac(token_hash, table_id, seat, expiry))}"


def seat_of_ticket(ticket: str, table_id: str, token_hash_of: Callable[[str], str | None], *, now: float | None = None) -> str:
    """The seat ``ticket`` opens the stream of at ``table_id`` (``token_hash_of(seat)`` is the
    stored hash of the seat's token); :class:`BadToken` for a ticket that is not one of this
    table's, was altered, or has expired.  The ticket is never part of a message."""
    again = f"POST /tables/{table_id}/session with the seat's token for a new one"
    refused = BadToken(f"the stream cookie is not a valid stream ticket of this table; {again}")
    parts = ticket.split(".")
    if len(parts) != 3 or not parts[1].isascii() or not parts[1].isdigit() or len(parts[1]) > 12:
        raise refused
    try:
        seat = _unb64(parts[0]).decode("utf-8")
        mac = _unb64(parts[2])
    except (binascii.Error, ValueError):
        raise refused from None
    stored = token_hash_of(seat) if seat and not seat.startswith("@") else None
    expiry = int(parts[1])
    if stored is None or not hmac.compare_digest(mac, _mac(stored, table_id, seat, expiry)):
        raise refused
    if expiry <= (time.time() if now is None else now):
        raise BadToken(f"the stream ticket has expired; {again}")
    return seat
