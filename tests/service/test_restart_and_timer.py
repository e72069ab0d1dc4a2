"""A restarted server resumes every table from the store; a turn timer lets the greedy bot
play a seat's turn, and the recorded event says so."""

from __future__ import annotations

import json
import random
import time

import msgspec

from tonk.application.adjudicate import ruleset_loader
from tonk.core.bots import make_bot
from tonk.core.events import TIMED_EVENTS
from tonk.core.game import Game
from tonk.core.legal import legal_actions
from tonk.core.turn import decide
from tonk.core.views import player_view
from tonk.storage import EventStore

from .conftest import Client, command_body, play_until_over, run_cli


def views(client: Client, created: dict) -> dict:
    return {seat: client.view(created["table"], tok).json() for seat, tok in created["tokens"].items()}


def timed_table_in_play(client: Client, turn_timer: float, **settings) -> tuple[dict, dict, str]:
    """``(created, views, seat to act)`` of a new two-seat table with a turn timer whose hand
    is in play (a secure shuffle can end the only hand at the deal: an initial tonk)."""
    settings = {"seats": ["ann", "bob"], "hand_limit": 1, **settings}
    for _ in range(20):
        created = client.create(turn_timer=turn_timer, **settings)
        start = views(client, created)
        seat = next((s for s, v in start.items() if v["legal"]), None)
        if seat is not None:
            return created, start, seat
    raise AssertionError("20 tables in a row ended at the deal")


def turns_of(events: list, seat: str, after: int) -> list[list]:
    """The turns ``seat`` played after seq ``after``: each a run of the seat's own actions
    (``TIMED_EVENTS``) with no other event between them."""
    turns: list[list] = []
    run: list = []
    for e in events[after:]:
        if type(e) in TIMED_EVENTS and e.player == seat:
            run.append(e)
            continue
        if run:
            turns.append(run)
        run = []
    return turns + ([run] if run else [])


def greedy_turn(events: list, seat: str) -> list:
    """The events of ``seat``'s turn as the greedy bot plays it from the position after
    ``events`` (folded here by the engine, the deck known: the store's record)."""
    ruleset = ruleset_loader()(events[0].ruleset)
    game = Game(ruleset, events)
    bot = make_bot("greedy", points=ruleset.points)
    played: list = []
    while game.state.in_hand and game.state.to_act == seat:
        command = bot.choose(player_view(game.state, seat), legal_actions(game.state, ruleset), random.Random(0))
        for e in decide(game.state, command, ruleset):
            game._apply(e)
            played.append(e)
    # the turn is the seat's own actions, as turns_of reads them (not the hand_ended a tonk out adds)
    return [e for e in played if type(e) in TIMED_EVENTS and e.player == seat]


def unmarked(e) -> dict:
    data = msgspec.to_builtins(e)
    data.pop("timed_out", None)
    return data


def test_a_table_resumes_exactly_where_it_was_after_the_server_is_killed_mid_hand(start_server, tmp_path):
    first = start_server()
    client = Client(first.url)
    created = client.create(seats=["ann", "bob", "cy"], bots={"cy": "random"})
    rng = random.Random(4)
    for _ in range(5):  # a few moves into the first hand
        now = views(client, created)
        seat = next((s for s, v in now.items() if v["legal"]), None)
        v = now[seat]
        if any(a["action"] == "knock" for a in v["legal"]) and len(v["legal"]) > 1:
            choice = next(a for a in v["legal"] if a["action"] == "draw_stock")
        else:
            choice = rng.choice([a for a in v["legal"] if a["action"] != "knock"] or v["legal"])
        assert client.act(created["table"], created["tokens"][seat], command_body(choice, v["version"])).status_code == 200
    before = views(client, created)
    first.proc.kill()  # no clean shut-down
    first.proc.wait()

    second = start_server(db=first.db)
    client2 = Client(second.url)
    assert views(client2, created) == before
    # the same seat tokens work, the stale version is refused, and play goes on to the end
    seat = next(s for s, v in before.items() if v["legal"])
    r = client2.act(created["table"], created["tokens"][seat], command_body(before[seat]["legal"][0], before[seat]["version"] - 1))
    assert r.status_code == 409
    r = client2.http.post(f"/tables/{created['table']}/close", headers={"Authorization": f"Bearer {created['host_token']}"})
    assert r.status_code == 200
    play_until_over(client2, created, rng)
    audit = run_cli("--db", str(first.db), "audit", created["table"], "--json")
    assert audit.returncode == 0, audit.stdout
    assert json.loads(audit.stdout)["summary"]["clean"] == 1


