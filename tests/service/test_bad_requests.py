"""Wrong tokens, bad bodies, stale versions, retries, out-of-turn and ended-game commands:
each a clear 4xx JSON error naming the problem, never a 500, and nothing stored changes."""

from __future__ import annotations

import random
import uuid

import pytest

from tonk.storage import EventStore

from .conftest import Client, auth, command_body, play_until_over


def stored_version(server, table: str) -> int:
    with EventStore.open(server.db) as store:
        return store.version(table)


def error_of(r, status: int, code: str, *words: str) -> dict:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    err = r.json()["error"]
    assert err["code"] == code, err
    for w in words:
        assert w in err["message"], err
    return err


@pytest.fixture(scope="module")
def server(start_module_server):
    # each test sits at its own table (some 20, left in play): past the default
    # --max-tables-per-client, and near --public-burst
    return start_module_server("--max-tables-per-client", "0", "--public-rate", "0")


@pytest.fixture
def table(client: Client) -> dict:
    return client.create(seats=["ann", "bob", "cy"], bots={"cy": "random"})


def mover(client: Client, table: dict) -> tuple[str, dict]:
    for seat, tok in table["tokens"].items():
        v = client.view(table["table"], tok).json()
        if v["legal"]:
            return seat, v
    raise AssertionError("nobody to act")


def test_missing_wrong_and_foreign_tokens_get_401_and_change_nothing(server, client: Client, table: dict):
    tid = table["table"]
    other = client.create(seats=["x", "y"])
    before = stored_version(server, tid)
    seat, v = mover(client, table)
    body = command_body(v["legal"][0], v["version"])
    for headers in ({}, auth("not-a-token"), auth(other["tokens"]["x"]), {"Authorization": "Basic abc"}):
        for r in (client.http.get(f"/tables/{tid}/view", headers=headers), client.http.post(f"/tables/{tid}/commands", headers=headers, json=body)):
            err = error_of(r, 401, "unauthorized")
            assert "token" in err["message"]
            assert r.headers["www-authenticate"].startswith("Bearer")
    assert stored_version(server, tid) == before


def test_the_host_token_cannot_play_and_a_seat_token_cannot_close(server, client: Client, table: dict):
    tid = table["table"]
    before = stored_version(server, tid)
    seat, v = mover(client, table)
    r = client.act(tid, table["host_token"], command_body(v["legal"][0], v["version"]))
    error_of(r, 403, "forbidden", "host token")
    error_of(client.view(tid, table["host_token"]), 403, "forbidden")
    r = client.http.post(f"/tables/{tid}/close", headers=auth(table["tokens"][seat]))
    error_of(r, 403, "forbidden", "host")
    assert stored_version(server, tid) == before


@pytest.mark.parametrize(
    "content, words",
    [
        (b"{not json", ["malformed"]),
        (b'{"action": "knock", "version": "one", "command_id": "a"}', ["Expected `int`", "version"]),
        (b'{"action": "knock", "version": 1, "command_id": "a", "sneaky": 1}', ["unknown field", "sneaky"]),
        (b'{"action": "knock", "version": 1}', ["command_id"]),
        (b"[]", ["Expected `object`"]),
    ],
)
def test_bad_bodies_are_400_naming_the_problem(server, client: Client, table: dict, content: bytes, words: list[str]):
    tid = table["table"]
    before = stored_version(server, tid)
    seat, _ = mover(client, table)
    r = client.http.post(f"/tables/{tid}/commands", headers={**auth(table["tokens"][seat]), "content-type": "application/json"}, content=content)
    error_of(r, 400, "bad_request", *words)
    assert stored_version(server, tid) == before


