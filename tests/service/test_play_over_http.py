"""Two people and a bot play whole hands over HTTP against a real ``tonk serve``; the game
then replays and audits clean with the CLI, and the HTTP replay/audit/adjudicate answers
are the CLI's JSON byte for byte."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tonk.storage import EventStore

from .conftest import Client, play_until_over, run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_two_people_and_a_bot_play_whole_hands_that_replay_and_audit_clean(server, client: Client):
    # the deck decides whether the people and the bot get a turn at all (every hand can end
    # before one: an initial tonk, a knock before the bot's turn): a game where both the people
    # and the bot played is looked for, at 10 tables at most
    for _ in range(10):
        created = client.create(seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=3, options={"base_stake": 2})
        assert set(created["tokens"]) == {"ann", "bob"}  # the bot's seat has no token
        sent = play_until_over(client, created, random.Random(7))
        gid = created["table"]
        with EventStore.open(server.db) as store:
            events = store.read(gid)
            assert store.verify(gid) == []
        if sent > 0 and any(getattr(e, "player", None) == "cy" for e in events[2:]):  # the bot played
            break
    else:
        raise AssertionError("at 10 tables in a row the people or the bot never played")
    kinds = [type(e).__name__ for e in events]
    assert kinds.count("HandEnded") == 3 and kinds[-1] == "GameEnded"
    dealt = [e for e in events if type(e).__name__ == "HandDealt"]
    assert all(d.commitment_scheme == "sha256-salted" and len(d.salt) == 64 for d in dealt)
    assert len({d.salt for d in dealt}) == len(dealt)

    audit = run_cli("--db", str(server.db), "audit", gid, "--json")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert json.loads(audit.stdout)["summary"] == {"games": 1, "clean": 1, "with_findings": 0, "errors": 0}
    replay = run_cli("--db", str(server.db), "replay", gid, "--json")
    assert replay.returncode == 0, replay.stderr

    r = client.http.get(f"/games/{gid}/audit")
    assert r.status_code == 200 and r.text == audit.stdout
    r = client.http.get(f"/games/{gid}/replay")
    assert r.status_code == 200 and r.text == replay.stdout
    as_bob = run_cli("--db", str(server.db), "replay", gid, "--json", "--as", "bob")
    r = client.http.get(f"/games/{gid}/replay", params={"as": "bob"})
    assert r.status_code == 200 and r.text == as_bob.stdout


def test_a_replay_as_no_player_is_400_as_the_cli_refuses_it_the_empty_name_too(server, client: Client):
    created = client.create(seats=["ann", "bob"], hand_limit=1)
    play_until_over(client, created, random.Random(3))
    gid = created["table"]
    for name in ("zed", ""):
        cli = run_cli("--db", str(server.db), "replay", gid, "--json", "--as", name)
        assert cli.returncode != 0 and f"{name!r} is not a player" in cli.stderr, cli.stderr
        r = client.http.get(f"/games/{gid}/replay", params={"as": name})
        assert r.status_code == 400, (name, r.status_code, r.text[:200])
        assert r.json()["error"]["code"] == "bad_request" and f"{name!r} is not a player" in r.json()["error"]["message"]
    assert client.http.get(f"/games/{gid}/replay").json()["viewer"] == "*"  # without ?as=: the auditor's


def test_replay_and_audit_wait_for_the_game_to_end(client: Client):
    created = client.create(seats=["ann", "bob"])
    for route in ("replay", "audit"):
        r = client.http.get(f"/games/{created['table']}/{route}")
        assert r.status_code == 409
        assert "still in play" in r.json()["error"]["message"]
    r = client.http.get("/games/no-such-game/audit")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


VARIANT_SETTLEMENTS = EXAMPLES.parent / "tests" / "core" / "fixtures" / "variant-settlements.json"


@pytest.mark.parametrize("path", [EXAMPLES / "disputed-hands.json", VARIANT_SETTLEMENTS], ids=["disputed-hands", "variant-settlements"])
def test_adjudicate_answers_exactly_what_the_cli_prints(client: Client, path: Path):
    cli = run_cli("adjudicate", str(path), "--json")
    assert cli.returncode in (0, 1), cli.stderr
    r = client.http.post("/adjudicate", content=path.read_bytes())
    assert r.status_code == 200
    assert r.text == cli.stdout
    # the rules that settled each verdict under its house rules come along (docs/cli-json.md)
    assert all("end_rule" in v and "payment_rules" in v for v in r.json()["cases"])


def test_adjudicate_refuses_a_body_that_is_not_json(client: Client):
    r = client.http.post("/adjudicate", content=b"{not json")
    assert r.status_code == 400
    assert "not valid JSON" in r.json()["error"]["message"]


def test_the_openapi_document_describes_the_routes_and_bodies(client: Client):
    r = client.http.get("/schema/openapi.json")
    assert r.status_code == 200
    doc = r.json()
    for path in ("/tables", "/tables/{table_id}/view", "/tables/{table_id}/commands", "/tables/{table_id}/close", "/tables/{table_id}/events", "/games/{game_id}/audit", "/adjudicate"):
        assert path in doc["paths"], path
    schemas = doc["components"]["schemas"]
    assert {"TableSettings", "CommandRequest", "SeatView", "CommandResult", "CreatedTable", "PlayerView"} <= set(schemas)
    listed = client.http.get("/tables").json()["tables"]
    assert all({"table", "players", "status", "version"} <= set(t) for t in listed)
