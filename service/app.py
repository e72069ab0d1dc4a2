"""The ASGI application: HTTP routes over ``tonk.application.tables`` (no rules here).

Routes (``docs/http-api.md``; OpenAPI at ``/schema``):

* ``POST /tables``: create a table; answers each human seat's token, once, and the fair
  deal's ``server_seed_hash`` (``docs/fair-deal.md``).
* ``POST /tables/{id}/sit``: the seat sits down with its client seed; when every person's
  seat has sat, hand 1 is dealt.
* ``GET /tables/{id}/view``: the seat's view (Bearer token).
* ``POST /tables/{id}/commands``: a seat's command, with the version it saw and a command id.
* ``POST /tables/{id}/close``: the host closes the table (host token).
* ``POST /tables/{id}/rematch``: the host starts a new game with the same seats and rules once
  the game has ended (host token); each seat finds its own new token in its view.
* ``POST /tables/{id}/session``: exchange the token for an HttpOnly cookie that opens only
  the seat's stream (a ticket of ``.stream_ticket``, for EventSource), never the token.
* ``GET /tables/{id}/events``: the seat's live stream (SSE); ``GET /tables/{id}/spectate``.
* ``GET /games/{id}/replay``, ``GET /games/{id}/audit``: an ended game, as ``tonk replay
  --json`` and ``tonk audit --json`` print it; ``POST /adjudicate``: as ``tonk adjudicate --json``.
* ``GET /ping``: a bare JSON endpoint (the ceiling in the service benchmark).
* The web pages and the JSON only they need (``GET /variants``, ``GET /games/{id}/document``):
  ``service/pages.py``.  Every route is in the OpenAPI document and in the routes table of
  ``docs/http-api.md`` (``tests/service/test_http_api_doc.py`` compares them).

Limits (``docs/http-api.md``, Limits): a table's routes go by the token's ``--rate``; the
routes without a token by the client address's ``--public-rate`` (``.rate_limit``; not
the pages' HTML and static files, nor ``/ping``); creating a table by the caps on tables
in play (``.table_slots``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from typing import Annotated, Any, AsyncIterator, Literal

import msgspec
from litestar import Litestar, Request, Response, Router, get, post, route
from litestar.datastructures import ResponseHeader, State
from litestar.exceptions import NotFoundException
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import YamlRenderPlugin
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter
from litestar.types import ASGIApp

from ..application.table_types import (
    HOST,
    SPECTATOR,
    BadToken,
    CommandResult,
    CreatedTable,
    Forbidden,
    RematchedTable,
    SatDown,
    SeatView,
    StillInPlay,
    TableError,
    TableSettings,
)
from ..application.tables import Tables
from ..storage.seats import token_hash
from .auth import bearer_token, cookie_name, stream_cookies
from .errors import HANDLERS, errors, only_declared_errors
from .fast_path import ServiceApp
from .group_sync import SQLITE_BATCH, SQLITE_GATHER, Durability, GroupSync, acknowledge_after_sync
from .pages import PAGE_HANDLERS
from .rate_limit import RateLimiter, client_address, public_rate
from .request_body import CommandRequest, SafeJSONRequest, body_as, read_fields
from .same_origin import same_origin
from .schema_page import POLICY as SCHEMA_POLICY
from .schema_page import SchemaPage
from .stream_ticket import LIFETIME, issue_ticket, seat_of_ticket
from .streams import resume_after, stream_app
from .table_slots import TableSlots
from .wal_checkpoints import checkpoint_apart


@dataclass
class ServiceConfig:
    db: str = "tonk.db"
    keepalive: float = 10.0  # seconds between keep-alive comments on a quiet stream (<= 15)
    write_timeout: float = 10.0  # a stream write that does not complete in this time drops the client
    stream_queue: int = 256  # pending notices per stream before the client counts as not reading
    rate: float = 50.0  # requests per second per token
    burst: int = 100
    public_rate: float = 1.0  # requests per second per client address on the routes without a token
    public_burst: int = 30
    max_tables: int = 500  # tables in play on the server (0: no cap)
    max_tables_per_client: int = 20  # tables in play created by one client address (0: no cap)
    max_body: int = 64 * 1024
    timer_tick: float = 0.25
    durable: bool = True
    poll: float = 0.5  # seconds the store follower waits for a NOTIFY hint before it reads anyway
    shutdown_timeout: float = 5.0  # on SIGTERM/SIGINT: seconds for commands in flight and streams' goodbyes
    stream_ticket: int = LIFETIME  # seconds a stream cookie (POST .../session) opens the seat's stream
    workers: int = 1  # processes serving the store together (tonk serve --workers; service.server)


class SitRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A seat sits down: its client seed, 16 to 64 bytes as lowercase hex (``docs/fair-deal.md``)."""

    client_seed: str