def test_bad_table_settings_are_400_naming_the_setting(client: Client):
    cases = [
        ({"seats": ["a"]}, "this ruleset seats 2 to 3 players, not 1"),
        ({"seats": ["a", "b", "c", "d"]}, "this ruleset seats 2 to 3 players, not 4"),
        ({"seats": ["a", "b"], "bots": {"a": "greedy", "b": "random"}}, "played by a person"),
        ({"seats": ["a", "b"], "bots": {"c": "greedy"}}, "'c' is not one of the seats"),
        ({"seats": ["a", "b"], "bots": {"b": "psychic"}}, "'psychic'"),
        ({"seats": ["a", "a"]}, "different player name"),
        ({"seats": ["a", "b"], "variants": ["no-such-rule"]}, "no-such-rule"),
        ({"seats": ["a", "b"], "options": {"base_stake": "lots"}}, "base_stake"),
        ({"seats": ["a", "b"], "turn_timer": 0}, "turn_timer"),
        ({"seats": ["a", "b"], "turn_timer": 5, "stand_in": "psychic"}, "stand_in: 'psychic'"),
        ({"seats": ["a", "b"], "colour": "red"}, "colour"),
        ({"seats": "ab"}, "seats"),
    ]
    for settings, words in cases:
        r = client.http.post("/tables", json=settings)
        error_of(r, 400, "bad_request", words)


@pytest.mark.parametrize(
    "settings, field, sent",
    [
        ({"seats": ["a", "b"], "hand_limit": "2"}, "hand_limit", "str"),
        ({"seats": ["a", "b"], "hand_limit": 2.0}, "hand_limit", "float"),
        ({"seats": ["a", "b"], "turn_timer": "30"}, "turn_timer", "str"),
        ({"seats": ["a", "b"], "turn_timer": 30, "sit_deadline": "60"}, "sit_deadline", "str"),
    ],
)
def test_a_setting_of_the_wrong_json_type_is_400_and_creates_no_table(client: Client, settings: dict, field: str, sent: str):
    """A number sent as text (or an integer as ``2.0``) is a wrong type, as the API defines
    the body: not read as the number it spells (Litestar's lenient conversion did)."""
    before = len(client.http.get("/tables").json()["tables"])
    err = error_of(client.http.post("/tables", json=settings), 400, "bad_request", field, f"got `{sent}`")
    assert "POST /tables" in err["message"]
    assert len(client.http.get("/tables").json()["tables"]) == before


@pytest.mark.parametrize("version", [str, float])
def test_a_command_whose_version_is_not_a_json_integer_is_400_and_applies_nothing(server, client: Client, table: dict, version):
    tid = table["table"]
    seat, v = mover(client, table)
    body = {**command_body(v["legal"][0], v["version"]), "version": version(v["version"])}
    for path in (f"/tables/{tid}/commands", f"/tables/{tid}/commands?view=true"):
        r = client.http.post(path, headers=auth(table["tokens"][seat]), json=body)
        error_of(r, 400, "bad_request", "Expected `int`", "version")
    assert stored_version(server, tid) == v["version"]


@pytest.mark.parametrize(
    "options, words",
    [
        ("[" * 3000, ["nesting deeper than 64 levels"]),
        ("[" * 3000 + "]" * 3000, ["nesting deeper than 64 levels"]),
        ('{"jokers": ' + "9" * 40 + "}", ["an integer of 40 digits"]),
        ('{"jokers": NaN}', ["NaN is not a JSON number"]),
        ("{not json", ["a JSON object of ruleset options"]),
        ("[1]", ["a JSON object of ruleset options"]),
    ],
)
def test_deck_options_are_read_within_the_json_limits_a_400_never_a_500(client: Client, options: str, words: list[str]):
    """``GET /deck?options=JSON`` reads its JSON as the bodies are read (``tonk.core.safe_json``):
    nesting 3000 deep was a RecursionError, a 500."""
    error_of(client.http.get("/deck", params={"options": options}), 400, "bad_request", *words)


def test_a_table_seats_at_most_12_names_whatever_its_ruleset_allows(client: Client):
    """docs/http-api.md: ``seats`` are 2 to 12 names; a ruleset may seat more (``more-players``
    up to 25), a served table does not."""
    rules = {"variants": ["more-players", "cards-per-player"], "options": {"max_players": 20, "cards_per_player": 2}}
    names = [f"p{i}" for i in range(13)]
    error_of(client.http.post("/tables", json={"seats": names, **rules}), 400, "bad_request", "2 to 12", "not 13")
    r = client.http.post("/tables", json={"seats": names[:12], **rules})
    assert r.status_code == 201, r.text


