"""The host's rematch over HTTP, against a real ``tonk serve``: only the host, only once the
game has ended, once; the new game has the same seats and rules; each seat gets only its own
new token, through its own view of the ended table; the caps on tables in play apply."""

from __future__ import annotations

import json
import random

from tonk.storage import EventStore

from .conftest import Client, auth, play_until_over

SETTINGS = {
    "seats": ["ann", "bob", "cy"],
    "bots": {"cy": "greedy"},
    "variants": ["hit-penalty"],
    "options": {"base_stake": 3, "turns_per_hit": 2},
    "hand_limit": 1,
    "turn_timer": 600,
}


def ended(c: Client, **settings) -> dict:
    created = c.create(**(settings or SETTINGS))
    play_until_over(c, created, random.Random(7))
    return created


def rematch(c: Client, table: str, token: str):
    return c.http.post(f"/tables/{table}/rematch", headers=auth(token))


def test_only_the_host_starts_a_rematch_only_once_the_game_has_ended_and_only_once(client: Client):
    playing = client.create(seats=["ann", "bob"])
    r = rematch(client, playing["table"], playing["host_token"])
    assert r.status_code == 409 and "still in play" in r.json()["error"]["message"], r.text
    done = ended(client)
    table = done["table"]
    assert rematch(client, table, done["tokens"]["ann"]).status_code == 403
    assert rematch(client, table, "not-a-token").status_code == 401
    assert client.http.post(f"/tables/{table}/rematch").status_code == 401
    assert rematch(client, "no-such-table", done["host_token"]).status_code == 404
    r = rematch(client, table, done["host_token"])
    assert r.status_code == 201, r.text
    answer = r.json()
    assert set(answer) == {"table", "version", "host_token", "rematch_of", "commitment", "server_seed_hash", "status"}  # no seat's token
    # a new game, a new server seed: it waits for every person to sit down again
    assert answer["status"] == "waiting" and answer["commitment"] is None and len(answer["server_seed_hash"]) == 64
    assert answer["rematch_of"] == table and answer["table"] != table
    assert done["host_token"] not in r.text and not any(t in r.text for t in done["tokens"].values())
    again = rematch(client, table, done["host_token"])
    assert again.status_code == 409 and answer["table"] in again.json()["error"]["message"]
    listed = {t["table"]: t for t in client.http.get("/tables").json()["tables"]}
    assert listed[table]["rematch"] == answer["table"] and listed[answer["table"]]["rematch_of"] == table
    # the new host token is the new table's host's, the old one is not
    new = answer["table"]
    assert client.http.post(f"/tables/{new}/close", headers=auth(done["host_token"])).status_code == 401
    assert client.http.post(f"/tables/{new}/close", headers=auth(answer["host_token"])).status_code == 200


def test_each_seat_gets_only_its_own_new_token_through_its_own_view(client: Client):
    done = ended(client)
    table, tokens = done["table"], done["tokens"]
    before = client.view(table, tokens["ann"]).json()
    assert before["rematch"] is None
    new = rematch(client, table, done["host_token"]).json()["table"]
    links = {seat: client.view(table, tok).json()["rematch"] for seat, tok in tokens.items()}
    assert {link["table"] for link in links.values()} == {new}
    mine = {seat: link["token"] for seat, link in links.items()}
    assert len(set(mine.values())) == 2 and not set(mine.values()) & set(tokens.values())
    for seat, token in mine.items():  # each new token opens its own seat at the new table, and only it
        v = client.view(new, token)
        assert v.status_code == 200 and v.json()["seat"] == seat, v.text
    for token in tokens.values():  # the old tokens open nothing there
        assert client.view(new, token).status_code == 401
    # the rematch deals once each seat has sat down there with its new token and a new seed
    assert client.view(new, mine["ann"]).json()["status"] == "waiting"
    client.sit_all({"table": new}, mine)
    assert client.view(new, mine["ann"]).json()["status"] in ("playing", "ended")
    assert client.view(new, done["host_token"]).status_code == 401
    # asked again, the same token (recorded once); the host reads no seat's view
    assert client.view(table, tokens["ann"]).json()["rematch"]["token"] == mine["ann"]
    assert client.view(table, done["host_token"]).status_code == 403
    # nothing public names a token: the listing, the spectators' snapshot
    public = client.http.get("/tables").text
    assert not [t for t in mine.values() if t in public]


def test_a_seat_not_yet_asking_has_no_token_at_the_rematch_and_a_stream_names_it_without_one(client: Client, server):
    done = ended(client)
    table, tokens = done["table"], done["tokens"]
    new = rematch(client, table, done["host_token"]).json()["table"]
    with EventStore.open(server.db, create=False) as store:
        seats = {seat for seat, _ in store.seat_tables().token_hashes(new)}
    assert seats == {"@host"}  # no seat's token until the seat asks with its own
    session = client.http.post(f"/tables/{table}/session", headers=auth(tokens["bob"]))
    assert session.status_code == 200
    with client.http.stream("GET", f"/tables/{table}/events", cookies=session.cookies) as r:
        first = next(line for line in r.iter_lines() if line.startswith("data: "))
    assert json.loads(first[len("data: ") :])["rematch"] == {"table": new, "token": None}


def test_the_rematch_has_the_same_seats_and_rules(client: Client, server):
    done = ended(client)
    new = rematch(client, done["table"], done["host_token"]).json()["table"]
    with EventStore.open(server.db, create=False) as store:
        old_start, new_start = store.read(done["table"])[0], store.read(new)[0]
        old_settings, new_settings = store.seat_tables().settings(done["table"]), store.seat_tables().settings(new)
    assert list(new_start.players) == list(old_start.players) == ["ann", "bob", "cy"]
    assert new_start.ruleset == old_start.ruleset
    assert list(new_start.ruleset.variants) == ["hit-penalty"] and new_start.ruleset.options["base_stake"] == 3

    old, fresh = json.loads(old_settings), json.loads(new_settings)
    assert old.pop("rematch") == new and fresh.pop("rematch_of") == done["table"]
    # the fair deal's secrets kept beside the settings are the game's own: a new server seed, no seat sat yet
    assert old.pop("server_seed") != fresh.pop("server_seed") and set(old.pop("client_seeds")) == {"ann", "bob"} and "client_seeds" not in fresh
    assert old == fresh
    token = client.view(done["table"], done["tokens"]["bob"]).json()["rematch"]["token"]
    v = client.view(new, token).json()
    assert (v["seat"], v["hand_limit"], v["turn_timer"], v["bots"]) == ("bob", 1, 600, {"cy": "greedy"})


def test_a_rematch_counts_as_a_table_in_play(start_server):
    server = start_server("--max-tables-per-client", "1")
    c = Client(server.url)
    done = ended(c, seats=["ann", "bob"], bots={"bob": "greedy"}, hand_limit=1)  # its slot is free again
    c.create(seats=["ann", "bob"])  # the one table this client may have in play
    r = rematch(c, done["table"], done["host_token"])
    assert r.status_code == 429 and r.json()["error"]["limit"] == "max_tables_per_client", r.text
    assert c.view(done["table"], done["tokens"]["ann"]).json()["rematch"] is None  # nothing started
