"""``docs/http-api.md`` is what a real ``tonk serve`` does: every route it serves is in the
routes table and every route there is served, the statuses are the ones the routes answer,
and the commitment's worked example is the bytes the engine hashes."""

from __future__ import annotations

import hashlib
import random
import re
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from .conftest import Client, auth, command_body, play_until_over

DOC = Path(__file__).resolve().parents[2] / "docs" / "http-api.md"


@pytest.fixture(scope="module")
def server(start_module_server):
    # the statuses test leaves tables in play and makes many requests without a token: the
    # public limits are lifted here and met on a server of their own (provoke_limits)
    return start_module_server("--max-tables-per-client", "0", "--public-rate", "0")


def section(title: str) -> str:
    """The text of the doc's section headed ``title`` (up to the next heading of its level or above)."""
    text = DOC.read_text(encoding="utf-8")
    level, _, name = title.partition(" ")
    start = text.index(f"\n{title}\n")
    end = re.compile(rf"^#{{1,{len(level)}}} ", re.M).search(text, start + len(title) + 2)
    return text[start : end.start() if end else len(text)]


def fenced(text: str, lang: str) -> list[str]:
    """The bodies of the ``lang`` code blocks in ``text``."""
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.M | re.S)


def error_of(r, status: int, code: str, *words: str) -> dict:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json"), r.headers["content-type"]
    err = r.json()["error"]
    assert err["code"] == code, err
    for w in words:
        assert w in err["message"], err
    return err


def test_the_host_token_opening_a_stream_session_is_403(client: Client):
    created = client.create(seats=["ann", "bob"])
    tid = created["table"]
    r = client.http.post(f"/tables/{tid}/session", headers=auth(created["host_token"]))
    error_of(r, 403, "forbidden", "seat's token")
    assert "set-cookie" not in r.headers
    error_of(client.http.post(f"/tables/{tid}/session", headers=auth("nope")), 401, "unauthorized")
    r = client.http.post(f"/tables/{tid}/session", headers=auth(created["tokens"]["ann"]))
    assert r.status_code == 200 and r.json() == {"table": tid, "seat": "ann"}


def test_an_unknown_path_under_schema_is_the_json_404_of_every_other_route(client: Client):
    for path in ("/schema/nothing", "/schema/openapi.txt", "/schema/openapi.json.bak"):
        error_of(client.http.get(path), 404, "not_found", path)
    r = client.http.get("/schema/openapi.json")
    assert r.status_code == 200 and "/tables" in r.json()["paths"]
    for path in ("/schema", "/schema/swagger", "/schema/redoc", "/schema/elements", "/schema/rapidoc", "/schema/scalar"):
        r = client.http.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), path
        # the page loads nothing from elsewhere and runs no script: this origin keeps seat tokens
        assert "<script" not in r.text and not re.search(r"""(src|href)=["']?(https?:)?//""", r.text), path
        assert "script-src" not in r.headers["content-security-policy"] and "default-src 'none'" in r.headers["content-security-policy"]
        assert "/tables/{table_id}/commands" in r.text and 'href="/schema/openapi.json"' in r.text
    r = client.http.get("/schema/openapi.yaml")
    assert r.status_code == 200 and "/tables/{table_id}/commands" in r.text


# --- the commitment's bytes -------------------------------------------------------------------


def worked_example() -> tuple[str, list[str], str]:
    (block,) = fenced(section("### The commitment's bytes"), "text")
    fields = dict(line.split(":", 1) for line in block.splitlines())
    return fields["salt"].strip(), fields["deck"].split(), fields["commitment"].strip()


def test_the_worked_example_of_the_commitment_is_the_bytes_the_doc_states():
    from tonk.core.cards import STANDARD_DECK
    from tonk.core.commitment import SALTED, expected_commitment

    salt, deck, commitment = worked_example()
    assert re.fullmatch("[0-9a-f]{64}", salt) and re.fullmatch("[0-9a-f]{64}", commitment)
    assert sorted(deck) == sorted(STANDARD_DECK)  # a whole deck, each card once
    # the bytes as the doc states them: the salt's 64 hex characters, 0x0a, the cards joined by 0x20
    stated = salt.encode("ascii") + b"\x0a" + b"\x20".join(card.encode("utf-8") for card in deck)
    assert hashlib.sha256(stated).hexdigest() == commitment
    # ... are what the engine (and so tonk audit) computes
    assert expected_commitment(SALTED, deck, salt) == commitment
    # and the Python line of the doc says the same
    (line,) = re.findall(r"^In Python: `(.*)`\.$", section("### The commitment's bytes"), re.M)
    assert eval(line, {"hashlib": hashlib, "salt": salt, "deck": deck}) == commitment