def test_a_body_over_the_limit_is_413(client: Client, table: dict):
    r = client.http.post("/tables", content=b'{"seats": ["' + b"a" * 100_000 + b'"]}', headers={"content-type": "application/json"})
    error_of(r, 413, "too_large")


def test_unknown_tables_and_routes_are_404(client: Client):
    error_of(client.view("no-such-table", "tok"), 404, "not_found", "no-such-table")
    error_of(client.http.get("/nowhere"), 404, "not_found", "/nowhere")
    error_of(client.http.delete("/tables"), 405, "method_not_allowed")


def test_a_stale_version_is_409_with_the_current_version(server, client: Client, table: dict):
    tid = table["table"]
    seat, v = mover(client, table)
    r = client.act(tid, table["tokens"][seat], command_body(v["legal"][0], v["version"] - 1))
    err = error_of(r, 409, "conflict", "stale")
    assert err["current_version"] == v["version"] == stored_version(server, tid)


def test_a_legal_entry_sent_back_as_it_is_is_played_and_one_naming_another_seat_is_400(server, client: Client, table: dict):
    """The view's ``legal`` entries name the player; a client may send one back as it is (with
    ``version`` and ``command_id``). The seat is the token's: another seat's name is a 400 that
    applies nothing."""
    tid = table["table"]
    seat, v = mover(client, table)
    entry = next(e for e in v["legal"] if e["action"] == "draw_stock")
    assert entry["player"] == seat
    other = next(s for s in table["tokens"] if s != seat)
    r = client.act(tid, table["tokens"][seat], {**entry, "player": other, "version": v["version"], "command_id": uuid.uuid4().hex})
    error_of(r, 400, "bad_request", "another player", f"token's seat {seat}")
    assert other not in r.json()["error"]["message"].split("seat")[0]  # the refusal names the token's own seat, not the sent name
    assert stored_version(server, tid) == v["version"]
    r = client.act(tid, table["tokens"][seat], {**entry, "version": v["version"], "command_id": uuid.uuid4().hex})
    assert r.status_code == 200, r.text
    assert r.json()["events"][0]["event"]["type"] == "card_drawn" and stored_version(server, tid) > v["version"]


def test_a_retried_command_id_is_answered_as_the_first_time_and_applied_once(server, client: Client, table: dict):
    tid = table["table"]
    seat, v = mover(client, table)
    body = command_body(v["legal"][0], v["version"])
    first = client.act(tid, table["tokens"][seat], body)
    assert first.status_code == 200, first.text
    after = stored_version(server, tid)
    again = client.act(tid, table["tokens"][seat], body)
    assert again.status_code == 200 and again.json() == first.json()
    assert stored_version(server, tid) == after
    assert first.json()["events"][0]["seq"] == v["version"] + 1


def test_a_command_id_reused_by_another_seat_or_for_another_action_is_409_and_applies_nothing(server, client: Client, table: dict):
    tid = table["table"]
    seat, v = mover(client, table)
    body = command_body(v["legal"][0], v["version"])
    assert client.act(tid, table["tokens"][seat], body).status_code == 200
    after = stored_version(server, tid)
    other = next(s for s in table["tokens"] if s != seat)
    r = client.act(tid, table["tokens"][other], {"action": "knock", "version": after, "command_id": body["command_id"]})
    error_of(r, 409, "conflict", "already used for another command")
    another = "knock" if body["action"] != "knock" else "draw_stock"
    r = client.act(tid, table["tokens"][seat], {"action": another, "version": after, "command_id": body["command_id"]})
    error_of(r, 409, "conflict", "already used for another command")
    assert stored_version(server, tid) == after
    # the real retry is still answered as the first time
    assert client.act(tid, table["tokens"][seat], body).status_code == 200


