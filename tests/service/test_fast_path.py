"""``service/fast_path.py``: the plain view and command requests are answered ahead of Litestar's
router (its ``ASGIRouter.__call__`` is not called for them), with the very bytes and headers the
route answers, after the same fsync (an fsync that fails is the same 503 on both); everything else
reaches the route, which answers as always; a command the table refuses is charged once to the
token's rate limit, not twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from litestar._asgi.asgi_router import ASGIRouter
from litestar.testing import TestClient


from tonk.service.app import ServiceConfig, create_app

from ..support.seating import httpx_post, sit_everyone
from .conftest import auth, command_body


@pytest.fixture
def routed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths (with their query) that reached Litestar's router, from the next app built on."""
    seen: list[str] = []
    route = ASGIRouter.__call__

    async def counted(self: ASGIRouter, scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["path"] + ("?" + scope["query_string"].decode() if scope.get("query_string") else ""))
        await route(self, scope, receive, send)

    monkeypatch.setattr(ASGIRouter, "__call__", counted)
    return seen


def _client(tmp_path: Path, raise_server_exceptions: bool = True, **config: Any) -> Iterator[TestClient]:
    with TestClient(create_app(ServiceConfig(db=str(tmp_path / "t.db"), public_rate=0, **config)), raise_server_exceptions=raise_server_exceptions) as client:
        yield client


@pytest.fixture
def client(tmp_path: Path, routed: list[str]) -> Iterator[TestClient]:
    yield from _client(tmp_path, rate=0)


def _table(client: TestClient) -> tuple[str, dict[str, str]]:
    # no hand limit: a hand is in play whatever the deck (with 3 hands all three could end before
    # a person acts, at their deals or on the bot's knock, and the game be over at the sitting)
    r = client.post("/tables", json={"seats": ["ann", "bob", "cy"], "bots": {"cy": "random"}})
    assert r.status_code == 201, r.text
    created = sit_everyone(httpx_post(client), r.json())
    return created["table"], created["tokens"]


def _mover(client: TestClient, table: str, tokens: dict[str, str]) -> tuple[str, dict[str, Any]]:
    views = {s: client.get(f"/tables/{table}/view", headers=auth(t)).json() for s, t in tokens.items()}
    return next((s, v) for s, v in views.items() if v["legal"])


def _move(view: dict[str, Any]) -> dict[str, Any]:
    """A legal action of the mover's that cannot end the hand (not a knock): the tests send it
    and then read the table's view, the mover's own turn still in play."""
    return next(a for a in view["legal"] if a["action"] != "knock")


def _same(a: Any, b: Any) -> None:
    assert (a.status_code, a.content) == (b.status_code, b.content)
    assert [(k, v) for k, v in a.headers.items()] == [(k, v) for k, v in b.headers.items()]


def test_a_view_skips_the_route_and_answers_the_routes_bytes(client: TestClient, routed: list[str]):
    table, tokens = _table(client)
    routed.clear()
    fast = client.get(f"/tables/{table}/view", headers=auth(tokens["ann"]))
    assert routed == []  # answered before the route
    slow = client.get(f"/tables/{table}/view?also=1", headers=auth(tokens["ann"]))  # a query string: the route
    assert routed == [f"/tables/{table}/view?also=1"]
    _same(fast, slow)
    assert fast.json()["seat"] == "ann" and fast.json()["view"]["hand"]


def test_a_command_skips_the_route_and_its_retry_through_the_route_answers_the_same_bytes(client: TestClient, routed: list[str]):
    table, tokens = _table(client)
    seat, view = _mover(client, table, tokens)
    body = command_body(_move(view), view["version"])
    routed.clear()
    fast = client.post(f"/tables/{table}/commands?view=true", headers=auth(tokens[seat]), json=body)
    assert fast.status_code == 200, fast.text
    assert routed == []
    assert fast.json()["view"] == client.get(f"/tables/{table}/view", headers=auth(tokens[seat])).json()
    slow = client.post(f"/tables/{table}/commands?view=1", headers=auth(tokens[seat]), json=body)  # "1": the route's to parse
    assert routed == [f"/tables/{table}/commands?view=1"]
    _same(fast, slow)
    plain = client.post(f"/tables/{table}/commands", headers=auth(tokens[seat]), json=body)  # no view asked
    assert plain.status_code == 200 and set(plain.json()) == {"table", "command_id", "version", "events"}


def test_what_is_not_plain_reaches_the_route(client: TestClient, routed: list[str]):
    table, tokens = _table(client)
    seat, view = _mover(client, table, tokens)
    body = command_body(_move(view), view["version"])
    path = f"/tables/{table}/commands?view=true"
    routed.clear()
    assert client.get(f"/tables/{table}/view").status_code == 401  # no token
    assert client.get(f"/tables/{table}/view", headers=auth("nope")).status_code == 401
    assert client.post(path, headers={**auth(tokens[seat]), "Origin": "https://elsewhere.example"}, json=body).status_code == 403
    assert client.post(path, headers={**auth(tokens[seat]), "Content-Type": "text/plain"}, content=b"{}").status_code == 415
    assert client.post(path, headers=auth(tokens[seat]), json={**body, "extra": 1}).status_code == 400
    assert client.post(path, headers=auth(tokens[seat]), json={**body, "version": view["version"] - 1}).status_code == 409
    other = next(s for s in tokens if s != seat)
    assert client.post(path, headers=auth(tokens[seat]), json={**body, "player": other}).status_code == 400  # not the token's seat
    assert len(routed) == 7  # every one answered by the route
    mine = {**body, "player": seat}  # a legal entry sent back as it is, its player the token's seat: plain
    r = client.post(path, headers={**auth(tokens[seat]), "Origin": "http://testserver.local"}, json=mine)  # the server's own origin
    assert r.status_code == 200, r.text
    assert len(routed) == 7


