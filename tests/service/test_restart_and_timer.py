"""A restarted server resumes every table from the store; a turn timer lets the greedy bot
play a seat's turn, and the recorded event says so."""

from __future__ import annotations

import json
import random
import time

from tonk.storage import EventStore

from .conftest import Client, command_body, play_until_over, run_cli


def views(client: Client, created: dict) -> dict:
    return {seat: client.view(created["table"], tok).json() for seat, tok in created["tokens"].items()}


def timed_table_in_play(client: Client, turn_timer: float) -> tuple[dict, dict, str]:
    """``(created, views, seat to act)`` of a new two-seat table with a turn timer whose hand
    is in play (a secure shuffle can end the only hand at the deal: an initial tonk)."""
    for _ in range(20):
        created = client.create(seats=["ann", "bob"], turn_timer=turn_timer, hand_limit=1)
        start = views(client, created)
        seat = next((s for s, v in start.items() if v["legal"]), None)
        if seat is not None:
            return created, start, seat
    raise AssertionError("20 tables in a row ended at the deal")


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
    created, start, seat = timed_table_in_play(client, turn_timer=1)
    gid = created["table"]
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        now = views(client, created)
        if now[seat]["version"] > start[seat]["version"]:
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the turn timer did not play the turn")
    with EventStore.open(server.db) as store:
        events = store.read(gid)
    opener = events[start[seat]["version"]]  # the first event after the timer ran out
    assert getattr(opener, "player", None) == seat and opener.timed_out is True
    assert all(getattr(e, "timed_out", True) is not True for e in events[start[seat]["version"] + 1 :] if getattr(e, "player", None) != seat)
    # the marked turn audits clean (the CLI audits a game in play as recorded so far)
    audit = run_cli("--db", str(server.db), "audit", gid, "--json")
    assert audit.returncode == 0, audit.stdout


def test_a_timer_that_runs_out_after_the_seat_drew_marks_the_bots_first_event(server, client: Client):
    """The seat drew itself, then let its time run out: the greedy bot's discard (or spread,
    or hit) is the event marked ``timed_out``; the draw, the seat's own, is not."""
    created, start, seat = timed_table_in_play(client, turn_timer=2)
    gid, token = created["table"], created["tokens"][seat]
    draw = next(a for a in start[seat]["legal"] if a["action"] == "draw_stock")
    assert client.act(gid, token, command_body(draw, start[seat]["version"])).status_code == 200
    drawn_at = client.view(gid, token).json()["version"]
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
    created, _, _ = timed_table_in_play(client, turn_timer=3)
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
