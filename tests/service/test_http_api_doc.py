"""``docs/http-api.md`` is what a real ``tonk serve`` does: every route it serves is in the
routes table and every route there is served, the statuses are the ones the routes answer,
and the commitment's worked example is the bytes the engine hashes."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import Client, auth

DOC = Path(__file__).resolve().parents[2] / "docs" / "http-api.md"


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
    for path in ("/schema", "/schema/swagger"):
        r = client.http.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), path


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


def documented_routes() -> set[tuple[str, str]]:
    """``(method, path)`` of each row of the routes table of docs/http-api.md."""
    rows = ROUTE_ROW.findall(section("## Routes"))
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