class ClosedTable(msgspec.Struct, frozen=True):
    table: str
    status: str
    version: int


def _tables(request: Request) -> Tables:
    return request.app.state.tables


def _seat(request: Request, table_id: str) -> str:
    tables = _tables(request)
    token = bearer_token(request.headers)
    seat = tables.seat_of(table_id, token)
    request.app.state.limiter.check(token_hash(token))  # type: ignore[arg-type]
    return seat


def _stream_seat(request: Request, table_id: str) -> str:
    """The seat of a stream request: the token in the header (``?seat=``, when sent, must be
    its seat), else the stream cookie of the seat named by ``?seat=`` (without it: the only
    stream cookie of the table the browser sent; several are ambiguous, a 400)."""
    wanted = request.query_params.get("seat")
    if "authorization" in request.headers:
        seat = _seat(request, table_id)
        if wanted is not None and seat not in (wanted, HOST):  # (the host's: refused by the route)
            raise Forbidden(f"this token is seat {seat!r}'s: it opens that seat's stream, not seat {wanted!r}'s")
        return seat
    cookies = stream_cookies(request.headers, table_id)
    if wanted is not None:
        ticket = cookies.get(cookie_name(table_id, wanted))
    elif len(cookies) > 1:
        raise TableError(f"this browser holds the stream cookies of {len(cookies)} seats of the table: name the seat with ?seat=NAME")
    else:
        ticket = next(iter(cookies.values()), None)
    if ticket is None:
        return _seat(request, table_id)
    tables = _tables(request)
    tables.table(table_id)  # an unknown table: 404
    seat = seat_of_ticket(ticket, table_id, lambda s: tables.seats.token_hash_of(table_id, s))
    if wanted is not None and seat != wanted:
        raise BadToken(f"the stream cookie for seat {wanted!r} is not that seat's")
    request.app.state.limiter.check(token_hash(ticket), "for this stream cookie")
    return seat


@route("/tables", http_method=["OPTIONS"], include_in_schema=False)
async def tables_options() -> Response[None]:
    """``OPTIONS /tables``, the one path two handlers serve: Litestar makes a path's ``OPTIONS``
    answer with its first handler and keeps it when the second comes, so its ``Allow`` would name
    ``POST`` alone.  Registered before both, this answer is the path's (``docs/http-api.md``:
    every route answers ``OPTIONS``, ``204`` with ``Allow``)."""
    return Response(content=None, status_code=204, headers={"Allow": "GET, OPTIONS, POST"})


@post("/tables", status_code=201, summary="Create a table", guards=[public_rate, same_origin], responses=errors(400, 403, 413, 415, 429, 503))
async def create_table(data: JSONBody[TableSettings], request: Request) -> CreatedTable:
    slots: TableSlots = request.app.state.slots
    client = client_address(request)
    data = await body_as(request, TableSettings)
    slots.check(client)
    created = _tables(request).create(data)
    slots.hold(_tables(request), created.table, client)
    return created


@get("/tables", summary="The served tables", guards=[public_rate], responses=errors(429))
async def list_tables(request: Request) -> dict[str, Any]:
    return {"tables": _tables(request).listing()}


@get("/tables/{table_id:str}/view", summary="The seat's view", responses=errors(401, 403, 404, 429))
async def seat_view(table_id: FromPath[str], request: Request) -> SeatView:
    # the plain case of this route and of ``command`` is answered by service/fast_path.py with
    # the same calls: a check added here is added there too (or makes that case fall back)
    seat = _seat(request, table_id)
    return _tables(request).view(table_id, seat, bearer_token(request.headers))


@post("/tables/{table_id:str}/sit", status_code=200, summary="The seat sits down with its client seed (the fair deal)", guards=[same_origin], responses=errors(400, 401, 403, 404, 409, 410, 413, 415, 429))
async def sit(table_id: FromPath[str], data: JSONBody[SitRequest], request: Request) -> SatDown:
    data = await body_as(request, SitRequest)
    seat = _seat(request, table_id)
    return _tables(request).sit(table_id, seat, data.client_seed)


@get("/tables/{table_id:str}/receipts", summary="The seat's signed receipts, one per ended hand (tonk verify --receipt)", responses=errors(400, 401, 403, 404, 429, 503))
async def seat_receipts(table_id: FromPath[str], request: Request, after: FromQuery[int] = 0) -> dict[str, Any]:
    seat = _seat(request, table_id)
    if after < 0:
        raise TableError(f"after must be a seq, 0 or more, not {after}")
    return {"table": table_id, "seat": seat, "receipts": _tables(request).receipts(table_id, seat, after)}