@pytest.mark.skipif(shutil.which("sha256sum") is None or shutil.which("bash") is None, reason="needs bash and sha256sum")
def test_the_shell_lines_of_the_worked_example_print_its_commitment():
    (block,) = fenced(section("### The commitment's bytes"), "sh")
    commands = [line[2:] for line in block.splitlines() if line.startswith("$ ")]
    printed = [line for line in block.splitlines() if not line.startswith("$ ")]
    run = subprocess.run(["bash", "-c", "\n".join(commands)], capture_output=True, text=True, check=True)
    assert run.stdout.splitlines() == printed
    assert printed[0].split()[0] == worked_example()[2]


# --- every route documented, every documented route served ----------------------------------------

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
ROUTE_ROW = re.compile(r"^\| `(" + "|".join(METHODS) + r") (/[^`\[ ]*)(?:\[[^`]*\])?` \|", re.M)


def normal(path: str) -> str:
    """A path with each parameter as ``{}`` (the doc says ``{id}``, OpenAPI ``{table_id}``)."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def table_rows(header: str) -> str:
    """The rows of the doc's table whose header line is ``header``."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = lines.index(header) + 2
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return "\n".join(lines[start:end])


def documented_routes() -> set[tuple[str, str]]:
    """``(method, path)`` of each row of the routes table of docs/http-api.md."""
    rows = ROUTE_ROW.findall(table_rows("| route | token | answer |"))
    assert len(rows) == len(set(rows)), "a route is in the table twice"
    return {(method, normal(path)) for method, path in rows}


def test_the_routes_table_lists_every_route_of_the_openapi_document_and_no_other(client: Client):
    doc = client.http.get("/schema/openapi.json").json()
    served = {(method.upper(), normal(path)) for path, ops in doc["paths"].items() for method in ops if method.upper() in METHODS}
    documented = documented_routes()
    assert len(served) > 10 and ("GET", "/games/{}") in served  # the pages too
    assert not served - documented, f"served, but not in the routes table of docs/http-api.md: {sorted(served - documented)}"
    assert not documented - served, f"in the routes table of docs/http-api.md, but not served: {sorted(documented - served)}"


def test_the_openapi_document_leaves_out_no_route_of_the_app():
    """Besides its own routes under /schema, every route the app has is in the OpenAPI document
    (a handler marked ``include_in_schema=False`` would be served and undocumented)."""
    from tonk.service.app import ServiceConfig, create_app

    app = create_app(ServiceConfig(db=":memory:"))  # never started: no store is opened
    routes = {(m, normal(r.path)) for r in app.routes for m in getattr(r, "methods", ()) if m in METHODS and not r.path.startswith("/schema")}
    listed = {(m.upper(), normal(p)) for p, ops in app.openapi_schema.to_schema()["paths"].items() for m in ops if m.upper() in METHODS}
    assert routes == listed


# --- the statuses each route answers ---------------------------------------------------------------

STATUS_ROW = re.compile(r"^\| `(" + "|".join(METHODS) + r") (/[^`]*)` \| (\d{3}(?:, \d{3})*)", re.M)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "disputed-hands.json"
BIG = b'{"seats": ["' + b"a" * 100_000 + b'"]}'


def documented_statuses() -> dict[tuple[str, str], set[int]]:
    rows = STATUS_ROW.findall(table_rows("| route | statuses |"))
    return {(method, normal(path)): {int(code) for code in codes.split(", ")} for method, path, codes in rows}


class Seen:
    """The statuses each route answered; an error must be the JSON ``{error}`` body."""

    def __init__(self) -> None:
        self.got: dict[tuple[str, str], set[int]] = {}

    def __call__(self, route: str, r: httpx.Response | int) -> None:
        method, path = route.split(" ", 1)
        status = r if isinstance(r, int) else r.status_code
        if not isinstance(r, int) and status >= 400:
            assert r.headers["content-type"].startswith("application/json"), (route, status, r.text[:200])
            assert set(r.json()) == {"error"} and r.json()["error"]["code"] and r.json()["error"]["message"], (route, r.text)
        assert status < 500 or status == 503, (route, status)
        self.got.setdefault((method, normal(path)), set()).add(status)


