"""Issue 10, ``tonk play``: the labelled card count, "your hand" for the seat named you,
one action per line, and ``--resume`` (the installed console script, input from a pipe)."""

from __future__ import annotations

import json
import re
from pathlib import Path

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
    bad = ["1 2", "knock now", "k k", "d d", "draw 2", "p x"]
    r = tonk("play", "--seed", "3", "--db", str(db), input="\n".join(bad) + "\nq\n")
    refusals = [line for line in r.out.splitlines() if "not understood: type one action at a time" in line]
    assert len(refusals) == len(bad), r.out
    assert r.out.count("you>") == len(bad) + 1  # asked again after each
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
    assert f"tonk play --resume {g['game_id'][:8]} -n 1 goes on with it" in first.out
    r = tonk("play", "--resume", g["game_id"][:6], "-n", "1", "--db", str(db), input="d\n1\n" * 80)
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


def _only_game(db) -> dict:
    (g,) = json.loads(tonk("games", "--json", "--db", str(db)).out)["games"]
    return g


def test_a_resumed_game_does_not_end_after_one_hand(tmp_path):
    db = tmp_path / "p.db"
    first = tonk("play", "--seed", "3", "-n", "3", "--db", str(db), input="d\n")
    gid = _only_game(db)["game_id"]
    # the way on names the hands still to play: the store does not record how many were asked for
    assert f"tonk play --resume {gid[:8]} -n 3 goes on with it" in first.out
    # without -n you are asked after each hand: "y" deals another ("1", the first action, plays)
    r = tonk("play", "--resume", gid[:6], "--db", str(db), input="y\n1\n" * 400)
    assert r.code == 0, r.err
    assert "another hand?" in r.out and "game over" not in r.out
    g = _only_game(db)
    assert g["status"] == "open" and g["hands"] >= 2
    # "n" ends the game after the hand in play
    r = tonk("play", "--resume", gid[:6], "--db", str(db), input="n\n1\n" * 400)
    assert re.search(r"game over after \d+ hand\(s\)", r.out), r.out
    assert _only_game(db)["status"] == "ended"


def test_resume_with_n_plays_that_many_more_hands(tmp_path):
    db = tmp_path / "p.db"
    tonk("play", "--seed", "3", "-n", "3", "--db", str(db), input="d\n")
    gid = _only_game(db)["game_id"]
    r = tonk("play", "--resume", gid[:6], "-n", "3", "--db", str(db), input="1\n" * 600)
    assert r.code == 0, r.err
    assert "game over after 3 hand(s)" in r.out and "another hand?" not in r.out
    g = _only_game(db)
    assert g["status"] == "ended" and g["hands"] == 3


def test_a_game_with_a_variant_file_can_be_resumed_with_the_file(tmp_path):
    example = Path(__file__).resolve().parents[2] / "examples" / "tonk-variant-example" / "tonk_variant_example" / "__init__.py"
    db = tmp_path / "f.db"
    tonk("play", "--seed", "5", "--variant-file", str(example), "-v", "first-round-no-knock", "--db", str(db), input="d\n")
    gid = _only_game(db)["game_id"]
    without = tonk("play", "--resume", gid[:6], "--db", str(db), input="")
    assert without.code == 2 and "'first-round-no-knock'" in without.err_line() and "not installed" in without.err_line()
    other_rules = tonk("play", "--resume", gid[:6], "--variant-file", str(example), "-v", "knock-limit", "--db", str(db), input="")
    assert other_rules.code == 2 and "recorded rules" in other_rules.err_line()
    r = tonk("play", "--resume", gid[:6], "--variant-file", str(example), "-n", "1", "--db", str(db), input="1\n" * 300)
    assert r.code == 0, r.err
    assert "game over after 1 hand(s)" in r.out
    audit = tonk("audit", gid[:6], "--variant-file", str(example), "--db", str(db))
    assert audit.code == 0 and "verdict: clean" in audit.out


def test_a_resumed_secret_game_says_its_seed_is_not_revealed(tmp_path):
    from tonk.core.events import GameEnded
    from tonk.storage import EventStore

    for attempt in range(10):  # the secret deal may end the hand at once (an initial tonk): the game is over, another
        db = tmp_path / f"p{attempt}.db"
        tonk("play", "--db", str(db), input="q\n")  # no seed: a secret game, left unfinished
        if _only_game(db)["status"] == "open":
            break
    else:
        raise AssertionError("ten secret games in a row ended at their first deal")
    gid = _only_game(db)["game_id"]
    r = tonk("play", "--resume", gid[:6], "-n", "1", "--db", str(db), input="1\n" * 300)
    assert "game over after 1 hand(s)" in r.out, r.out
    with EventStore.open(db) as store:
        ended = store.read(gid)[-1]
    assert isinstance(ended, GameEnded)
    # the seed lived only in the first session (never in the store): it cannot be revealed, and the event says so
    assert ended.seed == ""
    assert "resumed" in ended.reason and "seed" in ended.reason and "not revealed" in ended.reason
