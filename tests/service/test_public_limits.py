"""The routes without a token have limits: a rate per client address (``--public-rate``,
``--public-burst``), tables in play on the server (``--max-tables``) and tables in play one
address has created (``--max-tables-per-client``).  Over a limit: 429 or 503 with
``Retry-After`` and an error naming the limit; nothing stored.  A table that ends frees its slot.

The settings make each outcome certain whatever the machine's speed: a rate of 0.001 a
second refills one request in 1000 s."""

from __future__ import annotations

import random

import httpx

from tonk.storage import EventStore

from .conftest import Client, auth, play_until_over


def tables_stored(server) -> int:
    with EventStore.open(server.db) as store:
        return store.db.conn.execute("SELECT count(*) FROM served_tables").fetchone()[0]


def from_another_address(server) -> Client:
    """A client whose connections come from 127.0.0.2 (another address of the loopback network)."""
    c = Client(server.url)
    c.http = httpx.Client(base_url=server.url, timeout=30, transport=httpx.HTTPTransport(local_address="127.0.0.2"))
    return c


def refused(r, status: int, code: str, limit: str, setting: str) -> int:
    assert r.status_code == status, (r.status_code, r.text)
    err = r.json()["error"]
    assert (err["code"], err["limit"]) == (code, limit), err
    assert setting in err["message"], err
    retry = int(r.headers["retry-after"])
    assert retry == err["retry_after"] and retry >= 1
    return retry


def in_play(c: Client, **settings) -> dict:
    """A new table whose game is in play (a secure shuffle can end a one-hand game at its deal)."""
    for _ in range(20):
        created = c.create(seats=["ann", "bob"], **settings)
        if c.view(created["table"], created["tokens"]["ann"]).json()["status"] == "playing":
            return created
    raise AssertionError("20 tables in a row ended at their deal")


def test_an_address_over_the_public_rate_gets_429_and_nothing_is_stored(start_server):
    server = start_server("--public-rate", "0.001", "--public-burst", "3")
    c = Client(server.url)
    for _ in range(3):
        assert c.http.post("/tables", json={"seats": ["ann", "bob"]}).status_code == 201
    stored = tables_stored(server)
    created = c.http.post("/tables", json={"seats": ["ann", "bob"]})
    retry = refused(created, 429, "too_many_requests", "public_rate", "--public-rate 0.001")
    assert 900 <= retry <= 1000
    for r in (c.http.get("/tables"), c.http.post("/adjudicate", content=b"[]"), c.http.get("/variants"), c.http.get("/games/x/audit")):
        refused(r, 429, "too_many_requests", "public_rate", "--public-rate")
    assert tables_stored(server) == stored
    # the pages and /ping are not held
    assert c.http.get("/ping").status_code == 200 and c.http.get("/").status_code == 200
    # another address has its own bucket; the routes of a table go by its token's own limit
    table = from_another_address(server).create(seats=["ann", "bob"])
    assert c.view(table["table"], table["tokens"]["ann"]).status_code == 200
    assert tables_stored(server) == stored + 1


def test_an_address_over_its_tables_in_play_gets_429_until_one_ends(start_server):
    server = start_server("--max-tables-per-client", "2")
    c = Client(server.url)
    ending = in_play(c, hand_limit=1)
    in_play(c)
    stored = tables_stored(server)
    r = c.http.post("/tables", json={"seats": ["ann", "bob"]})
    assert refused(r, 429, "too_many_requests", "max_tables_per_client", "--max-tables-per-client 2") == 60
    assert tables_stored(server) == stored
    assert from_another_address(server).http.post("/tables", json={"seats": ["ann", "bob"]}).status_code == 201
    play_until_over(c, ending, random.Random(3))  # its game ends: the slot is free again
    assert c.http.post("/tables", json={"seats": ["ann", "bob"]}).status_code == 201
    refused(c.http.post("/tables", json={"seats": ["ann", "bob"]}), 429, "too_many_requests", "max_tables_per_client", "--max-tables-per-client")


def test_a_full_server_is_503_also_after_a_restart_until_a_game_ends(start_server):
    server = start_server("--max-tables", "2")
    c = Client(server.url)
    closing = in_play(c)
    in_play(c)
    stored = tables_stored(server)
    for who in (c, from_another_address(server)):
        r = who.http.post("/tables", json={"seats": ["ann", "bob"]})
        assert refused(r, 503, "unavailable", "max_tables", "--max-tables 2") == 60
    server.stop()
    server.start()  # the tables in play are counted again from the store
    refused(c.http.post("/tables", json={"seats": ["ann", "bob"]}), 503, "unavailable", "max_tables", "--max-tables 2")
    assert tables_stored(server) == stored
    r = c.http.post(f"/tables/{closing['table']}/close", headers=auth(closing["host_token"]))
    assert r.status_code == 200, r.text
    if r.json()["status"] != "ended":  # the game ends once the hand in play has ended
        play_until_over(c, closing, random.Random(5))
    assert c.http.post("/tables", json={"seats": ["ann", "bob"]}).status_code == 201
    assert tables_stored(server) == stored + 1