def stream_status(url: str, headers: dict[str, str]) -> int:
    """The status of a stream's answer (the stream is closed at once)."""
    with httpx.Client(timeout=30) as http, http.stream("GET", url, headers=headers) as r:
        if r.status_code != 200:
            r.read()
        return r.status_code


def ended_game(c: Client) -> dict:
    """A one-hand game that has ended, its hand played (not ended at the deal by an initial
    tonk, which leaves no turn whose position ``/record`` could give)."""
    for _ in range(20):
        created = c.create(seats=["ann", "bob"], bots={"bob": "greedy"}, hand_limit=1)
        play_until_over(c, created, random.Random(2))
        last = c.view(created["table"], created["tokens"]["ann"]).json()["last_hand"]
        if not last["ended"]["end"].startswith("initial_tonk"):
            return created
    raise AssertionError("20 one-hand games each ended at the deal")


def mover(c: Client, created: dict) -> tuple[str, dict]:
    for seat, tok in created["tokens"].items():
        v = c.view(created["table"], tok).json()
        if v["legal"]:
            return seat, v
    raise AssertionError("nobody to act")


def provoke_on(server, c: Client, seen: Seen) -> None:
    """Every status but 429 and 503, each by a request that must meet it."""
    h = c.http
    playing = c.create(seats=["ann", "bob"])
    while not any(c.view(playing["table"], t).json()["legal"] for t in playing["tokens"].values()):
        playing = c.create(seats=["ann", "bob"])  # its first hand ended at the deal: another
    tid, ann, host = playing["table"], playing["tokens"]["ann"], playing["host_token"]
    ended = ended_game(c)
    gid = ended["table"]
    json_body = {"content-type": "application/json"}

    seen("POST /tables", h.post("/tables", json={"seats": ["a", "b"]}))
    seen("POST /tables", h.post("/tables", json={"seats": ["a"]}))
    seen("POST /tables", h.post("/tables", content=BIG, headers=json_body))
    seen("POST /tables", h.post("/tables", content=b'{"seats": ["a", "b"]}', headers={"content-type": "text/plain"}))
    seen("POST /tables", h.post("/tables", json={"seats": ["a", "b"]}, headers={"origin": "http://127.0.0.1:9"}))
    seen("GET /tables", h.get("/tables"))
    for route, call in (
        ("GET /tables/{id}/view", lambda t, tok, **kw: h.get(f"/tables/{t}/view", headers=auth(tok), **kw)),
        ("GET /tables/{id}/receipts", lambda t, tok, **kw: h.get(f"/tables/{t}/receipts", headers=auth(tok), **kw)),
        ("POST /tables/{id}/session", lambda t, tok, **kw: h.post(f"/tables/{t}/session", headers=auth(tok), **kw)),
    ):
        seen(route, call(tid, ann))
        seen(route, call(tid, "not-a-token"))
        seen(route, call(tid, host))
        seen(route, call("no-such-table", ann))
    seen("GET /tables/{id}/receipts", h.get(f"/tables/{tid}/receipts", headers=auth(ann), params={"after": -1}))

    seat, v = mover(c, playing)
    other = next(s for s in playing["tokens"] if s != seat)
    act = "POST /tables/{id}/commands"
    seen(act, c.act(tid, "not-a-token", command_body(v["legal"][0], v["version"])))
    seen(act, c.act(tid, host, command_body(v["legal"][0], v["version"])))
    seen(act, c.act("no-such-table", ann, command_body(v["legal"][0], v["version"])))
    seen(act, h.post(f"/tables/{tid}/commands", headers={**auth(ann), **json_body}, content=b"{not json"))
    seen(act, h.post(f"/tables/{tid}/commands", headers={**auth(ann), **json_body}, content=BIG))
    seen(act, c.act(tid, playing["tokens"][other], {"action": "draw_stock", "version": v["version"], "command_id": "out-of-turn"}))
    seen(act, c.act(tid, playing["tokens"][seat], command_body(v["legal"][0], v["version"] - 1)))
    seen(act, c.act(tid, playing["tokens"][seat], command_body(v["legal"][0], v["version"])))
    seen(act, c.act(gid, ended["tokens"]["ann"], {"action": "draw_stock", "version": 1, "command_id": "late"}))
    seen(act, h.post(f"/tables/{tid}/commands", headers={**auth(ann), "content-type": "text/plain"}, content=b'{"action": "knock"}'))
    for route, path in (("POST /tables/{id}/session", "session"), ("POST /tables/{id}/close", "close"), ("POST /tables/{id}/rematch", "rematch")):
        seen(route, h.post(f"/tables/{tid}/{path}", headers={**auth(ann), **json_body}, content=b'{"x": 1}'))
        seen(route, h.post(f"/tables/{tid}/{path}", headers={**auth(ann), **json_body}, content=BIG))
        seen(route, h.post(f"/tables/{tid}/{path}", headers={**auth(ann), "content-type": "text/plain"}, content=b"{}"))

    sit, waiting = "POST /tables/{id}/sit", c.create(sit=False, seats=["ann", "bob"])
    wid, seed = waiting["table"], "5e" * 32
    seen(sit, c.sit(wid, waiting["tokens"]["ann"], seed))
    seen(sit, c.sit(wid, waiting["tokens"]["ann"], "6f" * 32))  # a seat's seed is fixed once it has sat
    seen(sit, c.sit(wid, waiting["tokens"]["bob"], "not hex"))
    seen(sit, c.sit(wid, "not-a-token", seed))
    seen(sit, c.sit(wid, waiting["host_token"], seed))
    seen(sit, c.sit("no-such-table", waiting["tokens"]["bob"], seed))
    seen(sit, h.post(f"/tables/{wid}/sit", headers={**auth(ann), **json_body}, content=BIG))
    seen(sit, h.post(f"/tables/{wid}/sit", headers={**auth(ann), "content-type": "text/plain"}, content=b"{}"))
    assert h.post(f"/tables/{wid}/close", headers=auth(waiting["host_token"])).status_code == 200  # the game ends unseated
    seen(sit, c.sit(wid, waiting["tokens"]["bob"], seed))

    closing = c.create(seats=["ann", "bob"])
    close = "POST /tables/{id}/close"
    seen(close, h.post(f"/tables/{closing['table']}/close", headers=auth("not-a-token")))
    seen(close, h.post(f"/tables/{closing['table']}/close", headers=auth(closing["tokens"]["ann"])))
    seen(close, h.post("/tables/no-such-table/close", headers=auth(closing["host_token"])))
    seen(close, h.post(f"/tables/{closing['table']}/close", headers=auth(closing["host_token"])))

    rematch, over = "POST /tables/{id}/rematch", ended_game(c)
    seen(rematch, h.post(f"/tables/{over['table']}/rematch", headers=auth("not-a-token")))
    seen(rematch, h.post(f"/tables/{over['table']}/rematch", headers=auth(over["tokens"]["ann"])))
    seen(rematch, h.post("/tables/no-such-table/rematch", headers=auth(over["host_token"])))
    seen(rematch, h.post(f"/tables/{tid}/rematch", headers=auth(host)))  # still in play
    seen(rematch, h.post(f"/tables/{over['table']}/rematch", headers=auth(over["host_token"])))
    seen(rematch, h.post(f"/tables/{over['table']}/rematch", headers=auth(over["host_token"])))  # it has one

    events, spectate = "GET /tables/{id}/events", "GET /tables/{id}/spectate"
    for t, headers in ((tid, auth(ann)), (tid, {**auth(ann), "Last-Event-ID": "x"}), (tid, auth("not-a-token")), (tid, auth(host)), ("no-such-table", auth(ann))):
        seen(events, stream_status(f"{server.url}/tables/{t}/events", headers))
    for t, headers in ((tid, {}), (tid, {"Last-Event-ID": "x"}), ("no-such-table", {})):
        seen(spectate, stream_status(f"{server.url}/tables/{t}/spectate", headers))

    for route, path in (("GET /games/{id}/replay", "replay"), ("GET /games/{id}/audit", "audit"), ("GET /games/{id}/document", "document")):
        seen(route, h.get(f"/games/{gid}/{path}"))
        seen(route, h.get(f"/games/no-such-game/{path}"))
        seen(route, h.get(f"/games/{tid}/{path}"))
    seen("GET /games/{id}/replay", h.get(f"/games/{gid}/replay", params={"as": "zed"}))
    seen("GET /games/{id}/record", h.get(f"/games/{gid}/record", params={"seq": 3}))
    seen("GET /games/{id}/record", h.get(f"/games/{gid}/record", params={"seq": 99999}))
    seen("GET /games/{id}/record", h.get("/games/no-such-game/record"))
    seen("GET /games/{id}/record", h.get(f"/games/{tid}/record"))
    seen("GET /deck", h.get("/deck", params={"variant": "forty-card-deck"}))
    seen("GET /deck", h.get("/deck", params={"variant": "no-such-variant"}))
    seen("GET /deck", h.get("/deck", params={"options": "[1]"}))

    seen("POST /adjudicate", h.post("/adjudicate", content=EXAMPLES.read_bytes()))
    seen("POST /adjudicate", h.post("/adjudicate", content=b"{"))
    seen("POST /adjudicate", h.post("/adjudicate", content=BIG))
    for path in ("/ping", "/variants", "/rules", "/dispute", "/", f"/play/{tid}", "/play/no-such-table", f"/games/{gid}", "/games/no-such-game", "/static/lobby.js", "/static/nothing.js"):
        route = "GET " + re.sub(r"^/(play|games)/[^/]+$", r"/\1/{id}", re.sub(r"^/static/.*", "/static/{name}", path))
        seen(route, h.get(path))