def test_a_refused_command_is_charged_once(tmp_path: Path, routed: list[str]):
    for client in _client(tmp_path, rate=0.001, burst=40):
        table, tokens = _table(client)  # the sits: one request of each seat's token
        seat, view = _mover(client, table, tokens)  # one more each
        stale = command_body(_move(view), view["version"] - 1)
        codes = [client.post(f"/tables/{table}/commands", headers=auth(tokens[seat]), json=stale).status_code for _ in range(40)]
        assert codes == [409] * 38 + [429, 429]  # 2 + 38 = 40 taken, then the bucket is empty (charged twice: 19)


def test_a_failed_fsync_is_a_503_that_says_so_alike_on_the_fast_answer_and_the_route(tmp_path: Path, routed: list[str]):
    """The fast answers wait for the fsync that covers them: when it fails, no 200 leaves and
    both answer the same JSON ``503 unavailable`` (never a bare 500, never "nothing was changed":
    the command may be stored), and the same command sent again once the disk is back tells
    its outcome."""
    for client in _client(tmp_path, raise_server_exceptions=False, rate=0):
        _failed_fsync(client, routed)


def _not_durable(r: Any) -> None:
    assert r.status_code == 503, (r.status_code, r.text)
    assert r.headers["content-type"] == "application/json"
    err = r.json()["error"]
    assert err["code"] == "unavailable"
    assert "fsync" in err["message"] and "same command id" in err["message"], err


def _failed_fsync(client: TestClient, routed: list[str]) -> None:
    table, tokens = _table(client)
    seat, view = _mover(client, table, tokens)
    body = command_body(_move(view), view["version"])
    group = client.app.state.durability.group
    assert group is not None  # a durable SQLite store: the group commit
    sync = group._sync

    def broken() -> None:
        raise OSError("the disk is gone")

    group._sync = broken
    routed.clear()
    fast = client.post(f"/tables/{table}/commands?view=true", headers=auth(tokens[seat]), json=body)
    assert routed == []
    slow = client.post(f"/tables/{table}/commands?view=1", headers=auth(tokens[seat]), json=body)  # its retry, through the route
    assert routed == [f"/tables/{table}/commands?view=1"]
    _not_durable(fast)
    _same(fast, slow)
    fast_view = client.get(f"/tables/{table}/view", headers=auth(tokens[seat]))  # the table's last commit is in the failed fsync
    slow_view = client.get(f"/tables/{table}/view?also=1", headers=auth(tokens[seat]))
    assert len(routed) == 2
    _not_durable(fast_view)
    _same(fast_view, slow_view)
    _not_durable(client.post(f"/tables/{table}/close", headers=auth(tokens[seat]), json={}))  # a route with no fast answer
    group._sync = sync  # the disk is back: the same command id answers the stored outcome
    again = client.post(f"/tables/{table}/commands?view=true", headers=auth(tokens[seat]), json=body)
    assert again.status_code == 200, again.text
    told = again.json()
    assert told["command_id"] == body["command_id"]  # the command the failed answer left in doubt: stored once
    assert told["events"][0]["seq"] == view["version"] + 1 and told["events"][0]["event"]["player"] == seat


def test_paths_the_router_normalises_reach_the_router(client: TestClient, routed: list[str]):
    table, tokens = _table(client)
    routed.clear()
    assert client.get(f"/tables/{table}/view/", headers=auth(tokens["ann"])).status_code == 200
    assert routed == [f"/tables/{table}/view/"]
    assert client.get(f"/tables/{table}/view", headers={**auth(tokens["ann"]), "Host": "bad host"}).status_code == 400  # the router's host check
    assert len(routed) == 2


def test_a_command_body_is_read_as_the_routes_safe_reader_reads_it(client: TestClient, routed: list[str]):
    """The fast answer decodes a command's body straight into its struct: a repeated key is
    read as the safe reader reads it (the last one), and a body the safe reader refuses (an
    integer of more than 30 digits) is the route's 400 even when its command id was applied."""
    table, tokens = _table(client)
    seat, view = _mover(client, table, tokens)
    body = command_body(_move(view), view["version"])
    path = f"/tables/{table}/commands?view=true"
    raw = json.dumps(body)
    twice = '{"command_id": "not this one", ' + raw[1:]  # the id sent first is overridden by the body's own
    routed.clear()
    fast = client.post(path, headers={**auth(tokens[seat]), "Content-Type": "application/json"}, content=twice.encode())
    assert fast.status_code == 200, fast.text
    assert routed == [] and fast.json()["command_id"] == body["command_id"]
    slow = client.post(f"/tables/{table}/commands?view=1", headers={**auth(tokens[seat]), "Content-Type": "application/json"}, content=twice.encode())
    _same(fast, slow)
    huge = json.dumps({**body, "version": 10**30}).encode()  # 31 digits: outside the safe reader's limits
    r = client.post(path, headers={**auth(tokens[seat]), "Content-Type": "application/json"}, content=huge)
    assert r.status_code == 400 and "digits" in r.json()["error"]["message"], r.text
    assert routed == [f"/tables/{table}/commands?view=1", path]
    edge = json.dumps({**body, "version": 10**30 - 1}).encode()  # 30 digits: read, a retry of the applied command
    again = client.post(path, headers={**auth(tokens[seat]), "Content-Type": "application/json"}, content=edge)
    assert len(routed) == 2  # answered here
    _same(again, slow)
