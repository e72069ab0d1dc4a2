"""``service/fast_path.py``: the plain view and command requests are answered without Litestar's
route (its ``HTTPRoute.handle`` is not called for them), with the very bytes and headers the
route answers; everything else reaches the route, which answers as always; a command the table
refuses is charged once to the token's rate limit, not twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from litestar.routes.http import HTTPRoute
from litestar.testing import TestClient


from tonk.service.app import ServiceConfig, create_app

from ..support.seating import httpx_post, sit_everyone
from .conftest import auth, command_body


@pytest.fixture
def routed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths (with their query) that reached a Litestar route, from the next app built on."""
    seen: list[str] = []
    handle = HTTPRoute.handle

    async def counted(self: HTTPRoute, scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["path"] + ("?" + scope["query_string"].decode() if scope.get("query_string") else ""))
        await handle(self, scope, receive, send)

    monkeypatch.setattr(HTTPRoute, "handle", counted)
    return seen


def _client(tmp_path: Path, **config: Any) -> Iterator[TestClient]:
    with TestClient(create_app(ServiceConfig(db=str(tmp_path / "t.db"), public_rate=0, **config))) as client:
        yield client


@pytest.fixture
def client(tmp_path: Path, routed: list[str]) -> Iterator[TestClient]:
    yield from _client(tmp_path, rate=0)


def _table(client: TestClient) -> tuple[str, dict[str, str]]:
    r = client.post("/tables", json={"seats": ["ann", "bob", "cy"], "bots": {"cy": "random"}, "hand_limit": 3})
    assert r.status_code == 201, r.text
    created = sit_everyone(httpx_post(client), r.json())
    return created["table"], created["tokens"]


def _mover(client: TestClient, table: str, tokens: dict[str, str]) -> tuple[str, dict[str, Any]]:
    views = {s: client.get(f"/tables/{table}/view", headers=auth(t)).json() for s, t in tokens.items()}
    return next((s, v) for s, v in views.items() if v["legal"])


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
    body = command_body(view["legal"][0], view["version"])
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
    body = command_body(view["legal"][0], view["version"])
    path = f"/tables/{table}/commands?view=true"
    routed.clear()
    assert client.get(f"/tables/{table}/view").status_code == 401  # no token
    assert client.get(f"/tables/{table}/view", headers=auth("nope")).status_code == 401
    assert client.post(path, headers={**auth(tokens[seat]), "Origin": "https://elsewhere.example"}, json=body).status_code == 403
    assert client.post(path, headers={**auth(tokens[seat]), "Content-Type": "text/plain"}, content=b"{}").status_code == 415
    assert client.post(path, headers=auth(tokens[seat]), json={**body, "extra": 1}).status_code == 400
    assert client.post(path, headers=auth(tokens[seat]), json={**body, "version": view["version"] - 1}).status_code == 409
    assert len(routed) == 6  # every one answered by the route
    r = client.post(path, headers={**auth(tokens[seat]), "Origin": "http://testserver.local"}, json=body)  # the server's own origin
    assert r.status_code == 200, r.text
    assert len(routed) == 6


def test_a_refused_command_is_charged_once(tmp_path: Path, routed: list[str]):
    for client in _client(tmp_path, rate=0.001, burst=40):
        table, tokens = _table(client)  # the sits: one request of each seat's token
        seat, view = _mover(client, table, tokens)  # one more each
        stale = command_body(view["legal"][0], view["version"] - 1)
        codes = [client.post(f"/tables/{table}/commands", headers=auth(tokens[seat]), json=stale).status_code for _ in range(40)]
        assert codes == [409] * 38 + [429, 429]  # 2 + 38 = 40 taken, then the bucket is empty (charged twice: 19)
