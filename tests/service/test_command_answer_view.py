"""``POST /tables/{id}/commands?view=true``: the answer also holds the author seat's view right
after the command, exactly what its token's ``GET .../view`` answers then, and nothing of
another seat's; a whole game played with one request per command replays and audits clean."""

from __future__ import annotations

import json
import random

from .conftest import Client, auth, command_body, create_in_play, run_cli


def act_with_view(c: Client, table: str, token: str, body: dict, flag: str = "true"):
    return c.http.post(f"/tables/{table}/commands", params={"view": flag}, headers=auth(token), json=body)


def test_the_answer_holds_the_authors_view_exactly_as_its_get_and_no_other_seats(client: Client):
    # in play: the deck can end both hands before a person acts (an initial tonk, cy's knock)
    created = create_in_play(client, seats=["ann", "bob", "cy"], bots={"cy": "random"}, hand_limit=2)
    table, tokens = created["table"], created["tokens"]
    views = {s: client.view(table, t).json() for s, t in tokens.items()}
    mover = next(s for s, v in views.items() if v["legal"])
    other = next(s for s in tokens if s != mover)
    # a draw: the hand goes on (a knock, the first legal action, may end the hand or the game,
    # and an ended hand shows every hand to everyone)
    draw = next(a for a in views[mover]["legal"] if a["action"] == "draw_stock")
    body = command_body(draw, views[mover]["version"])
    r = act_with_view(client, table, tokens[mover], body)
    assert r.status_code == 200, r.text
    answer = r.json()
    assert set(answer) == {"table", "command_id", "version", "events", "view"}
    got = client.view(table, tokens[mover]).json()
    assert answer["view"] == got  # the author's own view, as its GET answers it
    assert answer["view"]["seat"] == mover and answer["view"]["version"] == answer["version"]
    others = client.view(table, tokens[other]).json()
    # the other person's hand is in its own view only, never in the author's answer
    assert others["view"]["hand"] and json.dumps(others["view"]["hand"], separators=(",", ":")) not in r.text
    # a retry of the same command id: the same events, and the view as it is now
    again = act_with_view(client, table, tokens[mover], body)
    assert again.status_code == 200
    assert again.json()["events"] == answer["events"] and again.json()["view"] == client.view(table, tokens[mover]).json()


def test_without_the_parameter_the_answer_has_no_view(client: Client):
    created = client.create(seats=["ann", "bob"])
    table, tokens = created["table"], created["tokens"]
    views = {s: client.view(table, t).json() for s, t in tokens.items()}
    mover = next(s for s, v in views.items() if v["legal"])
    r = client.act(table, tokens[mover], command_body(views[mover]["legal"][0], views[mover]["version"]))
    assert r.status_code == 200 and set(r.json()) == {"table", "command_id", "version", "events"}
    views = {s: client.view(table, t).json() for s, t in tokens.items()}
    mover = next((s for s, v in views.items() if v["legal"]), None)
    if mover is not None:  # (the hand may have ended at that command)
        r = act_with_view(client, table, tokens[mover], command_body(views[mover]["legal"][0], views[mover]["version"]), flag="false")
        assert r.status_code == 200 and "view" not in r.json()


def test_a_view_parameter_that_is_not_a_boolean_is_a_400_naming_it(client: Client):
    created = client.create(seats=["ann", "bob"])
    table, tokens = created["table"], created["tokens"]
    views = {s: client.view(table, t).json() for s, t in tokens.items()}
    mover = next(s for s, v in views.items() if v["legal"])
    r = act_with_view(client, table, tokens[mover], command_body(views[mover]["legal"][0], views[mover]["version"]), flag="maybe")
    assert r.status_code == 400 and "(view)" in r.json()["error"]["message"]
    assert client.view(table, tokens[mover]).json()["version"] == views[mover]["version"]  # nothing applied


def test_a_refused_command_answers_its_error_and_no_view(client: Client):
    created = client.create(seats=["ann", "bob"])
    table, tokens = created["table"], created["tokens"]
    views = {s: client.view(table, t).json() for s, t in tokens.items()}
    mover = next(s for s, v in views.items() if v["legal"])
    stale = command_body(views[mover]["legal"][0], views[mover]["version"] - 1)
    r = act_with_view(client, table, tokens[mover], stale)
    assert r.status_code == 409 and set(r.json()) == {"error"}
    assert "hand" not in r.text


def test_a_game_played_with_one_request_per_command_audits_clean(server, client: Client):
    """Each seat reads its view once when the turn passes to it; every other next step comes
    from the answer of its own command."""
    # in play: the deck can end both hands before a person acts (then no command is sent)
    created = create_in_play(client, seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=2)
    table, tokens = created["table"], created["tokens"]
    rng = random.Random(3)
    views = {s: client.view(table, t).json() for s, t in tokens.items()}
    seat = next((s for s, v in views.items() if v["legal"]), "ann")
    view = views[seat]
    gets = commands = 0
    for _ in range(5000):
        if view["status"] == "ended":
            break
        if view["view"]["to_act"] != seat:
            seat = view["view"]["to_act"]
            view = client.view(table, tokens[seat]).json()
            gets += 1
            continue
        r = act_with_view(client, table, tokens[seat], command_body(rng.choice(view["legal"]), view["version"]))
        assert r.status_code == 200, r.text
        commands += 1
        view = r.json()["view"]
    # a GET only where the turn passed to another seat, each followed by that seat's command(s);
    # how many turns pass is the fair deal's deck (a hand may end at once on one seat's knock)
    assert view["status"] == "ended" and commands > 0 and commands >= gets
    audit = run_cli("--db", str(server.db), "audit", table, "--json")
    assert json.loads(audit.stdout)["summary"]["clean"] == 1
