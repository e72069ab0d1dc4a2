"""The stream cookie is a second credential with one purpose: a ticket (not the seat token)
that opens only that seat's stream at that table, and expires.  Every other route of a
table takes the token only from ``Authorization: Bearer``."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import pytest

from tonk.storage import EventStore

from .conftest import Client, auth, command_body
from .sse import SSE

JSON = {"content-type": "application/json"}


def stored(server, table: str) -> tuple[int, int]:
    with EventStore.open(server.db) as store:
        closed = store.db.conn.execute("SELECT closed FROM served_tables WHERE game_id = ?", (table,)).fetchone()[0]
        return store.version(table), closed


def stored_hash(server, table: str, seat: str) -> str:
    with EventStore.open(server.db) as store:
        return store.db.conn.execute("SELECT token_hash FROM seat_tokens WHERE game_id = ? AND seat = ?", (table, seat)).fetchone()[0]


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def ticket(key_hex: str, table: str, seat: str, expiry: int) -> str:
    """A ticket made as docs/http-api.md describes it (the tests know the stored hash)."""
    mac = hmac.new(bytes.fromhex(key_hex), f"tonk-stream-v1\n{table}\n{seat}\n{expiry}".encode(), hashlib.sha256).digest()
    return f"{b64(seat.encode())}.{expiry}.{b64(mac)}"


def session(client: Client, table: dict, seat: str) -> tuple[str, str]:
    """``(cookie name, cookie value)`` of the seat's stream session."""
    r = client.http.post(f"/tables/{table['table']}/session", headers=auth(table["tokens"][seat]))
    assert r.status_code == 200, r.text
    name, _, value = r.headers["set-cookie"].split(";")[0].partition("=")
    return name, value


def stream_status(server, table: str, cookie: str) -> tuple[int | None, bytes]:
    s = SSE(f"{server.url}/tables/{table}/events", {"Cookie": cookie})
    s.close()
    return s.status, s.body


@pytest.fixture(scope="module")
def server(start_module_server):
    return start_module_server("--keepalive", "0.3")  # a closed stream is noticed at the next keep-alive


@pytest.fixture
def table(client: Client) -> dict:
    return client.create(seats=["ann", "bob"])


def test_the_cookie_is_a_scoped_expiring_ticket_not_the_token(server, client: Client, table: dict):
    tid, token = table["table"], table["tokens"]["ann"]
    r = client.http.post(f"/tables/{tid}/session", headers=auth(token))
    cookie = r.headers["set-cookie"]
    attributes = [a.strip().lower() for a in cookie.split(";")[1:]]
    assert "httponly" in attributes and "samesite=strict" in attributes and f"path=/tables/{tid}" in attributes
    assert "max-age=43200" in attributes  # 12 hours, as the docs say
    name, _, value = cookie.split(";")[0].partition("=")
    assert name == "tonk_stream_" + tid + "_" + b"ann".hex()
    digest = hashlib.sha256(token.encode()).hexdigest()
    assert token not in value and digest not in value and token not in r.text
    seat_part, expiry, mac = value.split(".")
    assert base64.urlsafe_b64decode(seat_part + "==") == b"ann"
    assert 0 < int(expiry) - time.time() <= 43200
    assert value == ticket(stored_hash(server, tid, "ann"), tid, "ann", int(expiry))
    s = SSE(f"{server.url}/tables/{tid}/events", {"Cookie": f"{name}={value}"})
    s.wait_for(lambda s: s.messages)
    assert s.messages[0]["event"] == "snapshot" and s.messages[0]["data"]["seat"] == "ann"
    s.close()


def test_the_cookie_opens_no_other_route_of_the_table(server, client: Client, table: dict):
    tid = table["table"]
    for seat, token in table["tokens"].items():
        v = client.view(tid, token).json()
        if v["legal"]:
            legal = command_body(v["legal"][0], v["version"])
            break
    cookie_for_mover = dict(zip(("name", "value"), session(client, table, seat)))
    jar = {"Cookie": f"{cookie_for_mover['name']}={cookie_for_mover['value']}"}
    before = stored(server, tid)
    answers = [
        client.http.get(f"/tables/{tid}/view", headers=jar),
        client.http.get(f"/tables/{tid}/receipts", headers=jar),
        client.http.post(f"/tables/{tid}/commands", headers={**jar, **JSON}, json=legal),
        client.http.post(f"/tables/{tid}/close", headers=jar),
        client.http.post(f"/tables/{tid}/session", headers=jar),
        # the cookie's value presented as a token is no token either
        client.http.get(f"/tables/{tid}/view", headers=auth(cookie_for_mover["value"])),
        client.http.post(f"/tables/{tid}/commands", headers=auth(cookie_for_mover["value"]), json=legal),
    ]
    for r in answers:
        assert r.status_code == 401, (r.request.url, r.status_code, r.text)
        assert r.json()["error"]["code"] == "unauthorized"
        assert cookie_for_mover["value"] not in r.text
        assert "set-cookie" not in r.headers
    assert stored(server, tid) == before
    assert client.act(tid, table["tokens"][seat], legal).status_code == 200  # the same command, with the token