@pytest.mark.parametrize("last_id", [b"\xb2", b"1" * 5000, b"-1", b"1.0", b"\xef\xbc\x91"])
def test_a_malformed_last_event_id_is_400_never_500(server, client: Client, table: dict, last_id: bytes):
    from .sse import SSE

    tid = table["table"]
    for url, headers in ((f"{server.url}/tables/{tid}/events", auth(table["tokens"]["ann"])), (f"{server.url}/tables/{tid}/spectate", {})):
        s = SSE(url, {**headers, "Last-Event-ID": last_id})
        assert s.status == 400 and b"Last-Event-ID" in s.body, (s.status, s.body[:200])


def test_illegal_and_out_of_turn_actions_are_422_with_code_rule_and_sentence(server, client: Client, table: dict):
    tid = table["table"]
    seat, v = mover(client, table)
    other = next(s for s in table["tokens"] if s != seat)
    before = stored_version(server, tid)
    r = client.act(tid, table["tokens"][other], {"action": "draw_stock", "version": v["version"], "command_id": uuid.uuid4().hex})
    err = error_of(r, 422, "illegal_action")
    assert err["violation"] == "NOT_YOUR_TURN" and err["rule"] == "A6.1"
    assert err["sentence"] == f"illegal (NOT_YOUR_TURN, rule A6.1): {err['message']}"
    not_mine = next(c for c in ("AS", "2S", "3S", "4S", "5S", "6S") if c not in v["view"]["hand"])
    r = client.act(tid, table["tokens"][seat], {"action": "discard", "card": not_mine, "version": v["version"], "command_id": uuid.uuid4().hex})
    err = error_of(r, 422, "illegal_action")
    assert err["rule"].startswith("A") and err["violation"]
    r = client.act(tid, table["tokens"][seat], {"action": "discard", "card": "ZZ", "version": v["version"], "command_id": uuid.uuid4().hex})
    error_of(r, 400, "bad_request", "ZZ")
    r = client.act(tid, table["tokens"][seat], {"action": "fold", "version": v["version"], "command_id": uuid.uuid4().hex})
    error_of(r, 400, "bad_request", "fold")
    r = client.act(tid, table["tokens"][seat], {"action": "hit", "version": v["version"], "command_id": uuid.uuid4().hex})
    error_of(r, 400, "bad_request", "card")
    assert stored_version(server, tid) == before


def test_commands_for_an_ended_game_are_410(server, client: Client):
    created = client.create(seats=["ann", "bob"], hand_limit=1)
    play_until_over(client, created, random.Random(3))
    before = stored_version(server, created["table"])
    r = client.act(created["table"], created["tokens"]["ann"], {"action": "draw_stock", "version": before, "command_id": "late"})
    error_of(r, 410, "gone", "ended")
    assert stored_version(server, created["table"]) == before


def test_the_host_closes_the_table_when_the_hand_in_play_ends(server, client: Client):
    created = client.create(seats=["ann", "bob"])
    tid = created["table"]
    r = client.http.post(f"/tables/{tid}/close", headers=auth(created["host_token"]))
    assert r.status_code == 200 and r.json()["status"] == "closing"
    at_close = r.json()["version"]  # a hand is in play (one that ended at its deal was followed by the next)
    play_until_over(client, created, random.Random(5))
    with EventStore.open(server.db) as store:
        events = store.read(tid)
    assert type(events[-1]).__name__ == "GameEnded" and events[-1].reason == "closed by the host"
    after_close = [type(e).__name__ for e in events[at_close:]]
    assert after_close.count("HandEnded") == 1 and "HandDealt" not in after_close  # the hand in play ends, no new one


def test_a_token_over_its_rate_is_429_and_others_are_not_held(start_server):
    # one request each 1000 s after a burst of 10: the verdict holds however slow the machine
    server = start_server("--rate", "0.001")
    client = Client(server.url)
    created = client.create(sit=False, seats=["ann", "bob"])  # no seat sits: ann's burst is all the views'
    statuses = [client.view(created["table"], created["tokens"]["ann"]).status_code for _ in range(12)]
    assert statuses == [200] * 10 + [429] * 2
    r = client.view(created["table"], created["tokens"]["ann"])
    error_of(r, 429, "too_many_requests", "too many requests")
    assert int(r.headers["retry-after"]) > 0
    assert client.view(created["table"], created["tokens"]["bob"]).status_code == 200
