"""Issue 10, ``tonk play``: the labelled card count, "your hand" for the seat named you,
one action per line, and ``--resume`` (the installed console script, input from a pipe)."""

from __future__ import annotations

import json
import re

from script_helpers import tonk


def test_the_hand_row_labels_its_count(tmp_path):
    r = tonk("play", "--seed", "3", "--db", str(tmp_path / "p.db"), input="q\n")
    row = next(line for line in r.out.splitlines() if "you" in line and "net" in line and "cards:" in line)
    assert re.search(r"\byou\s+5 cards: ", row), row  # "5 cards:", not a bare 5 before the cards


def test_errors_address_the_seat_named_you(tmp_path):
    # draw, then try to discard a joker: a classic deck has none, so it is in no hand
    r = tonk("play", "--seed", "3", "--db", str(tmp_path / "p.db"), input="d\nx X1\nq\n")
    assert "is not in your hand" in r.out
    assert "you's" not in r.out


def test_input_that_is_not_exactly_one_action_is_refused(tmp_path):
    db = tmp_path / "p.db"
    r = tonk("play", "--seed", "3", "--db", str(db), input="1 2\nq\n")
    assert "type one action at a time" in r.out
    (g,) = json.loads(tonk("games", "--json", "--db", str(db)).out)["games"]
    steps = json.loads(tonk("replay", g["game_id"], "--json", "--db", str(db)).out)["steps"]
    assert [s["event"]["type"] for s in steps if s["event"].get("player") == "you"] == []  # you played nothing


def test_resume_goes_on_with_an_unfinished_game(tmp_path):
    db = tmp_path / "p.db"
    first = tonk("play", "--seed", "3", "--db", str(db), input="d\n")
    assert "stays unfinished" in first.out
    (g,) = json.loads(tonk("games", "--json", "--db", str(db)).out)["games"]
    assert g["status"] != "ended"
    before = g["events"]
    r = tonk("play", "--resume", g["game_id"][:6], "--db", str(db), input="d\n1\n" * 80)
    assert r.code == 0, r.err
    assert f"resuming game {g['game_id']} after {before} recorded events" in r.out
    assert "game over after 1 hand(s)" in r.out
    (after,) = json.loads(tonk("games", "--json", "--db", str(db)).out)["games"]
    assert after["status"] == "ended" and after["hands"] == 1 and after["events"] > before
    audit = tonk("audit", g["game_id"][:6], "--db", str(db))
    assert audit.code == 0 and "verdict: clean" in audit.out
    again = tonk("play", "--resume", g["game_id"][:6], "--db", str(db), input="")
    assert again.code == 2 and "has ended" in again.err_line()


def test_resume_refuses_a_seat_that_is_not_in_the_game(tmp_path):
    db = tmp_path / "p.db"
    tonk("play", "--seed", "3", "--db", str(db), input="q\n")
    (g,) = json.loads(tonk("games", "--json", "--db", str(db)).out)["games"]
    r = tonk("play", "--resume", g["game_id"][:6], "--seat", "zed", "--db", str(db), input="")
    assert r.code == 2 and "'zed' is not a seat" in r.err_line()
    r = tonk("play", "--resume", g["game_id"][:6], "-v", "knock-limit", "--db", str(db), input="")
    assert r.code == 2 and "recorded rules" in r.err_line()
