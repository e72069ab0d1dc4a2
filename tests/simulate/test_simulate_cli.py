"""``tonk simulate`` through the CLI: the JSON shape, the store, --compare, bad input."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tonk.cli.app import app


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def _json(result):
    assert result.exit_code == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def test_json_report_shape(runner):
    result = runner.invoke(app, ["simulate", "--hands", "60", "--players", "2", "--bot", "greedy", "--bot", "random", "--seed", "3", "--no-store", "--json"])
    rep = _json(result)
    assert {"config", "games", "hands", "actions", "events", "endings", "tonk_out_rate", "knocks", "mean_hand_actions", "mean_hand_turns", "seats", "bots", "seconds", "hands_per_second", "actions_per_second"} <= set(rep)
    assert rep["hands"] == 60 and rep["config"]["bots"] == ["greedy", "random"] and rep["config"]["seed"] == 3
    assert [s["player"] for s in rep["seats"]] == ["P1", "P2"]
    assert set(rep["seats"][0]) >= {"seat", "player", "bot", "wins", "win_rate", "net", "mean_net", "knocks", "knocks_won", "knocks_caught", "tonk_outs"}
    assert set(rep["bots"]) == {"greedy", "random"}
    assert set(rep["knocks"]) == {"total", "won", "caught", "won_rate", "per_hand"}
    for e in rep["endings"].values():
        assert set(e) == {"count", "share"}


def test_same_seed_same_report(runner):
    args = ["simulate", "-n", "40", "-p", "3", "-b", "greedy", "-b", "random", "-s", "11", "--no-store", "--json"]
    a, b = _json(runner.invoke(app, args)), _json(runner.invoke(app, args))
    for r in (a, b):
        for k in ("seconds", "hands_per_second", "actions_per_second"):
            r.pop(k)
    assert a == b


def test_tables_for_people(runner):
    result = runner.invoke(app, ["simulate", "--hands", "30", "--players", "2", "--bot", "greedy", "--bot", "random", "--no-store"])
    assert result.exit_code == 0, result.stderr
    for text in ("hands/s", "endings", "seats", "bots", "greedy", "random", "tonk outs", "knocks"):
        assert text in result.stdout


def test_games_go_to_the_store(runner, tmp_path):
    from tonk.storage import EventStore

    path = tmp_path / "sim.db"
    rep = _json(runner.invoke(app, ["simulate", "-n", "20", "-p", "2", "--hands-per-game", "5", "--db", str(path), "--json"]))
    with EventStore.open(path, create=False) as store:
        games = list(store.iter_games())
        assert not store.verify()
    assert len(games) == rep["games"] == 4
    assert sum(len(ev) for _, ev in games) == rep["events"]
    # the global --db works as well
    other = tmp_path / "global.db"
    assert runner.invoke(app, ["--db", str(other), "simulate", "-n", "5", "-p", "2"]).exit_code == 0
    assert other.exists()
    # the same seed again into the same store: the same games, nothing added
    again = runner.invoke(app, ["simulate", "-n", "20", "-p", "2", "--hands-per-game", "5", "--db", str(path)])
    assert again.exit_code == 0
    with EventStore.open(path, create=False) as store:
        assert sum(len(ev) for _, ev in store.iter_games()) == rep["events"]


def test_compare_json(runner):
    rep = _json(runner.invoke(app, ["simulate", "-n", "80", "-p", "3", "--no-store", "--json", "--compare", "caught_scheme=dropper_pays_all_stakes"]))
    assert set(rep) == {"a", "b", "rows"}
    assert rep["a"]["config"]["options"] == {} and rep["b"]["config"]["options"] == {"caught_scheme": "dropper_pays_all_stakes"}
    assert all(set(r) == {"metric", "kind", "a", "b", "a_ci", "b_ci", "diff", "se", "ci", "verdict"} for r in rep["rows"])
    text = runner.invoke(app, ["simulate", "-n", "40", "-p", "3", "--no-store", "--variant", "hit-runs-only", "--compare", "classic"])
    assert text.exit_code == 0, text.stderr
    assert "B - A" in text.stdout and "hit-runs-only" in text.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["--bot", "nope"], "unknown bot 'nope'"),
        (["--option", "nonsense=1"], "unknown option 'nonsense'"),
        (["--option", "base_stake"], "NAME=VALUE"),
        (["--option", "base_stake=two"], "base_stake"),
        (["--variant", "no-such-variant"], "unknown variant"),
        (["--players", "7"], "seats 2 to 3"),
        (["--players", "0"], "seats 2 to 3 players, not 0"),
        (["--hands", "0"], "--hands"),
        (["--workers", "0"], "--workers"),
        (["--bot", "random", "--bot", "random", "--bot", "random", "--players", "2"], "3 bots named for 2 seats"),
        (["--db", "x.db"], "either --db PATH or --no-store"),
        (["--compare", "no-such-variant"], "--compare: unknown variant"),
        # the other ruleset is --compare's alone: its seats are its own to refuse
        (["--players", "4", "--variant", "more-players", "--compare", "classic"], "error: --compare: this ruleset seats 2 to 3 players, not 4"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(runner, args, message):
    result = runner.invoke(app, ["simulate", "--hands", "5", "--no-store", *args])
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert message in result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_workers_give_the_same_report(runner):
    args = ["simulate", "-n", "60", "-p", "3", "-b", "greedy", "-b", "random", "-s", "2", "--hands-per-game", "10", "--no-store", "--json"]
    one = _json(runner.invoke(app, args))
    two = _json(runner.invoke(app, [*args, "--workers", "2"]))
    for r in (one, two):
        for k in ("seconds", "hands_per_second", "actions_per_second"):
            r.pop(k)
        r["config"].pop("workers")
    assert one == two


def test_db_memory_appends_every_game_through_the_store_and_keeps_none(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rep = _json(runner.invoke(app, ["simulate", "-n", "20", "-p", "2", "--hands-per-game", "5", "--db", ":memory:", "--json"]))
    assert rep["games"] == 4 and rep["store"] == {"path": ":memory:", "games_appended": 4, "kept": False}
    people = runner.invoke(app, ["simulate", "-n", "10", "-p", "2", "--hands-per-game", "5", "--db", ":memory:"])
    assert people.exit_code == 0 and "appended 2 game(s) to an in-memory store (:memory:) and discarded them" in people.stdout
    assert list(tmp_path.iterdir()) == []  # no file called :memory: (nor anything else) was made


def test_db_memory_holds_nothing_to_read_and_takes_no_receipts(runner, tmp_path):
    audit = runner.invoke(app, ["--db", ":memory:", "audit", "--all"])
    assert audit.exit_code != 0 and "error: no tonk database at :memory:" in audit.stderr  # a new in-memory store is empty
    receipts = runner.invoke(app, ["simulate", "-n", "10", "--db", ":memory:", "--receipts", str(tmp_path / "r")])
    assert receipts.exit_code != 0 and "--db :memory: discards them" in receipts.stdout + receipts.stderr
