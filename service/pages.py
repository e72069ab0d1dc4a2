"""The web pages: the lobby, a seat's table, the replay viewer and the dispute desk (static
files of ``tonk.web``), and the JSON routes only they need (the installed variants, a game's
replay document, an ended game's position as a hand record, the rule statements, a ruleset's deck).

The pages talk to the same HTTP API as any client; the replay viewer shows the views the
engine computed (``tonk.application.replay_document``) and applies no rule in the browser.
"""

from __future__ import annotations

import re
from typing import Any

from litestar import Request, Response, get
from litestar.params import FromPath, FromQuery

from .. import web
from ..application.replay_document import replay_document
from ..application.table_types import StillInPlay, TableError, UnknownTable
from .errors import errors
from .rate_limit import public_rate

_TYPES = {".html": "text/html", ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}
#: every page sends this: nothing but its own origin's scripts, styles and requests
_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
_HEADERS = {"Content-Security-Policy": _POLICY, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"}


def _static_names() -> set[str]:
    return {p.name for p in web.STATIC.iterdir() if p.name.rsplit(".", 1)[-1] in ("html", "css", "js", "svg")}


#: the pages' icon (a browser asks for /favicon.ico, a 404, without one)
_ICON = '<link rel="icon" type="image/svg+xml" href="/static/favicon.svg">\n'

_ASSET_LINK = re.compile(r'\b(href|src)="([a-z-]+\.(?:css|js))"')


def _page(name: str, replace: dict[str, str] | None = None) -> Response:
    """A page of ``tonk.web`` with its CSS and script links pointing to ``/static/``."""
    text = _ASSET_LINK.sub(r'\1="/static/\2"', web.asset(name))
    for old, new in (replace or {}).items():
        text = text.replace(old, new)
    text = text.replace("</head>", _ICON + "</head>", 1)  # served pages only: a replay file stays self-contained
    return Response(content=text, media_type=_TYPES[".html"], headers=_HEADERS)


@get("/", summary="The lobby (HTML)")
async def lobby_page() -> Response:
    return _page("lobby.html")


@get("/play/{table_id:str}", summary="A seat's table (HTML)")
async def table_page(table_id: FromPath[str]) -> Response:
    return _page("table.html")


@get("/games/{game_id:str}", summary="The replay viewer of an ended game (HTML)")
async def replay_page(game_id: FromPath[str]) -> Response:
    from urllib.parse import quote

    return _page(
        "replay.html",
        {
            'data-replay-src="replay.json"': f'data-replay-src="/games/{quote(game_id, safe="")}/document"',
        },
    )


@get("/static/{name:str}", summary="A static file of the web pages", responses=errors(404))
async def static_file(name: FromPath[str]) -> Response:
    if name not in _static_names():
        raise UnknownTable(f"no static file {name!r}")
    suffix = "." + name.rsplit(".", 1)[-1]
    return Response(content=web.asset(name), media_type=_TYPES[suffix], headers=_HEADERS)


@get("/games/{game_id:str}/document", summary="An ended game's replay document (every perspective and the audit), as the replay viewer reads it", guards=[public_rate], responses=errors(404, 409, 429))
async def replay_data(game_id: FromPath[str], request: Request) -> dict[str, Any]:
    from ..application.audit import audit_game
    from ..core.events import GameEnded

    store = request.app.state.tables.store
    events = store.read(game_id)  # UnknownGame: 404
    if type(events[-1]) is not GameEnded:
        raise StillInPlay(f"game {game_id} is still in play: its replay opens when it has ended", current_version=len(events))
    return replay_document(game_id, events, None, audit_game(store, game_id, {}))


@get("/variants", summary="The installed variants and their options, as tonk variants --json", guards=[public_rate], responses=errors(429))
async def installed_variants() -> dict[str, Any]:
    from ..variants.registry import default_registry, describe_variant

    registry = default_registry()
    regs = sorted(registry.all(), key=lambda r: (r.info.name != "classic", r.info.name))
    return {"variants": [describe_variant(r, doc=False) for r in regs], "problems": list(registry.problems)}


@get("/dispute", summary="The dispute desk (HTML): build a disputed hand, adjudicate it, save the verdict")
async def dispute_page() -> Response:
    return _page("dispute.html")


@get("/rules", summary="Every rule id a verdict can cite with its one-line statement (as tonk rules --json), and the base game's rule of each ending and payment", guards=[public_rate], responses=errors(429))
async def rule_statements() -> dict[str, Any]:
    from ..core.rule_statements import RULES, ending_rules, payment_rules

    return {"rules": [{"id": r.id, "section": r.section, "statement": r.text} for r in RULES], "endings": ending_rules(), "payments": payment_rules()}


@get("/deck", summary="The deck of a ruleset (variants and options), as the dispute desk's card pickers show it", guards=[public_rate], responses=errors(400, 429))
async def ruleset_deck(variant: FromQuery[list[str] | None] = None, options: FromQuery[str | None] = None) -> dict[str, Any]:
    import json

    from ..core.safe_json import UnsafeJSON, loads
    from ..variants import load_ruleset

    try:
        given = loads(options) if options else {}  # within the limits every body is read with
    except UnsafeJSON as exc:
        raise TableError(f"options: JSON outside the limits: {exc.message}") from None
    except json.JSONDecodeError:
        raise TableError("options must be a JSON object of ruleset options, e.g. {\"jokers\": 2}") from None
    if not isinstance(given, dict):
        raise TableError("options must be a JSON object of ruleset options, e.g. {\"jokers\": 2}")
    ruleset = load_ruleset(variant or (), given)  # an unknown variant or option: 400
    return {"variants": list(variant or ()), "deck": list(ruleset.deck)}


@get(
    "/games/{game_id:str}/record",
    summary="An ended game's position as a hand record (as tonk export GAME --hand N --as-record --at K): the position after event seq, as the replay viewer numbers them",
    guards=[public_rate],
    responses=errors(400, 404, 409, 429),
)
async def position_as_record(game_id: FromPath[str], request: Request, seq: FromQuery[int] = 1) -> dict[str, Any]:
    from ..application.position_record import locate, position_record
    from ..core.events import GameEnded

    store = request.app.state.tables.store
    events = store.read(game_id)  # UnknownGame: 404
    if type(events[-1]) is not GameEnded:  # a live game's hidden cards stay hidden
        raise StillInPlay(f"game {game_id} is still in play: its positions open when it has ended", current_version=len(events))
    hand_no, at = locate(events, seq)  # NoSuchPosition: 400
    return position_record(events, hand_no, at, game_id=game_id)


PAGE_HANDLERS = [lobby_page, table_page, replay_page, dispute_page, static_file, replay_data, position_as_record, installed_variants, rule_statements, ruleset_deck]

__all__ = ["PAGE_HANDLERS", "TableError"]
