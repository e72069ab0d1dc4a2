"""Refusing a state-changing request sent by another origin's page (a guard on those routes).

A browser names the page that sent a request in the ``Origin`` header (on every
cross-origin request and on every ``POST``).  The service's own pages send
their own origin; a page of another origin (another port of the same host is
another origin, though the same *site*, so ``SameSite`` cookies still travel)
gets ``403`` before its body is read or anything changes.  A request without
``Origin`` (curl, the CLI, a bot) is no browser's cross-origin request and passes.

"Own origin" is ``scheme://host:port`` of the request itself: the scheme the
server was reached with (uvicorn takes ``X-Forwarded-Proto`` from a trusted
proxy, ``--forwarded-allow-ips``) and the ``Host`` header the browser sent, a
missing port read as the scheme's default (80, 443) on both sides.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from litestar.connection import ASGIConnection

from ..application.table_types import Forbidden

_DEFAULT_PORTS = {"http": 80, "https": 443}


def normal_origin(scheme: str, netloc: str) -> str | None:
    """``scheme://host:port`` in lower case with the port always written, or ``None``
    when ``netloc`` is not a host with an optional port."""
    scheme = scheme.lower()
    if scheme not in _DEFAULT_PORTS or not netloc or any(c in netloc for c in "/?#@ "):
        return None
    try:
        parts = urlsplit(f"{scheme}://{netloc}")
        port = parts.port or _DEFAULT_PORTS[scheme]
    except ValueError:
        return None
    if not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{scheme}://{host}:{port}"


def own_origin(connection: ASGIConnection) -> str | None:
    return normal_origin(connection.url.scheme, connection.headers.get("host", ""))


async def same_origin(connection: ASGIConnection, _: Any = None) -> None:
    """The guard: ``403`` when the request carries an ``Origin`` that is not the server's own.
    A coroutine function: Litestar runs a plain function guard in a worker thread, a thread
    hop on every request for a check of a header."""
    origin = connection.headers.get("origin")
    if origin is None:
        return
    scheme, sep, rest = origin.strip().partition("://")
    sent = normal_origin(scheme, rest) if sep else None
    if sent is None or sent != own_origin(connection):
        raise Forbidden(
            f"{connection.scope.get('method', 'GET')} {connection.url.path} was sent by a page of another origin ({origin[:80]!r}): only this server's own pages may send it"
        )
