"""Every route that reads a body reads it with the CLI's safe JSON reader (tonk.core.safe_json):
deep nesting, huge integers and NaN are a 400 naming the problem, never a 500, on
``POST /tables``, ``/commands``, ``/close``, ``/session`` and ``/adjudicate``; nothing stored changes."""

from __future__ import annotations

import pytest

from tonk.storage import EventStore

from .conftest import Client, auth

ROUTES = ["tables", "commands", "close", "session", "adjudicate"]
JSON = {"content-type": "application/json"}


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def stored(server) -> tuple[int, list]:
    """Everything a request could change: the events stored and the served tables' records."""
    with EventStore.open(server.db) as store:
        events = store.last_position()
        tables = store.db.conn.execute("SELECT game_id, settings, closed FROM served_tables ORDER BY rowid").fetchall()
    return events, tables


@pytest.fixture(scope="module")
def server(start_module_server):
    # some 70 requests to the routes without a token, one after another: no public rate here
    return start_module_server("--public-rate", "0")


@pytest.fixture(scope="module")
def table(client: Client) -> dict:
    return client.create(seats=["ann", "bob"])


def post(client: Client, table: dict, route: str, body: bytes):
    tid = table["table"]
    token = table["host_token"] if route == "close" else table["tokens"]["ann"]
    path = {"tables": "/tables", "adjudicate": "/adjudicate"}.get(route, f"/tables/{tid}/{route}")
    headers = JSON if route in ("tables", "adjudicate") else {**JSON, **auth(token)}
    return client.http.post(path, content=body, headers=headers)


def assert_400(r, *words: str) -> str:
    assert r.status_code == 400, (r.status_code, r.text[:300])
    err = r.json()["error"]
    assert err["code"] == "bad_request", err
    assert set(r.json()) == {"error"}
    for w in words:
        assert w in err["message"], err
    return err["message"]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("depth", [63, 64, 65, 964, 10_000, 30_000])
def test_deep_json_is_a_400_naming_the_nesting_past_64_levels(server, client: Client, table: dict, route: str, depth: int):
    before = stored(server)
    for body in (nested(depth), b'{"action": "knock", "version": 1, "command_id": "x", "cards": ' + nested(depth - 1) + b"}"):
        assert len(body) <= 64 * 1024
        r = post(client, table, route, body)
        if route == "adjudicate" and r.status_code == 200:
            # as tonk adjudicate: the body is a case or a list of cases, each read (within the limits) and
            # answered on its own; a case that is not a hand record is an error case
            assert depth <= 65
            assert [c["status"] for c in r.json()["cases"]] == ["error"]
            continue
        message = assert_400(r)
        assert ("nesting deeper than 64 levels" in message) == (depth > 64), message
    r = post(client, table, "session", nested(depth))
    assert "set-cookie" not in r.headers
    assert stored(server) == before


@pytest.mark.parametrize("route", ROUTES)
def test_json_nested_100000_deep_is_refused_by_the_body_limit(server, client: Client, table: dict, route: str):
    before = stored(server)
    r = post(client, table, route, nested(100_000))
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large", r.text[:300]
    assert stored(server) == before


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    "body, words",
    [
        (b'{"action": "knock", "version": 1234567890123456789012345678901234567890, "command_id": "x"}', ["an integer of 40 digits"]),
        (b'{"action": "knock", "version": NaN, "command_id": "x"}', ["NaN is not a JSON number"]),
        (b'{"seats": ["a", "b"], "options": {"base_stake": Infinity}}', ["Infinity is not a JSON number"]),
        (b'{"seats": ["a", "b"], "options": {"base_stake": 1e999}}', ["out of range"]),
    ],
)
def test_huge_numbers_and_nan_are_a_400_naming_them(server, client: Client, table: dict, route: str, body: bytes, words: list[str]):
    before = stored(server)
    assert_400(post(client, table, route, body), *words)
    assert stored(server) == before


@pytest.mark.parametrize("route", ROUTES)
def test_a_lone_surrogate_is_a_400_naming_it_never_a_500(server, client: Client, table: dict, route: str):
    """A string escape ``\\ud800`` that pairs with no other is no text: a hand record's title
    holding one made ``POST /adjudicate`` a 500 (its answer could not be encoded)."""
    before = stored(server)
    assert_400(post(client, table, route, b'{"seats": ["a", "b"], "title": "x\\ud800"}'), "lone surrogate U+D800")
    assert stored(server) == before


@pytest.mark.parametrize("route", ["close", "session"])
def test_close_and_session_take_no_fields(server, client: Client, table: dict, route: str):
    before = stored(server)
    assert_400(post(client, table, route, b'{"seat": "bob"}'), "unknown field", "seat")
    assert stored(server) == before


@pytest.mark.parametrize("route", ["tables", "commands"])
def test_a_missing_body_is_a_400_saying_so(server, client: Client, table: dict, route: str):
    before = stored(server)
    assert_400(post(client, table, route, b""), "needs a JSON body")
    assert stored(server) == before