def provoke_limits(start_server, tmp_path: Path, seen: Seen) -> None:
    """429 on each route a token is counted on (a server whose tokens get 10 requests, then
    one more each 1000 s), and 503: receipts without the ``evidence`` extra."""
    shim = tmp_path / "no_evidence" / "cryptography"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ImportError('cryptography is not installed (test shim)')\n")
    server = start_server("--rate", "0.001", env={"PYTHONPATH": str(shim.parent)})
    c = Client(server.url)
    for _ in range(10):  # a hand that has ended: ann knocks at once, the bot plays its last turn
        created = c.create(seats=["ann", "bob"], bots={"bob": "greedy"}, hand_limit=1)
        view = c.view(created["table"], created["tokens"]["ann"]).json()
        knock = next((a for a in view["legal"] if a["action"] == "knock"), None)
        if knock is not None:
            assert c.act(created["table"], created["tokens"]["ann"], command_body(knock, view["version"])).status_code == 200
            seen("GET /tables/{id}/receipts", c.receipts(created["table"], created["tokens"]["ann"]))
            break
    else:
        raise AssertionError("ann could not knock at 10 tables")
    created = c.create(seats=["ann", "bob"])
    tid, ann = created["table"], created["tokens"]["ann"]
    for _ in range(12):
        if c.view(tid, ann).status_code == 429:
            break
    seen("GET /tables/{id}/view", c.view(tid, ann))
    seen("GET /tables/{id}/receipts", c.receipts(tid, ann))
    seen("POST /tables/{id}/commands", c.act(tid, ann, {"action": "draw_stock", "version": 2, "command_id": "x"}))
    seen("POST /tables/{id}/close", c.http.post(f"/tables/{tid}/close", headers=auth(ann)))
    seen("POST /tables/{id}/rematch", c.http.post(f"/tables/{tid}/rematch", headers=auth(ann)))
    seen("POST /tables/{id}/session", c.http.post(f"/tables/{tid}/session", headers=auth(ann)))
    seen("POST /tables/{id}/sit", c.sit(tid, ann, created["client_seeds"]["ann"]))
    seen("GET /tables/{id}/events", stream_status(f"{server.url}/tables/{tid}/events", auth(ann)))
    provoke_public_limits(start_server, tmp_path, seen)


