"""Every error as a JSON body ``{"error": {"code": ..., "message": ..., ...}}`` with a 4xx status.

Bad input never reaches a 500: the framework's own errors (unknown route, wrong
method, body too large, a body that does not decode into the request type)
are rendered in the same shape, with msgspec's message naming the field.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from litestar import Litestar, Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi import ResponseSpec
from litestar.types import Send

from ..application.table_types import TableError
from ..core.cards import CardError
from ..core.errors import IllegalAction, TonkError
from ..storage.errors import StoreUnavailable, UnknownGame

STATUS_OF_KIND = {
    "bad_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "conflict": 409,
    "gone": 410,
    "unsupported_media_type": 415,
    "too_many_requests": 429,
    "unavailable": 503,
}

log = logging.getLogger("tonk.service")


class RateLimited(TableError):
    """Over a rate or a per-client cap (``429``); ``retry_after`` seconds go in ``Retry-After``."""

    kind = "too_many_requests"


class ServerFull(TableError):
    """Over a server-wide cap (``503``); ``retry_after`` seconds go in ``Retry-After``."""

    kind = "unavailable"


class ErrorDetail(msgspec.Struct, frozen=True):
    """What went wrong: ``code`` (the status's name) and a ``message`` naming the problem; some
    errors carry more beside them (``current_version``, ``violation``/``rule``/``sentence``,
    ``limit``/``retry_after``)."""

    code: str
    message: str


class ErrorAnswer(msgspec.Struct, frozen=True):
    """The body of every error (``docs/http-api.md``, Errors)."""

    error: ErrorDetail


#: what each error status means, as the OpenAPI document describes it
_MEANING = {
    400: "bad_request: a malformed or wrong body, parameter or setting",
    401: "unauthorized: no token, or not a token of this table",
    403: "forbidden: a token on a route it may not use, or a request from another origin",
    404: "not_found: no such table, game or file",
    409: "conflict: a stale version, a command id used for another command, a game still in play, a rematch already started",
    410: "gone: the game at this table has ended",
    413: "too_large: a body over 64 KiB",
    415: "unsupported_media_type: a body not sent as application/json",
    422: "illegal_action: the rules forbid the command (violation, rule, sentence)",
    429: "too_many_requests: over a rate or a cap on tables in play (Retry-After)",
    503: "unavailable: the server is full, or receipts cannot be signed (Retry-After)",
}


def errors(*statuses: int) -> dict[int, ResponseSpec]:
    """A route's error answers for its OpenAPI document: each of ``statuses`` with the
    :class:`ErrorAnswer` body (the doc's statuses table lists the same)."""
    return {status: ResponseSpec(data_container=ErrorAnswer, description=_MEANING[status], generate_examples=False) for status in statuses}


def only_declared_errors(app: Litestar) -> None:
    """Drop from the app's OpenAPI document each generic ``400`` Litestar adds to a route with
    parameters (``{status_code, detail, extra}``, which the server never sends): a route's
    errors are those it declares with :func:`errors`, whose schema replaces it."""
    for item in (app.openapi_schema.paths or {}).values():
        for operation in (item.get, item.post, item.put, item.patch, item.delete):
            if operation is None or not operation.responses:
                continue
            for status, response in list(operation.responses.items()):
                content = getattr(response, "content", None) or {}
                schema = next(iter(content.values())).schema if content else None
                if schema is not None and "status_code" in (getattr(schema, "properties", None) or {}):
                    del operation.responses[status]


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **extra}}


def _json(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    return Response(content=body, status_code=status, media_type="application/json", headers=headers)


def table_error(_: Request, exc: TableError) -> Response:
    status = STATUS_OF_KIND.get(exc.kind, 400)
    headers = {"WWW-Authenticate": 'Bearer realm="tonk"'} if status == 401 else None
    if status in (429, 503) and "retry_after" in exc.extra:
        headers = {"Retry-After": str(exc.extra["retry_after"])}
    return _json(status, error_body(exc.kind, exc.message, **exc.extra), headers)


def illegal_action(_: Request, exc: IllegalAction) -> Response:
    sentence = f"illegal ({exc.code}, rule {exc.rule}): {exc.message}"
    return _json(422, error_body("illegal_action", exc.message, violation=exc.code, rule=exc.rule, sentence=sentence))


def tonk_error(_: Request, exc: Exception) -> Response:
    return _json(400, error_body("bad_request", str(exc)))


def store_unavailable(request: Request, exc: StoreUnavailable) -> Response:
    """The store failed a well-formed read or write (a disk error, a database that does not
    answer): no fault of the request.  Its message names the store's path or URL, which is
    the operator's: the log has it, the answer says only what happened."""
    log.warning("the store failed on %s %s: %s", request.method, request.url.path, exc)
    return _json(
        503,
        error_body("unavailable", "the server's store cannot be used now; nothing was changed by this request (the server's log says why)"),
        {"Retry-After": "5"},
    )


def unknown_game(_: Request, exc: UnknownGame) -> Response:
    return _json(404, error_body("not_found", str(exc)))


def validation_error(request: Request, exc: ValidationException) -> Response:
    problems = []
    for item in exc.extra or []:
        if isinstance(item, dict):
            msg = item.get("message") or ""
            key = item.get("key")
            if key == "data" and item.get("source") == "body" and msg == "'data'":
                msg = "the request needs a JSON body (none was sent)"  # Litestar's word for a missing body
            problems.append(f"{msg} ({key})" if key and key not in msg else msg)
        else:
            problems.append(str(item))
    message = "; ".join(p for p in problems if p) or str(exc.detail)
    return _json(400, error_body("bad_request", f"{request.method} {request.url.path}: {message}"))


def http_error(request: Request, exc: HTTPException) -> Response:
    status = exc.status_code if 400 <= exc.status_code < 600 else 400
    code = {404: "not_found", 405: "method_not_allowed", 413: "too_large", 401: "unauthorized", 403: "forbidden"}.get(status, "bad_request")
    message = str(exc.detail)
    if status == 404:
        message = f"no such route: {request.method} {request.url.path}"
    elif status == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    elif status == 413:
        message = f"the request body is larger than the limit ({message})"
    return _json(status, error_body(code, message), exc.headers)


NOT_DURABLE = (
    "the server could not confirm on disk what this request stored or shows (the fsync of its store, or the commit of its last writes, failed), "
    "so a command may or may not be stored: send it again with the same command id to learn its outcome"
)


async def answer_not_durable(send: Send, failure: Exception) -> None:
    """The answer that replaces one whose fsync failed (``group_sync.SyncFailed``), before any
    of it has left: ``503 unavailable``, the same bytes from the route and the fast path."""
    log.error("an answer withheld: %s", failure)
    body = msgspec.json.encode(error_body("unavailable", NOT_DURABLE))
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def internal_error(request: Request, exc: Exception) -> Response:
    log.error("internal error on %s %s: %s", request.method, request.url.path, type(exc).__name__)
    return _json(500, error_body("internal", "an internal error; nothing was changed by it"))


HANDLERS = {
    TableError: table_error,
    IllegalAction: illegal_action,
    UnknownGame: unknown_game,
    StoreUnavailable: store_unavailable,
    CardError: tonk_error,
    TonkError: tonk_error,
    ValidationException: validation_error,
    HTTPException: http_error,
    Exception: internal_error,
}
