"""Reading a request's JSON body: the same safe reader as the CLI, on every route that reads one.

:class:`SafeJSONRequest` is the service's request class: whatever reads a body as
JSON (Litestar, for a handler's ``data``; :func:`read_fields` for the routes
that take no fields) reads it with :func:`tonk.core.safe_json.loads` (no nesting
deeper than 64 levels, no integer of more than 30 digits, no ``NaN`` or
``Infinity``; the server's body limit, 64 KiB, comes first), and msgspec then
converts the plain value to the route's type.  So a body outside the limits is
a ``400`` naming the problem, never a ``RecursionError`` and a 500.

A JSON body must be sent as ``Content-Type: application/json``, else ``415``:
a cross-site form or a "simple" ``fetch`` can only send ``text/plain``,
``multipart/form-data`` or ``application/x-www-form-urlencoded``.  An empty body
may come without a ``Content-Type`` (``close`` and ``session`` take no fields).
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

import msgspec
from litestar import Request
from litestar.types import Empty

from ..application.table_types import TableError
from ..core.safe_json import UnsafeJSON, check_depth_bytes, loads


T = TypeVar("T")

#: where msgspec says a value is wrong (`` - at `$.seats[0]` ``): said as Litestar says it, ``(seats[0])``
_AT = re.compile(r" - at `\$\.?(.*)`\Z")


class UnsupportedMediaType(TableError):
    kind = "unsupported_media_type"


class CommandRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A seat's command (``POST /tables/{id}/commands``): the action and its fields, the
    version the seat saw, a command id."""

    action: str
    version: int
    command_id: str
    card: str | None = None
    cards: list[str] | None = None
    target: str | None = None
    jokers_as: dict[str, str] | None = None
    joker_as: str | None = None
    #: optional, the token's own seat: an entry of the view's ``legal`` may be sent back as it is
    player: str | None = None

    def for_seat(self, seat: str) -> bool:
        """Whether the command may be the token's ``seat``'s: it names no player, or that seat."""
        return self.player is None or self.player == seat

    def fields(self) -> dict[str, Any]:
        """The action's own fields that were sent (what ``Tables.act`` takes as ``fields``)."""
        return {k: v for k, v in msgspec.structs.asdict(self).items() if v is not None and k not in ("action", "version", "command_id", "player")}


class NoFields(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The body of a route that takes no fields: nothing, or ``{}``."""


def media_type(request: Request) -> str | None:
    """The request's media type (``Content-Type`` without parameters, lower case), or ``None``."""
    value = request.headers.get("content-type")
    if value is None:
        return None
    return value.split(";", 1)[0].strip().lower()


def check_json_media_type(request: Request, body: bytes) -> None:
    """``415`` unless the body is sent as ``application/json`` (an empty body may omit the type)."""
    kind = media_type(request)
    if kind == "application/json" or (kind is None and not body):
        return
    shown = "no Content-Type" if kind is None else f"Content-Type {kind[:60]!r}"
    raise UnsupportedMediaType(f"{request.method} {request.url.path} takes a JSON body sent as Content-Type: application/json, not {shown}")


def decode_body(where: str, body: bytes) -> Any:
    """The JSON value of ``body`` (empty: ``None``), decoded within the limits of :mod:`tonk.core.safe_json`."""
    if not body.strip():
        return None
    try:
        check_depth_bytes(body)  # before any decoder recurses
        return loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise TableError(f"{where}: the body is not UTF-8 text") from None
    except UnsafeJSON as exc:
        raise TableError(f"{where}: the body is JSON outside the limits: {exc.message}") from None
    except json.JSONDecodeError as exc:
        raise TableError(f"{where}: malformed JSON body: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None


class SafeJSONRequest(Request[Any, Any, Any]):
    """A request whose JSON body is read by the safe reader, and only when sent as JSON."""

    async def json(self) -> Any:
        if self._json is Empty:
            body = await self.body()
            check_json_media_type(self, body)
            self._json = self._connection_state.json = decode_body(f"{self.method} {self.url.path}", body)
        return self._json


async def read_fields(request: Request) -> None:
    """Read the body of a route that takes no fields: nothing, or ``{}`` (``400`` otherwise)."""
    value = await request.json()
    if value is None:
        return
    try:
        msgspec.convert(value, NoFields)
    except msgspec.ValidationError as exc:
        raise TableError(f"{request.method} {request.url.path} takes no fields: {exc}") from None


async def body_as(request: Request, kind: type[T]) -> T:
    """The request's JSON body as ``kind``, each field of its own JSON type (``400`` naming the
    field otherwise).

    A route declares its body as ``data: JSONBody[...]`` (so the OpenAPI document has it), but
    Litestar converts ``data`` leniently: the text ``"2"`` or the number ``2.0`` for an integer,
    ``"30"`` for a number.  The API refuses a wrong type (``docs/http-api.md``, Errors), so the
    route reads its body again through this, strictly."""
    try:
        return msgspec.convert(await request.json(), kind)
    except msgspec.ValidationError as exc:
        message = _AT.sub(lambda at: f" ({at.group(1) or 'data'})", str(exc))
        raise TableError(f"{request.method} {request.url.path}: {message}") from None