def provoke_public_limits(start_server, tmp_path: Path, seen: Seen) -> None:
    """429 on every route without a token (a server whose client addresses get one such
    request, then one more each 1000 s), and 503 for a new table on a full server."""
    full = start_server("--max-tables", "1", "--public-rate", "0", db=tmp_path / "full.db")
    c = Client(full.url)
    over = ended_game(c)  # its slot is free again once its game has ended
    seen("POST /tables", c.http.post("/tables", json={"seats": ["a", "b"]}))
    seen("POST /tables", c.http.post("/tables", json={"seats": ["a", "b"]}))
    seen("POST /tables/{id}/rematch", c.http.post(f"/tables/{over['table']}/rematch", headers=auth(over["host_token"])))
    server = start_server("--public-rate", "0.001", "--public-burst", "1")
    c = Client(server.url)
    created = c.create(seats=["ann", "bob"])
    h, tid = c.http, created["table"]
    seen("POST /tables", h.post("/tables", json={"seats": ["a", "b"]}))
    seen("GET /tables", h.get("/tables"))
    seen("GET /tables/{id}/spectate", stream_status(f"{server.url}/tables/{tid}/spectate", {}))
    for path in ("replay", "audit", "document", "record"):
        seen(f"GET /games/{{id}}/{path}", h.get(f"/games/{tid}/{path}"))
    seen("GET /variants", h.get("/variants"))
    seen("GET /rules", h.get("/rules"))
    seen("GET /deck", h.get("/deck"))
    seen("POST /adjudicate", h.post("/adjudicate", content=EXAMPLES.read_bytes()))