@post("/tables/{table_id:str}/commands", status_code=200, summary="A seat's command", guards=[same_origin], responses=errors(400, 401, 403, 404, 409, 410, 413, 415, 422, 429))
async def command(
    table_id: FromPath[str],
    data: JSONBody[CommandRequest],
    request: Request,
    view: Annotated[bool, QueryParameter(description="also answer the seat's view after the command (as GET .../view gives it): one request per command")] = False,
) -> CommandResult:
    data = await body_as(request, CommandRequest)
    seat = _seat(request, table_id)
    if not data.for_seat(seat):
        raise TableError(f"the command names another player than this token's seat {seat}: the seat is the token's (send no player, or {seat})")
    fields = data.fields()
    tables = _tables(request)
    result = tables.act(table_id, seat, data.action, fields, data.version, data.command_id)
    if view:  # the author's own view, exactly what its token's GET .../view answers now
        result = msgspec.structs.replace(result, view=tables.view(table_id, seat, bearer_token(request.headers), current=True))
    return result


@post("/tables/{table_id:str}/close", status_code=200, summary="Close the table (host)", guards=[same_origin], responses=errors(400, 401, 403, 404, 413, 415, 429))
async def close_table(table_id: FromPath[str], request: Request) -> ClosedTable:
    await read_fields(request)
    seat = _seat(request, table_id)
    return msgspec.convert(_tables(request).close(table_id, seat), ClosedTable)


@post("/tables/{table_id:str}/rematch", status_code=201, summary="A new game with the same seats and rules, once the game has ended (host)", guards=[same_origin], responses=errors(400, 401, 403, 404, 409, 413, 415, 429, 503))
async def rematch_table(table_id: FromPath[str], request: Request) -> RematchedTable:
    await read_fields(request)
    seat = _seat(request, table_id)
    slots: TableSlots = request.app.state.slots
    client = client_address(request)
    created = _tables(request).rematch(table_id, seat, admit=lambda: slots.check(client))
    slots.hold(_tables(request), created.table, client)
    return created


@post("/tables/{table_id:str}/session", status_code=200, summary="A cookie that opens the seat's stream only (EventSource)", guards=[same_origin], responses=errors(400, 401, 403, 404, 413, 415, 429))
async def session(table_id: FromPath[str], request: Request) -> Response[dict[str, str]]:
    await read_fields(request)
    seat = _seat(request, table_id)
    if seat.startswith("@"):
        raise Forbidden("only a seat's token can open a stream session; the host token has no seat to stream")
    lifetime = request.app.state.config.stream_ticket
    key = _tables(request).seats.token_hash_of(table_id, seat)
    if key is None:  # the seat was found by this very hash a moment ago
        raise BadToken("the token is not a token of this table")
    ticket = issue_ticket(key, table_id, seat, lifetime=lifetime)
    response = Response(content={"table": table_id, "seat": seat}, status_code=200)
    response.set_cookie(
        cookie_name(table_id, seat), ticket, max_age=lifetime, httponly=True, samesite="strict", secure=request.url.scheme == "https", path=f"/tables/{table_id}"
    )
    return response


@get("/tables/{table_id:str}/events", summary="The seat's live stream (text/event-stream)", media_type="text/event-stream", responses=errors(400, 401, 403, 404, 429))
async def seat_events(
    table_id: FromPath[str],
    request: Request,
    seat_: Annotated[str | None, QueryParameter(name="seat", description="the seat whose stream cookie opens the stream (a browser may hold several seats' cookies)")] = None,
    view: Annotated[Literal["turn"] | None, QueryParameter(name="view", description="turn: also send the seat's view (a `view` message) whenever the turn comes to the seat")] = None,
) -> ASGIApp:
    seat = _stream_seat(request, table_id)
    if seat == HOST:
        raise Forbidden("the host token has no seat to stream; use a seat's token or the spectator stream")
    tables = _tables(request)
    after = resume_after(tables, table_id, seat, request.headers)
    return stream_app(tables, request.app.state.config, request.app.state.stopping, table_id, seat, after, request.app.state.durability, turn_views=view == "turn")


