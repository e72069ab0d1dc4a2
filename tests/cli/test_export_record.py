"""``tonk export GAME --hand N --as-record [--at K]``: a recorded hand's position as a hand
record which, adjudicated with every action that followed, gives the recorded hand's result."""

from __future__ import annotations

import json

import pytest

from tonk.application.adjudicate import adjudicate
from tonk.application.position_record import locate, position_record
from tonk.core.events import HandDealt, HandEnded
from tonk.storage import EventStore


def _recorded_ending(events, hand_no: int) -> HandEnded:
    start = next(i for i, e in enumerate(events) if type(e) is HandDealt and e.hand_no == hand_no)
    return next(e for e in events[start:] if type(e) is HandEnded)


def _actions_in(events, hand_no: int) -> int:
    start = next(i for i, e in enumerate(events) if type(e) is HandDealt and e.hand_no == hand_no)
    n = 0
    for e in events[start + 1 :]:
        if type(e) is HandEnded:
            return n
        n += 1
    raise AssertionError("the hand did not end")


def _same_result(verdict: dict, ending: HandEnded) -> None:
    assert verdict["status"] == "ok", verdict
    assert all(a["legal"] for a in verdict["actions"]), verdict["actions"]
    assert verdict["end"]["type"] == ending.end
    assert verdict["end"].get("player") == ending.player
    assert verdict["end"].get("outcome") == ending.outcome
    assert verdict["hand_totals"] == dict(ending.totals)
    assert sorted((p["from"], p["to"], p["amount"], p["reason"]) for p in verdict["ledger"]) == sorted((p.from_, p.to, p.amount, p.reason) for p in ending.ledger)
    assert verdict["next_dealer"] == ending.next_dealer
    assert {p: sorted(h) for p, h in verdict["final_hands"].items()} == {p: sorted(h) for p, h in ending.hands.items()}


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_every_position_of_a_recorded_hand_adjudicates_to_the_recorded_result(db, record_game, seed):
    game = record_game(db, seed=seed, hands=2)
    events = list(game.events)
    for hand_no in (1, 2):
        ending = _recorded_ending(events, hand_no)
        if ending.end.startswith("initial_tonk"):
            continue
        n = _actions_in(events, hand_no)
        for at in sorted({0, 1, 2, n // 2, n - 1, n}):
            record = position_record(events, hand_no, at)
            _same_result(adjudicate(record), ending)


def test_the_cli_writes_the_record_that_tonk_adjudicate_reads(db, record_game, tonk, tmp_path):
    game = record_game(db, seed=5, hands=1)
    events = list(game.events)
    ending = _recorded_ending(events, 1)
    n = _actions_in(events, 1)
    at = n // 2
    out = tonk("export", game.game_id[:8], "--hand", "1", "--as-record", "--at", str(at))
    assert out.exit_code == 0, out.stderr
    record = json.loads(out.stdout)
    assert record == position_record(events, 1, at, game_id=game.game_id)
    path = tmp_path / "dispute.json"
    written = tonk("export", game.game_id, "--hand", "1", "--as-record", "--at", str(at), "--output", str(path), "--json")
    assert written.exit_code == 0, written.stderr
    assert json.loads(written.stdout) == {"output": str(path), "game": game.game_id, "hand": 1, "at": at, "actions": len(record["actions"])}
    judged = tonk("adjudicate", str(path), "--json")
    assert judged.exit_code == 0, judged.stderr
    (verdict,) = json.loads(judged.stdout)["cases"]
    if not ending.end.startswith("initial_tonk"):
        _same_result(verdict, ending)


def test_a_position_in_the_middle_of_a_turn_is_written_from_that_turns_start(db, record_game):
    game = record_game(db, seed=7, hands=1)
    events = list(game.events)
    record = position_record(events, 1, 1)  # after the first player's draw (or knock)
    assert record["actions"][0]["player"] == record["setup"]["to_act"]
    assert record == dict(position_record(events, 1, 0), id="hand1-at1", title=record["title"])
    assert "from the start of that turn" in record["title"] or record["actions"][0]["action"] == "knock"


def test_locate_maps_the_replay_viewers_event_numbers(db, record_game):
    game = record_game(db, seed=3, hands=2)
    events = list(game.events)
    second = next(i for i, e in enumerate(events) if type(e) is HandDealt and e.hand_no == 2)
    assert locate(events, 1) == (1, 0)
    assert locate(events, second + 1) == (2, 0)
    assert locate(events, second + 3) == (2, 2)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--hand", "1"], "--hand and --at go with --as-record"),
        (["--as-record"], "needs --hand N"),
        (["--as-record", "--hand", "9"], "not hand 9"),
        (["--as-record", "--hand", "1", "--at", "999"], "not 999"),
    ],
)
def test_bad_requests_are_one_clear_line(db, record_game, tonk, args, message):
    game = record_game(db, seed=5, hands=1)
    result = tonk("export", game.game_id, *args)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    both = tonk("export", "--all", "--as-record", "--hand", "1")
    assert both.exit_code == 2 and "one GAME_ID" in both.stderr


def test_a_store_game_keeps_its_turn_cap_on_the_same_turn(db, record_game):
    game = record_game(db, seed=3, hands=1)
    with EventStore.open(db) as store:
        events = store.read(game.game_id)
    n = _actions_in(events, 1)
    late = position_record(events, 1, n)
    assert late["ruleset"]["options"]["max_turns_per_hand"] < 60 or n < 4