def test_each_route_answers_exactly_the_statuses_the_doc_lists(server, client: Client, start_server, tmp_path):
    """Each status the Errors section gives a route is provoked by a request and met; and no
    request here meets a status the doc does not give that route."""
    seen = Seen()
    provoke_on(server, client, seen)
    provoke_limits(start_server, tmp_path, seen)
    documented = documented_statuses()
    assert set(documented) == documented_routes(), "the statuses table names other routes than the routes table"
    for route, statuses in sorted(documented.items()):
        assert seen.got.get(route) == statuses, f"{route}: the doc says {sorted(statuses)}, the server answered {sorted(seen.got.get(route, ()))}"


def test_the_openapi_document_lists_each_routes_statuses_and_the_error_body(client: Client):
    """The OpenAPI document gives each route the statuses of the doc's table, every error with
    the ``{"error": {code, message}}`` body the server sends (not Litestar's generic 400)."""
    doc = client.http.get("/schema/openapi.json").json()
    listed = {(m.upper(), normal(p)): ops for p, item in doc["paths"].items() for m, ops in item.items() if m.upper() in METHODS}
    for route, statuses in sorted(documented_statuses().items()):
        responses = listed[route]["responses"]
        assert {int(code) for code in responses} == statuses, f"{route}: the doc says {sorted(statuses)}, OpenAPI {sorted(responses)}"
        for code, response in responses.items():
            if int(code) >= 400:
                schema = response["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorAnswer"}, (route, code, schema)
    error = doc["components"]["schemas"]["ErrorAnswer"]
    assert error["required"] == ["error"]
    detail = doc["components"]["schemas"][error["properties"]["error"]["$ref"].rsplit("/", 1)[1]]
    assert {"code", "message"} <= set(detail["required"])


def test_a_method_a_path_does_not_list_is_405_and_a_path_that_is_no_route_404(client: Client):
    paths: dict[str, set[str]] = {}
    for method, path in documented_routes():
        paths.setdefault(path.replace("{}", "x"), set()).add(method)
    for path, methods in paths.items():
        for method in {"GET", "POST", "PUT", "DELETE"} - methods:
            error_of(client.http.request(method, path), 405, "method_not_allowed", method)
    error_of(client.http.get("/tables/x/nothing"), 404, "not_found")


def test_every_route_answers_options_204_with_allow_naming_the_methods_of_its_path(client: Client):
    """``OPTIONS`` on every path of the routes table: ``204`` with ``Allow`` naming exactly the
    methods the table gives that path, and ``OPTIONS`` (``/tables`` has two: ``GET`` and ``POST``)."""
    paths: dict[str, set[str]] = {}
    for method, path in documented_routes():
        paths.setdefault(path.replace("{}", "x"), set()).add(method)
    assert paths["/tables"] == {"GET", "POST"}
    for path, methods in paths.items():
        r = client.http.options(path)
        assert r.status_code == 204, (path, r.status_code, r.text)
        assert {m.strip() for m in r.headers["allow"].split(",")} == methods | {"OPTIONS"}, (path, r.headers["allow"])


def test_the_openapi_document_names_the_query_parameters_the_routes_read(client: Client):
    """``?as=PLAYER`` of a replay and ``?after=SEQ`` of receipts, as the routes table writes them."""
    doc = client.http.get("/schema/openapi.json").json()
    for path, name in (("/games/{game_id}/replay", "as"), ("/tables/{table_id}/receipts", "after"), ("/games/{game_id}/record", "seq")):
        query = [p["name"] for p in doc["paths"][path]["get"].get("parameters", []) if p["in"] == "query"]
        assert query == [name], (path, query)
    assert "[?as=PLAYER]" in table_rows("| route | token | answer |") and "[?after=SEQ]" in table_rows("| route | token | answer |")
    query = [p["name"] for p in doc["paths"]["/tables/{table_id}/commands"]["post"].get("parameters", []) if p["in"] == "query"]
    assert query == ["view"], query
    assert "`POST /tables/{id}/commands[?view=true]`" in table_rows("| route | token | answer |")
    query = [p["name"] for p in doc["paths"]["/tables/{table_id}/events"]["get"].get("parameters", []) if p["in"] == "query"]
    assert query == ["seat", "view"], query
    assert "`GET /tables/{id}/events[?seat=SEAT][&view=turn]`" in table_rows("| route | token | answer |")