@get("/tables/{table_id:str}/spectate", summary="The spectators' stream, a hand behind (text/event-stream)", media_type="text/event-stream", guards=[public_rate], responses=errors(400, 404, 429))
async def spectator_events(table_id: FromPath[str], request: Request) -> ASGIApp:
    tables = _tables(request)
    after = resume_after(tables, table_id, SPECTATOR, request.headers)
    return stream_app(tables, request.app.state.config, request.app.state.stopping, table_id, SPECTATOR, after, request.app.state.durability)


def _ended_events(request: Request, game_id: str) -> list:
    from ..core.events import GameEnded

    events = request.app.state.tables.store.read(game_id)
    if not events or type(events[-1]) is not GameEnded:
        raise StillInPlay(f"game {game_id} is still in play: replay and audit open when it has ended", current_version=len(events))
    return events


def _cli_json(data: Any) -> Response:
    """The bytes ``tonk ... --json`` prints (``cli.render.print_json``)."""
    return Response(content=json.dumps(data, indent=2, ensure_ascii=False) + "\n", media_type="application/json")


@get("/games/{game_id:str}/replay", summary="An ended game's replay, as tonk replay --json", guards=[public_rate], responses=errors(400, 404, 409, 429))
async def replay(game_id: FromPath[str], request: Request, as_: Annotated[str | None, QueryParameter(name="as", description="the player whose view (default: the auditor's)")] = None) -> Response:
    from ..application.replay import ReplayError, replay_document
    from ..core.views import AUDITOR

    events = _ended_events(request, game_id)
    viewer = AUDITOR if as_ is None else as_  # ?as= names no player: a 400, as tonk replay --as ''
    try:
        doc = replay_document(game_id, viewer, events)
    except ReplayError as exc:
        raise TableError(str(exc)) from None
    return _cli_json(doc)


@get("/games/{game_id:str}/audit", summary="An ended game's audit, as tonk audit --json", guards=[public_rate], responses=errors(404, 409, 429))
async def audit(game_id: FromPath[str], request: Request) -> Response:
    from ..application.audit import audit_document

    _ended_events(request, game_id)
    return _cli_json(audit_document(request.app.state.tables.store, game_id))


@post("/adjudicate", status_code=200, summary="Adjudicate hand records, as tonk adjudicate --json", guards=[public_rate], responses=errors(400, 413, 429))
async def adjudicate_records(request: Request) -> Response:
    from ..application.adjudicate import adjudicate, ruleset_loader
    from ..core.handrecord import RecordStream

    body = await request.body()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise TableError("the hand-record body is not UTF-8 text") from None
    stream = RecordStream(text, "request body")
    raws = [(raw, stream.format_version) for raw, _ in stream]  # each case under the version read before it, as the CLI

    def judge() -> dict[str, Any]:
        load_ruleset = ruleset_loader()
        return {"cases": [adjudicate(raw, i, load_ruleset=load_ruleset, format_version=v) for i, (raw, v) in enumerate(raws)]}

    # A case under partial knowledge may weigh many worlds (seconds): judged in a worker
    # thread, one request at a time, so the tables' commands and streams go on meanwhile.
    async with request.app.state.adjudicating:
        return _cli_json(await asyncio.to_thread(judge))


@get("/ping", summary="A bare JSON endpoint")
async def ping() -> dict[str, bool]:
    return {"ok": True}


