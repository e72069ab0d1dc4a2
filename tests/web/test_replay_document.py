"""The replay document: every event's view per perspective, the hands, the audit; a player's holds only what they saw."""

from __future__ import annotations

import json

import msgspec
import pytest

from tonk.application.replay_document import WITHHELD, ReplayError, replay_document
from tonk.core.events import CardDiscarded, CardDrawn, HandEnded
from tonk.core.views import AUDITOR
from tonk.storage import EventStore


def read(db, game):
    with EventStore.open(db, create=False) as store:
        return store.read(game.game_id)


def test_every_perspective_has_a_step_per_event_equal_to_tonk_replay_json(tmp_path, record, runner_json):
    db = tmp_path / "g.db"
    game = record(db, seed=4, hands=2)
    events = read(db, game)
    doc = replay_document(game.game_id, events)
    assert doc["perspectives"] == [AUDITOR, "ann", "bob", "cy"]
    assert doc["events"] == len(events) and len(doc["types"]) == len(events)
    for viewer in doc["perspectives"]:
        cli = runner_json(db, "replay", game.game_id, "--as", viewer, "--json")
        assert [s["seq"] for s in doc["steps"][viewer]] == list(range(1, len(events) + 1))
        assert json.loads(json.dumps(doc["steps"][viewer])) == cli["steps"], viewer


def test_hands_carry_their_events_ledger_and_the_net_after_them(tmp_path, record):
    db = tmp_path / "g.db"
    game = record(db, seed=5, hands=3)
    events = read(db, game)
    doc = replay_document(game.game_id, events)
    ends = [(i, e) for i, e in enumerate(events, start=1) if isinstance(e, HandEnded)]
    assert [h["hand_no"] for h in doc["hands"]] == [1, 2, 3]
    running = {p: 0 for p in game.players}
    for hand, (seq, end) in zip(doc["hands"], ends):
        assert hand["last"] == seq and hand["end"] == end.end and hand["first"] < seq
        assert hand["ledger"] == [msgspec.to_builtins(p) for p in end.ledger]
        for pay in end.ledger:
            running[pay.from_] -= pay.amount
            running[pay.to] += pay.amount
        assert hand["net"] == running
    assert running == game.net


def test_an_unfinished_hand_runs_to_the_last_event(tmp_path, record):
    db = tmp_path / "g.db"
    game = record(db, seed=6, hands=1, stop_after=8, finish=False)
    events = read(db, game)
    (hand,) = replay_document(game.game_id, events)["hands"]
    assert hand["end"] is None and hand["last"] == len(events)


def test_a_players_document_holds_no_card_they_never_saw(tmp_path, record, never_seen):
    db = tmp_path / "g.db"
    game = record(db, seed=7, hands=1, stop_after=12, finish=False)
    events = read(db, game)
    hidden = never_seen(events, "bob")
    assert len(hidden) > 20  # the stock and the other two hands
    doc = replay_document(game.game_id, events, "bob")
    assert doc["perspectives"] == ["bob"] and list(doc["steps"]) == ["bob"]
    text = msgspec.json.encode(doc).decode()
    assert not [c for c in hidden if f'"{c}"' in text]
    # the auditor's document does hold them (so the check above can fail)
    everything = msgspec.json.encode(replay_document(game.game_id, events)).decode()
    assert all(f'"{c}"' in everything for c in hidden)


def test_a_stock_draw_by_another_player_stays_hidden(tmp_path, record):
    db = tmp_path / "g.db"
    game = record(db, seed=8, hands=1, stop_after=15, finish=False)
    events = read(db, game)
    seq, drawn = next((i, e) for i, e in enumerate(events, 1) if isinstance(e, CardDrawn) and e.source == "stock" and e.player != "ann")
    doc = replay_document(game.game_id, events, "ann")
    assert doc["steps"]["ann"][seq - 1]["event"]["card"] == "??"
    assert doc["steps"]["ann"][seq - 1]["view"]["drawn_card"] is None


def test_audit_text_naming_a_card_the_player_never_saw_is_withheld(tmp_path, record, never_seen):
    db = tmp_path / "g.db"
    game = record(db, seed=9, hands=1, stop_after=10, finish=False)
    events = read(db, game)
    secret = sorted(never_seen(events, "cy"))[0]
    own = events[1].hands["cy"][0]
    audit = {
        "verdict": "findings",
        "checks": {"chain": "ok", "conservation": "failed", "rules": "ok"},
        "error": None,
        "findings": [
            {"check": "conservation", "seq": 3, "hand_no": 1, "rule": "A1.1", "message": f"{secret} is in two places", "expected": [secret], "recorded": None},
            {"check": "conservation", "seq": 4, "hand_no": 1, "rule": "A1.1", "message": f"{own} is in two places", "expected": [own], "recorded": None},
        ],
    }
    mine = replay_document(game.game_id, events, "cy", audit)["audit"]
    assert [f["seq"] for f in mine["findings"]] == [3, 4]
    assert mine["findings"][0]["message"] == WITHHELD
    assert mine["findings"][1]["message"] == f"{own} is in two places"
    assert all("expected" not in f and "recorded" not in f for f in mine["findings"])
    full = replay_document(game.game_id, events, None, audit)["audit"]
    assert full["findings"][0]["message"] == f"{secret} is in two places" and full["findings"][0]["expected"] == [secret]


def test_a_stranger_or_a_damaged_log_is_a_clear_error(tmp_path, record):
    db = tmp_path / "g.db"
    game = record(db, seed=10, hands=1)
    events = read(db, game)
    with pytest.raises(ReplayError, match="'zed' is not a player of this game"):
        replay_document(game.game_id, events, "zed")
    with pytest.raises(ReplayError, match="does not start with game_started"):
        replay_document(game.game_id, events[1:])
    dealt = events[1]
    stranger = dealt.stock[0]  # not in the first player's hand
    with pytest.raises(ReplayError, match="event 3 cannot be applied"):
        replay_document(game.game_id, events[:2] + [CardDiscarded(player=dealt.first_player, card=stranger)])
