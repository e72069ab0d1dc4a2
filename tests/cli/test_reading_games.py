"""Issue 10: reading long games (replay --hand, --summary, the pager), simulate saying
where it stored the games, progress only on a terminal, variants docs rendered, amounts in
stake units and money (the installed console script, as a user runs it)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from script_helpers import clean_env, on_terminal, tonk


@pytest.fixture(scope="module")
def sim(tmp_path_factory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("read") / "r.db"
    r = tonk("simulate", "-n", "6", "--hands-per-game", "6", "-p", "3", "-s", "4", "--db", str(db))
    assert r.code == 0, r.err
    (g,) = json.loads(tonk("games", "--json", "--db", str(db)).out)["games"]
    return db, g["game_id"]


def _hands_shown(text: str) -> list[int]:
    return sorted({int(m) for m in re.findall(r"^#\d+/\d+ hand (\d+) (?:dealt|ended)", text, re.M)})


def test_replay_hand_and_ranges(sim):
    db, gid = sim
    assert _hands_shown(tonk("--db", str(db), "replay", gid[:8], "--hand", "2").out) == [2]
    assert _hands_shown(tonk("--db", str(db), "replay", gid[:8], "--hand", "3-5").out) == [3, 4, 5]
    assert _hands_shown(tonk("--db", str(db), "replay", gid[:8], "--hand", "1,6").out) == [1, 6]
    assert _hands_shown(tonk("--db", str(db), "replay", gid[:8], "--hand", "5-").out) == [5, 6]
    steps = json.loads(tonk("--db", str(db), "replay", gid[:8], "--hand", "2", "--json").out)["steps"]
    assert steps and {s["view"]["hand_no"] for s in steps} == {2}
    for bad, says in (("7", "hands 1 to 6"), ("x", "--hand takes"), ("4-2", "empty")):
        r = tonk("--db", str(db), "replay", gid[:8], "--hand", bad)
        assert r.code == 2 and says in r.err_line()


def test_replay_at_an_event_outside_the_hands_selected_says_so(sim):
    """--at N with --hand: event N when it is in the hands selected, else an error (not an
    empty replay with exit 0)."""
    db, gid = sim
    steps = json.loads(tonk("--db", str(db), "replay", gid[:8], "--json").out)["steps"]
    seq = next(s["seq"] for s in steps if s["view"]["hand_no"] == 1 and s["event"]["type"] == "card_drawn")
    [step] = json.loads(tonk("--db", str(db), "replay", gid[:8], "--at", str(seq), "--hand", "1", "--json").out)["steps"]
    assert step["seq"] == seq
    for args, says in (
        ([str(seq), "2"], f"--at {seq}: event {seq} is of hand 1, not one of the hands --hand selects"),
        (["1", "1"], "--at 1: event 1 belongs to no hand, not one of the hands --hand selects"),
    ):
        for fmt in ([], ["--json"]):
            r = tonk("--db", str(db), "replay", gid[:8], "--at", args[0], "--hand", args[1], *fmt)
            assert r.code == 2 and r.out == "" and r.err_line() == f"error: {says}", (r.out, r.err)


def test_replay_summary_is_one_line_a_hand(sim):
    db, gid = sim
    r = tonk("--db", str(db), "replay", gid[:8], "--summary")
    lines = r.out.strip().splitlines()
    assert r.code == 0 and len(lines) == 6
    data = json.loads(tonk("--db", str(db), "replay", gid[:8], "--summary", "--json").out)
    for line, hand in zip(lines, data["hands"]):
        assert line.startswith(f"hand {hand['hand_no']}: ")
        for p, total in hand["totals"].items():
            assert f"{p} {total}" in line
        for pay in hand["ledger"]:
            assert f"{pay['from']} \u2192 {pay['to']} {pay['amount']} {pay['reason']}" in line


def test_replay_uses_a_pager_only_on_a_terminal(sim, tmp_path):
    db, gid = sim
    marker = tmp_path / "paged"
    env = clean_env(PAGER=f"cat > {marker}")
    code, out, _ = on_terminal(["--db", str(db), "replay", gid[:8], "--hand", "1"], stdout_tty=True, stderr_tty=False, env=env)
    assert code == 0 and marker.exists()
    assert "hand 1 dealt by" in marker.read_text()
    assert b"hand 1 dealt by" not in out  # it went to the pager, not around it
    marker.unlink()
    piped = tonk("--db", str(db), "replay", gid[:8], "--hand", "1", env=env)
    assert piped.code == 0 and "hand 1 dealt by" in piped.out and not marker.exists()


def test_simulate_says_where_it_stored_and_when_nothing_was_new(tmp_path):
    db = tmp_path / "s.db"
    args = ["simulate", "-n", "4", "--hands-per-game", "2", "-s", "9", "--db", str(db)]
    first = tonk(*args)
    games = json.loads(tonk("games", "--json", "--db", str(db)).out)["games"]
    events = sum(g["events"] for g in games)
    assert first.out.strip().splitlines()[-1] == f"stored 2 game(s), {events} event(s) in {db}"
    again = tonk(*args)
    assert again.out.strip().splitlines()[-1].startswith(f"stored nothing in {db}: its 2 game(s) were already there")
    data = json.loads(tonk(*args, "--json").out)
    assert data["store"] == {"path": str(db), "games_written": 0, "events_written": 0, "games_expected": 2, "games_in_store": 2}


def test_progress_goes_to_stderr_only_on_a_terminal(tmp_path):
    db = tmp_path / "p.db"
    assert tonk("simulate", "-n", "200", "--db", str(db)).code == 0
    out = tmp_path / "all.jsonl"
    env = clean_env()
    code, _, err = on_terminal(["--db", str(db), "export", "--all", "--output", str(out)], stdout_tty=False, stderr_tty=True, env=env)
    assert code == 0 and b"exporting" in err and b"left" in err
    piped = tonk("--db", str(db), "export", "--all", "--output", str(out))
    assert piped.code == 0 and piped.err == ""
    code, _, err = on_terminal(["--db", str(tmp_path / "n.db"), "import", str(out)], stdout_tty=False, stderr_tty=True, env=env)
    assert code == 0 and b"checking" in err
    code, _, err = on_terminal(["--db", str(db), "audit", "--all"], stdout_tty=False, stderr_tty=True, env=env)
    assert code == 0 and b"auditing" in err and b"left" in err
    code, _, err = on_terminal(["simulate", "-n", "100", "--no-store"], stdout_tty=False, stderr_tty=True, env=env)
    assert code == 0 and b"simulating" in err and b"left" in err


def test_variants_docs_are_rendered_not_raw_rest():
    r = tonk("variants", "hit-penalty")
    assert r.code == 0
    doc = r.out.split("hooks:", 1)[1]
    assert "``" not in doc and "\n* " not in doc
    assert "turns_per_hit" in doc and "\u2022 " in doc


def test_a_stake_change_shows_in_re_adjudication_and_amounts_show_money(sim):
    db, gid = sim
    data = json.loads(tonk("--db", str(db), "audit", gid[:8], "-o", "base_stake=2", "--json").out)
    hands = data["games"][0]["hands"]
    paid = [h for h in hands if h["recorded"] and h["recorded"]["ledger"]]
    assert paid and all(h["status"] == "different" for h in paid)
    assert any("money to" in d and "at stake 1 -> 2" in d for d in paid[0]["differences"])
    text = tonk("--db", str(db), "audit", gid[:8], "-o", "base_stake=2").out
    assert "money at stake 2" in text
    same = json.loads(tonk("--db", str(db), "audit", gid[:8], "-o", "base_stake=1", "--json").out)
    assert all(h["status"] == "same" for h in same["games"][0]["hands"])


def test_play_at_a_stake_shows_money_beside_units(tmp_path):
    r = tonk("play", "--stake", "5", "--seed", "3", "--db", str(tmp_path / "m.db"), input="d\n1\n" * 80)
    assert r.code == 0, r.err
    m = re.search(r"net: you ([+-]\d+), .*at stake 5: you ([+-]\d+)", r.out)
    assert m and int(m.group(2)) == 5 * int(m.group(1))


def test_the_readme_compare_example_shows_a_difference():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    line = next(x for x in readme.splitlines() if x.startswith("tonk simulate") and "--compare" in x)
    args = line.split("#")[0].split()[1:]
    args[args.index("-n") + 1] = "600"  # the same command, fewer hands
    data = json.loads(tonk(*args, "--json").out)
    rows = {r["metric"]: r for r in data["rows"]}
    assert abs(rows["knocks won (share)"]["diff"]) > 0.2
    shown = readme.split(line, 1)[1]
    assert "B - A" in shown and "+61.4 pt" in shown  # the README shows that difference


def test_adjudicate_shows_money_at_the_case_stake(tmp_path):
    data = json.loads((Path(__file__).resolve().parents[2] / "examples" / "disputed-hands.json").read_text())
    case = data["cases"][0] if "cases" in data else data
    case.setdefault("ruleset", {}).setdefault("options", {})["base_stake"] = 5
    f = tmp_path / "stake.json"
    f.write_text(json.dumps({"cases": [case]}))
    r = tonk("adjudicate", str(f))
    assert r.code == 0, r.err
    (v,) = json.loads(tonk("adjudicate", str(f), "--json").out)["cases"]
    for pay in v["ledger"]:
        assert f"{pay['from']} \u2192 {pay['to']}  {pay['amount']} \u00d7 5 = {pay['amount'] * 5}  {pay['reason']}" in r.out
