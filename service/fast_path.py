"""The two hot routes of play answered ahead of Litestar's router.

A playing client sends ``POST /tables/{id}/commands[?view=true]`` for every move and reads
``GET /tables/{id}/view`` when the turn passes to its seat.  For such a request Litestar
spends more than the table does (the router's path lookup and host check, its exception
middleware, a ``Request``, a copy of the handler per guard, the parameters' signature model,
the handler's ``Response`` and its ASGI response).  :class:`ServiceApp` is the Litestar
application with one thing added in front: its ``__call__`` reads the path itself and answers
the plain case of those two routes with the route's own bytes (the same struct encoded as
Litestar encodes it, the same two headers), after the same wait for the fsync that covers
what the answer shows (:meth:`.group_sync.Durability.wait_before_answer`).  Everything else
goes to Litestar untouched (its router, its exception handlers and the route's own wait in
:func:`.group_sync.acknowledge_after_sync`: an answer is held once, by one of the two).

The plain case, and nothing else: the path is exactly ``/tables/{id}/view`` (GET) or
``/tables/{id}/commands`` (POST), with no ``root_path`` and a ``Host`` the router accepts;
its query string is empty (or ``view=true`` / ``view=false`` on a command); ``Authorization``,
``Origin``, ``Host``, ``Content-Type`` and ``Content-Length`` come at most once each; an
``Origin``, when sent, is the server's own (``.same_origin``); a command's body is
``application/json``, within ``--max-body``, exactly a ``CommandRequest`` (decoded straight
into it: a body the safe reader of ``.request_body`` would refuse is never answered here);
the token is a seat's of the table; the seat's ``--rate`` bucket takes the request; a view is of a table in play (not one that waits
for its seats or has ended: those views may record a rematch token); the table answers
without an error.

Anything else goes on to the route untouched, which then checks, charges and answers exactly
as it always has: nothing is charged or changed before the fast answer is certain, except a
command's rate-limit charge, which is given back when the table refuses the command (the
route, asked again, charges it once, as before), and a body already read, which the route
reads again as sent.  An fsync that fails under a fast answer replaces it, before it starts,
with the route's ``503`` (``errors.answer_not_durable``).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from litestar import Litestar
from litestar._asgi.utils import is_valid_host
from litestar.serialization import default_serializer
from litestar.types import HTTPScope, Receive, ReceiveMessage, Scope, Send

from ..application.table_types import CommandResult
from ..core.safe_json import MAX_INT_DIGITS
from ..storage.seats import token_hash
from .auth import bearer_token
from .errors import answer_not_durable
from .group_sync import Durability, SyncFailed
from .request_body import CommandRequest
from .same_origin import normal_origin

#: the two paths, as Litestar's router would match them (a path it would normalise first,
#: with a trailing or doubled slash, is not matched here: the router answers it)
_PATH = re.compile(r"/tables/([^/]+)/(view|commands)\Z")

_COMMAND_QUERIES = {b"": False, b"view=false": False, b"view=true": True}

#: a command's body decoded straight into its struct (strict, unknown fields refused, the last of
#: a repeated key kept, as the route's safe reader and conversion do); a body it refuses, or whose
#: version has more digits than the safe reader takes, goes to the route, which reads it with the
#: safe reader (``.request_body``) and answers as always
_COMMAND = msgspec.json.Decoder(CommandRequest)
_INT_LIMIT = 10**MAX_INT_DIGITS
_SINGLE = frozenset({b"authorization", b"origin", b"host", b"content-type", b"content-length"})


def _headers(scope: Scope) -> dict[str, str] | None:
    """The headers the routes read (lower-case names), or ``None`` when one comes twice or
    the ``Host`` is one the router refuses."""
    found: dict[str, str] = {}
    for raw, value in scope["headers"]:
        name = raw.lower()
        if name in _SINGLE:
            key = name.decode("latin-1")
            if key in found or (key == "host" and not is_valid_host(value)):
                return None
            found[key] = value.decode("latin-1")
    return found


def _same_origin(scope: Scope, headers: dict[str, str]) -> bool:
    """Whether the ``same_origin`` guard lets the request pass (no ``Origin``, or the server's own)."""
    origin = headers.get("origin")
    if origin is None:
        return True
    scheme, sep, rest = origin.strip().partition("://")
    sent = normal_origin(scheme, rest) if sep else None
    return sent is not None and sent == normal_origin(scope.get("scheme", "http"), headers.get("host", ""))


def _seat(state: Any, table_id: str, headers: dict[str, str]) -> tuple[str, str, str] | None:
    """(token, seat, the token's hash: its rate-limit key) of a request with a seat's token, or ``None``."""
    token = bearer_token(headers)
    if token is None:
        return None
    key = token_hash(token)
    try:
        seat = state.tables.seat_of(table_id, token, key)
    except Exception:
        return None
    return token, seat, key


def _view(state: Any, table_id: str, scope: Scope, headers: dict[str, str]) -> bytes | None:
    """The encoded view the view route would answer, or ``None``: let the route answer."""
    if scope.get("query_string"):
        return None
    found = _seat(state, table_id, headers)
    if found is None:
        return None
    token, seat, key = found
    tables = state.tables
    try:
        table = tables.table(table_id)
        if table.game.state.game_over or table.waiting:
            return None
        view = tables.view(table_id, seat, token)
        state.limiter.check(key)  # last: a refused request is the route's to answer
    except Exception:
        return None
    return msgspec.json.encode(view, enc_hook=default_serializer)


async def _body(receive: Receive, limit: int, length: int) -> tuple[bytes, list[ReceiveMessage]]:
    """The request's body and the messages read for it (the body cut short past ``limit`` or
    ``length``, or when the client left: the caller compares its length)."""
    messages: list[ReceiveMessage] = []
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return b"", messages  # the client left: the route reads that too
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit or size > length:
            return b"", messages
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), messages