def test_a_cookie_of_one_table_does_not_open_another(server, client: Client, table: dict):
    other = client.create(seats=["ann", "bob"])
    name, value = session(client, table, "ann")
    for cookie in (f"{name}={value}", f"tonk_stream_{other['table']}_{b'ann'.hex()}={value}"):
        status, body = stream_status(server, other["table"], cookie)
        assert status == 401, (status, body)
        assert value.encode() not in body


def test_an_expired_forged_or_altered_ticket_is_refused(server, client: Client, table: dict):
    tid = table["table"]
    name, good = session(client, table, "ann")
    key = stored_hash(server, tid, "ann")
    now = int(time.time())
    seat_part, expiry, mac = good.split(".")
    cases = {
        "expired": ticket(key, tid, "ann", now - 1),
        "another expiry under the same mac": f"{seat_part}.{int(expiry) + 3600}.{mac}",
        "another seat under ann's mac": f"{b64(b'bob')}.{expiry}.{mac}",
        "made with another key": ticket(hashlib.sha256(b"guess").hexdigest(), tid, "ann", now + 600),
        "the host": ticket(stored_hash(server, tid, "@host"), tid, "@host", now + 600),
        "not a ticket": "zq-not-a-ticket",  # no word of the answer (a table id is hex: "abc" can be in one)
        "the token itself": table["tokens"]["ann"],
    }
    for what, value in cases.items():
        status, body = stream_status(server, tid, f"{name}={value}")
        assert status == 401, (what, status, body)
        assert value.encode() not in body, what
        assert (b"expired" in body) == (what == "expired"), (what, body)
    assert stream_status(server, tid, f"{name}={ticket(key, tid, 'ann', now + 600)}")[0] == 200  # the same recipe, in date


def test_two_seats_in_one_browser_each_open_their_own_stream(server, client: Client, table: dict):
    """One browser holding two seats of a table (a shared device, a hot seat): each seat's
    session leaves its own cookie, and a stream names the seat it is for (``?seat=``), so a
    page reconnecting by its cookie never opens the other seat's stream (and its hand)."""
    tid = table["table"]
    jar = {}
    for seat in ("ann", "bob"):
        name, value = session(client, table, seat)
        jar[name] = value
    assert len(jar) == 2, f"the second seat's session replaced the first's cookie: {sorted(jar)}"
    cookie = "; ".join(f"{n}={v}" for n, v in jar.items())
    for seat in ("ann", "bob"):
        s = SSE(f"{server.url}/tables/{tid}/events?seat={seat}", {"Cookie": cookie})
        s.wait_for(lambda s: s.messages)
        s.close()
        assert s.messages[0]["event"] == "snapshot" and s.messages[0]["data"]["seat"] == seat
    # without naming the seat, two cookies are ambiguous: refused, not a guess
    status, body = stream_status(server, tid, cookie)
    assert status == 400 and b"?seat=" in body
    # a seat whose cookie the browser does not hold: 401, not the other seat's stream
    ann_only = next(f"{n}={v}" for n, v in jar.items() if session_seat(v) == "ann")
    s = SSE(f"{server.url}/tables/{tid}/events?seat=bob", {"Cookie": ann_only})
    s.close()
    assert s.status == 401


def test_a_seat_token_naming_another_seat_in_seat_opens_no_stream(server, client: Client, table: dict):
    """``?seat=`` names the seat a stream is for: with a seat's token in the header it must be
    that token's seat (``403`` otherwise), not answered with the token's own stream instead."""
    tid = table["table"]
    s = SSE(f"{server.url}/tables/{tid}/events?seat=bob", auth(table["tokens"]["ann"]))
    s.close()
    assert s.status == 403 and b"forbidden" in s.body and b"bob" in s.body, (s.status, s.body)
    s = SSE(f"{server.url}/tables/{tid}/events?seat=ann", auth(table["tokens"]["ann"]))
    s.wait_for(lambda s: s.messages)
    s.close()
    assert s.status == 200 and s.messages[0]["data"]["seat"] == "ann"


def session_seat(ticket_value: str) -> str:
    return base64.urlsafe_b64decode(ticket_value.split(".")[0] + "==").decode()