def test_a_seat_that_does_not_act_in_time_is_played_by_the_greedy_bot(server, client: Client):
    """Only one seat has a timer (the other is a bot), and the test asserts what holds however
    long it takes to read the store: each of the seat's turns after the timer first ran out was
    played by the timer (the seat never acts), marked on its first event only; the first of
    them is exactly the greedy bot's turn; the bot seat's events are never marked."""
    created, start, seat = timed_table_in_play(client, turn_timer=1, bots={"bob": "greedy"})
    gid = created["table"]
    at = start[seat]["version"]  # the seat was to act here and does not
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if client.view(gid, created["tokens"][seat]).json()["version"] > at:
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the turn timer did not play the turn")
    with EventStore.open(server.db) as store:
        events = store.read(gid)
    turns = turns_of(events, seat, at)
    assert turns and turns[0][0] is events[at], events[at]  # the first event after the timer ran out is the seat's
    expected = greedy_turn(events[:at], seat)
    assert [unmarked(e) for e in turns[0]] == [unmarked(e) for e in expected]
    for turn in turns:  # however many the timer played before the store was read
        assert turn[0].timed_out is True, turn
        assert all(e.timed_out is not True for e in turn[1:]), turn
    assert all(getattr(e, "timed_out", None) is not True for e in events if getattr(e, "player", seat) != seat)
    # the marked turn audits clean (the CLI audits a game in play as recorded so far)
    audit = run_cli("--db", str(server.db), "audit", gid, "--json")
    assert audit.returncode == 0, audit.stdout


def test_a_timer_that_runs_out_after_the_seat_drew_marks_the_bots_first_event(server, client: Client):
    """The seat drew itself, then let its time run out: the greedy bot's discard (or spread,
    or hit) is the event marked ``timed_out``; the draw, the seat's own, is not.  The draw's
    version is its answer's (a view read after it may already show the timer's turn); a
    table whose timer ran out before the draw arrived (a 409) is replaced."""
    for _ in range(5):
        created, start, seat = timed_table_in_play(client, turn_timer=2)
        gid, token = created["table"], created["tokens"][seat]
        draw = next(a for a in start[seat]["legal"] if a["action"] == "draw_stock")
        r = client.act(gid, token, command_body(draw, start[seat]["version"]))
        if r.status_code == 409:  # the timer played the whole turn first: not this test's case
            continue
        assert r.status_code == 200, r.text
        drawn_at = r.json()["version"]
        break
    else:
        raise AssertionError("the turn timer beat the draw at 5 tables in a row")
    deadline = time.monotonic() + 15
    while client.view(gid, token).json()["version"] == drawn_at:
        assert time.monotonic() < deadline, "the turn timer did not play the rest of the turn"
        time.sleep(0.2)
    with EventStore.open(server.db) as store:
        events = store.read(gid)
    mine = events[drawn_at - 1]
    assert type(mine).__name__ == "CardDrawn" and mine.player == seat and mine.timed_out is not True
    bots = events[drawn_at]
    assert bots.player == seat and bots.timed_out is True, bots
    audit = run_cli("--db", str(server.db), "audit", gid, "--json")
    assert audit.returncode == 0, audit.stdout


def test_turn_timers_run_again_after_a_restart_without_any_request(start_server):
    first = start_server()
    client = Client(first.url)
    # no hand limit: however many turns the timer plays before the kill, the game is still in play
    created, _, _ = timed_table_in_play(client, turn_timer=3, hand_limit=None)
    first.proc.kill()
    first.proc.wait()
    with EventStore.open(first.db) as store:
        version = store.version(created["table"])
    start_server(db=first.db)  # no request is sent to it
    deadline = time.monotonic() + 15
    while True:
        with EventStore.open(first.db) as store:
            if store.version(created["table"]) > version:
                break
        assert time.monotonic() < deadline, "no turn was played by the timer after the restart"
        time.sleep(0.2)