def _replay(messages: list[ReceiveMessage], receive: Receive) -> Receive:
    """``receive`` that first gives the messages already read, in order."""
    pending = list(messages)

    async def again() -> ReceiveMessage:
        if pending:
            return pending.pop(0)
        return await receive()

    return again


async def _command(state: Any, table_id: str, scope: Scope, headers: dict[str, str], receive: Receive) -> tuple[bytes | None, Receive]:
    """The encoded answer of the command route, or ``None`` and the ``receive`` the route reads."""
    with_view = _COMMAND_QUERIES.get(scope.get("query_string", b""))
    if with_view is None or not _same_origin(scope, headers):
        return None, receive
    if headers.get("content-type", "").split(";", 1)[0].strip().lower() != "application/json":
        return None, receive
    limit = state.config.max_body
    try:
        length = int(headers.get("content-length", ""))
    except ValueError:
        return None, receive
    if not 0 < length <= limit:
        return None, receive
    body, messages = await _body(receive, limit, length)
    receive = _replay(messages, receive)
    if len(body) != length:
        return None, receive
    try:
        data = _COMMAND.decode(body)
    except Exception:
        return None, receive
    if not -_INT_LIMIT < data.version < _INT_LIMIT:  # the safe reader refuses such an integer (a 400)
        return None, receive
    found = _seat(state, table_id, headers)
    if found is None:
        return None, receive
    token, seat, key = found
    if not data.for_seat(seat):  # the route's 400
        return None, receive
    try:
        state.limiter.check(key)
    except Exception:
        return None, receive
    fields = data.fields()
    tables = state.tables
    try:
        result: CommandResult = tables.act(table_id, seat, data.action, fields, data.version, data.command_id)
        if with_view:
            result = msgspec.structs.replace(result, view=tables.view(table_id, seat, token, current=True))
    except Exception:
        state.limiter.refund(key)  # the route, asked again, charges this request once
        return None, receive
    return msgspec.json.encode(result, enc_hook=default_serializer), receive


async def _answer(state: Any, scope: HTTPScope, receive: Receive, send: Send) -> Receive | None:
    """Answer the plain case (``None``), or return the ``receive`` Litestar is to read."""
    found = _PATH.match(scope["path"])
    if found is None or scope.get("root_path"):
        return receive
    table_id, route = found.groups()
    method = scope["method"]
    if (method, route) not in (("GET", "view"), ("POST", "commands")):
        return receive
    headers = _headers(scope)
    if headers is None:
        return receive
    if route == "view":
        body = _view(state, table_id, scope, headers)
    else:
        body, receive = await _command(state, table_id, scope, headers, receive)
    if body is None:
        return receive
    durability: Durability = state.durability
    wait = durability.wait_before_answer(method, scope["path"])
    if wait is not None:
        try:
            await wait()
        except SyncFailed as failure:  # before the answer starts: the route's 503 instead (group_sync's middleware)
            await answer_not_durable(send, failure)
            return None
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body, "more_body": False})
    return None


class ServiceApp(Litestar):
    """The Litestar application with the plain view and command requests answered before it
    routes them (see the module's text)."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            receive = await _answer(self.state, scope, receive, send)
            if receive is None:
                return
        await super().__call__(scope, receive, send)
