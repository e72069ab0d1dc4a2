"""State-changing routes (``POST /tables``, ``/commands``, ``/close``, ``/session``) take a JSON
body only as ``application/json`` (415 otherwise) and refuse a request whose ``Origin`` is not
the server's own (403); the server's own origin, or no ``Origin`` at all, passes."""

from __future__ import annotations

import json

import pytest

from tonk.storage import EventStore

from .conftest import Client, auth, command_body

SETTINGS = b'{"seats": ["ann", "bob"]}'


def everything(server) -> tuple[int, list]:
    with EventStore.open(server.db) as store:
        return store.last_position(), store.db.conn.execute("SELECT game_id, closed FROM served_tables ORDER BY rowid").fetchall()


def error_of(r, status: int, code: str, *words: str) -> None:
    assert r.status_code == status, (r.status_code, r.text)
    err = r.json()["error"]
    assert err["code"] == code, err
    for w in words:
        assert w in err["message"], err


@pytest.fixture(scope="module")
def server(start_module_server):
    # every case creates tables (and leaves them in play): no public limit in this module
    return start_module_server("--public-rate", "0", "--max-tables-per-client", "0")


@pytest.fixture
def table(client: Client) -> dict:
    return client.create(seats=["ann", "bob"])


def requests(table: dict) -> list[tuple[str, dict, bytes]]:
    """(path, headers, JSON body) of each state-changing route, as a legitimate client sends it."""
    tid = table["table"]
    mover, view = next((s, v) for s, v in ((s, table["view"](t)) for s, t in table["tokens"].items()) if v["legal"])
    command = json.dumps(command_body(view["legal"][0], view["version"])).encode()
    return [
        ("/tables", {}, SETTINGS),
        (f"/tables/{tid}/commands", auth(table["tokens"][mover]), command),
        (f"/tables/{tid}/session", auth(table["tokens"]["ann"]), b"{}"),
        (f"/tables/{tid}/close", auth(table["host_token"]), b"{}"),
    ]


@pytest.fixture
def routes(client: Client, table: dict) -> list[tuple[str, dict, bytes]]:
    return requests({**table, "view": lambda token: client.view(table["table"], token).json()})


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp", None])
def test_a_body_not_sent_as_json_is_415_and_changes_nothing(server, client: Client, routes, content_type: str | None):
    before = everything(server)
    for path, headers, body in routes:
        sent = {**headers, "content-type": content_type} if content_type else headers
        r = client.http.post(path, headers=sent, content=body)
        if content_type is None:
            assert "content-type" not in r.request.headers
        error_of(r, 415, "unsupported_media_type", "Content-Type: application/json")
        assert "set-cookie" not in r.headers
    assert everything(server) == before


@pytest.mark.parametrize(
    "origin",
    ["http://127.0.0.1:9999", "http://localhost:{port}", "https://127.0.0.1:{port}", "http://127.0.0.1:{port}.evil.example", "null", "http://127.0.0.1", "", "not an origin"],
)
def test_a_request_from_another_origin_is_403_and_changes_nothing(server, client: Client, routes, origin: str):
    before = everything(server)
    for path, headers, body in routes:
        r = client.http.post(path, headers={**headers, "content-type": "application/json", "origin": origin.format(port=server.port)}, content=body)
        error_of(r, 403, "forbidden", "another origin", "own pages")
        assert "set-cookie" not in r.headers
    assert everything(server) == before


@pytest.mark.parametrize("origin", ["http://127.0.0.1:{port}", "HTTP://127.0.0.1:{port}", None])
def test_the_servers_own_origin_or_none_is_accepted(server, client: Client, table: dict, routes, origin: str | None):
    for path, headers, body in routes:
        sent = {**headers, "content-type": "application/json; charset=utf-8"}
        if origin is not None:
            sent["origin"] = origin.format(port=server.port)
        r = client.http.post(path, headers=sent, content=body)
        assert r.status_code in (200, 201), (path, r.status_code, r.text)
    assert (table["table"], 1) in everything(server)[1]  # the close was applied


def test_the_own_origin_follows_the_host_header(server, client: Client):
    sent = {"content-type": "application/json", "host": "tonk.example:8443", "origin": "http://tonk.example:8443"}
    assert client.http.post("/tables", headers=sent, content=SETTINGS).status_code == 201
    sent = {"content-type": "application/json", "host": "tonk.example", "origin": "http://tonk.example:80"}
    assert client.http.post("/tables", headers=sent, content=SETTINGS).status_code == 201
    sent = {"content-type": "application/json", "host": "tonk.example:8443", "origin": f"http://127.0.0.1:{server.port}"}
    error_of(client.http.post("/tables", headers=sent, content=SETTINGS), 403, "forbidden")


def test_close_and_session_may_come_without_a_body_or_a_content_type(server, client: Client, table: dict):
    tid = table["table"]
    r = client.http.post(f"/tables/{tid}/session", headers=auth(table["tokens"]["ann"]))
    assert r.status_code == 200 and "content-type" not in r.request.headers
    r = client.http.post(f"/tables/{tid}/close", headers=auth(table["host_token"]))
    assert r.status_code == 200 and r.json()["status"] in ("closing", "ended")


def test_the_reported_attack_is_refused_cookie_text_plain_and_a_foreign_origin(server, client: Client, table: dict):
    """Issue 18, finding 2: the stream cookie alone, ``text/plain``, ``Origin`` another port."""
    tid = table["table"]
    mover, view = next((s, v) for s, v in ((s, client.view(tid, t).json()) for s, t in table["tokens"].items()) if v["legal"])
    r = client.http.post(f"/tables/{tid}/session", headers=auth(table["tokens"][mover]))
    cookie = r.headers["set-cookie"].split(";")[0]
    body = json.dumps(command_body(view["legal"][0], view["version"]))
    before = everything(server)
    for headers in (
        {"cookie": cookie, "content-type": "text/plain", "origin": "http://127.0.0.1:9999"},
        {"cookie": cookie, "content-type": "text/plain"},
        {"cookie": cookie, "content-type": "application/json"},
        {"cookie": cookie, "content-type": "application/json", "origin": f"http://127.0.0.1:{server.port}"},
    ):
        r = client.http.post(f"/tables/{tid}/commands", headers=headers, content=body)
        assert r.status_code in (401, 403, 415), (headers, r.status_code, r.text)
    assert everything(server) == before