def create_app(config: ServiceConfig) -> Litestar:
    """The service over the store at ``config.db`` (opened at start-up, closed at shut-down).
    ``app.state.stopping`` is set when the server starts to stop (``service.server``): every
    open stream then says so to its client and ends."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        from ..storage.open import open_store

        from ..storage.postgres import PostgresEventStore
        from ..storage.sqlite import SqliteEventStore

        # durable on SQLite or PostgreSQL: commits do not wait for the disk; every answer and
        # stream event waits for a shared fsync / WAL flush that covers what it shows instead
        # (group commit, service/group_sync.py)
        store = open_store(config.db, durable=False)
        # a read waits for a flush that starts after it where another process may have committed
        # what it shows: several workers, or PostgreSQL (another node's commits are visible
        # before their WAL is flushed)
        durability = Durability(
            GroupSync(store.sync_wal, gather=SQLITE_GATHER if isinstance(store, SqliteEventStore) else 0.0)
            if config.durable and isinstance(store, (SqliteEventStore, PostgresEventStore))
            else None,
            shared=config.workers > 1 or isinstance(store, PostgresEventStore),
        )
        app.state.durability = durability
        app.state.tables = Tables(store)
        app.state.tables.wrote = durability.committed
        # one transaction for the appends of a loop's turn (one process: with several, a batch
        # held open for a turn would hold the others' appends up as long)
        if isinstance(store, SqliteEventStore) and config.workers <= 1 and SQLITE_BATCH:
            durability.batch_commits(store, app.state.tables.forget)
        app.state.tables.resume_timers()
        app.state.slots.load(app.state.tables)
        timer = asyncio.ensure_future(_turn_timer(app.state.tables, config.timer_tick))
        stopping = asyncio.Event()
        follower = asyncio.ensure_future(_follow_store(app.state.tables, config.poll, stopping))
        checkpoints: asyncio.Future[None] | None = None
        if isinstance(store, SqliteEventStore):  # the WAL copied into the file in a thread, not in a commit
            store.checkpoint_apart()
            checkpoints = asyncio.ensure_future(checkpoint_apart(store, stopping))
        try:
            yield
        finally:
            app.state.stopping.set()  # (the server sets it first, when it starts to stop)
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer
            stopping.set()
            await follower  # its wait in a thread ends within one poll interval
            if checkpoints is not None:
                await checkpoints  # a checkpoint under way ends before the store is closed
            app.state.durability = Durability()
            if isinstance(store, SqliteEventStore):
                store.defer_commits(None)
                with contextlib.suppress(Exception):  # lost: nobody was answered for it
                    store.commit_deferred()
            if durability.group is not None:
                await durability.group.idle()  # an fsync under way ends before the file is closed
            store.close()

    app = ServiceApp(
        middleware=[acknowledge_after_sync(lambda scope: scope["app"].state.durability)],
        route_handlers=[tables_options, create_table, list_tables, seat_view, sit, seat_receipts, command, close_table, rematch_table, session, seat_events, spectator_events, replay, audit, adjudicate_records, ping, *PAGE_HANDLERS],
        exception_handlers=HANDLERS,  # type: ignore[arg-type]
        lifespan=[lifespan],
        state=State(
            {
                "config": config,
                "limiter": RateLimiter(config.rate, config.burst, "--rate"),
                "public_limiter": RateLimiter(config.public_rate, config.public_burst, "--public-rate"),
                "slots": TableSlots(config.max_tables, config.max_tables_per_client),
                "stopping": asyncio.Event(),
                "adjudicating": asyncio.Semaphore(1),
                "durability": Durability(),  # the store's, once open (lifespan)
            }
        ),
        request_max_body_size=config.max_body,
        request_class=SafeJSONRequest,
        openapi_config=OpenAPIConfig(
            title="tonk table service",
            version="1",
            render_plugins=[SchemaPage(), YamlRenderPlugin()],  # a page of its own: no CDN script on this origin (service/schema_page.py)
            openapi_router=Router(
                "/schema",
                route_handlers=[],
                include_in_schema=False,
                before_request=_schema_not_found,
                response_headers=[ResponseHeader(name="Content-Security-Policy", value=SCHEMA_POLICY), ResponseHeader(name="X-Content-Type-Options", value="nosniff")],
            ),
        ),
        debug=False,
    )
    only_declared_errors(app)  # each route's errors in its OpenAPI document are those it declares
    return app


def _schema_not_found(request: Request) -> None:
    """Litestar answers an unknown path under ``/schema`` with an HTML page of its own (its
    catch-all ``/schema/{path}``); here it is the JSON ``not_found`` of every other route."""
    if "path" in request.path_params:
        raise NotFoundException()


async def _turn_timer(tables: Tables, tick: float) -> None:
    while True:
        await asyncio.sleep(tick)
        try:
            tables.expire_turns()
        except Exception:  # a store error must not stop the timer of every table
            import logging

            logging.getLogger("tonk.service").exception("turn timer")


async def _follow_store(tables: Tables, poll: float, stopping: asyncio.Event) -> None:
    """Bring other nodes' appends to this node's streams: read the store's global order after
    the last position seen, then wait for a hint (PostgreSQL ``NOTIFY``; SQLite: a short
    sleep) in a thread, at most ``poll`` seconds.  The positions are the truth; a lost hint
    costs one poll interval."""
    import logging

    from ..storage.sqlite import SqliteEventStore

    # SQLite's wait is a plain sleep (no hint ever comes): slept on the loop, not in a thread (a
    # thread's every wake-up takes the interpreter's lock from the loop's thread)
    sleeps = isinstance(tables.store, SqliteEventStore)
    while not stopping.is_set():
        try:
            tables.catch_up()
        except Exception:  # a store error must not stop the streams of every table
            logging.getLogger("tonk.service").exception("store follower")
        if sleeps:
            await asyncio.sleep(min(poll, SqliteEventStore.APPEND_POLL))
        else:
            await asyncio.to_thread(tables.store.wait_for_append, poll)
