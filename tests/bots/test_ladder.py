"""``tonk bots`` and its ladder: every pair plays with seats swapped, rated by score."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tonk.application.bot_ladder import LadderConfig, ladder
from tonk.application.stats import elo_gap, elo_ratings
from tonk.cli.app import app


def test_the_ladder_rates_greedy_above_random_and_is_deterministic():
    config = LadderConfig(bots=("greedy", "random"), hands=120, seed=3)
    first = ladder(config)
    assert ladder(config) == first
    (pair,) = first["pairings"]
    assert (pair["a"], pair["b"], pair["hands"]) == ("greedy", "random", 240)
    assert pair["ci"][0] < pair["mean_net"] < pair["ci"][1] and pair["ci"][0] > 0
    assert pair["score"] > 0.5 and pair["elo_gap"] > 0
    assert [r["bot"] for r in first["ratings"]] == ["greedy", "random"]
    assert first["ratings"][0]["rating"] + first["ratings"][1]["rating"] == 3000


def test_a_larger_table_seats_the_bots_alternately_both_ways():
    config = LadderConfig(bots=("greedy", "random"), hands=10, players=3)
    assert [c.seat_bots() for c in config.runs("greedy", "random")] == [("greedy", "random", "greedy"), ("random", "greedy", "random")]


def test_elo_ratings_of_a_round_robin():
    scores = {("a", "b"): 0.75, ("b", "a"): 0.25, ("a", "c"): 0.5, ("c", "a"): 0.5, ("b", "c"): 0.5, ("c", "b"): 0.5}
    r = elo_ratings(["a", "b", "c"], scores)
    assert abs(sum(r.values()) / 3 - 1500) < 1e-9
    assert r["a"] > r["c"] > r["b"]
    assert abs(elo_gap(0.75) - 190.848) < 0.01


def test_tonk_bots_lists_and_ladders_from_the_command_line():
    runner = CliRunner()
    listed = runner.invoke(app, ["bots", "--json"])
    assert listed.exit_code == 0
    assert [b["name"] for b in json.loads(listed.stdout)["bots"]] == ["expert", "greedy", "random"]
    r = runner.invoke(app, ["bots", "--ladder", "--bot", "greedy", "--bot", "random", "--hands", "40", "--seed", "2", "--json"])
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert set(data) == {"config", "pairings", "ratings"} and data["config"]["hands"] == 40
    text = runner.invoke(app, ["bots", "--ladder", "--bot", "greedy", "--bot", "random", "--hands", "40", "--seed", "2"])
    assert text.exit_code == 0 and "ratings" in text.stdout and "95% interval" in text.stdout


def test_bad_ladder_input_is_one_error_line():
    runner = CliRunner()
    for args, words in (
        (["bots", "--ladder", "--bot", "greedy"], "at least two bots"),
        (["bots", "--ladder", "--bot", "greedy", "--bot", "psychic"], "unknown bot 'psychic'"),
        (["bots", "--ladder", "--bot", "psychic"], "unknown bot 'psychic'"),
        (["bots", "--ladder", "--bot", "greedy", "--bot", "random", "--hands", "0"], "--hands"),
        (["bots", "--bot", "greedy"], "--ladder"),
        (["bots", "--hands", "3"], "--hands: how the ladder is played: give --ladder"),
        (["bots", "-s", "1", "-w", "2", "--json"], "--seed, --workers: how the ladder is played: give --ladder"),
        (["bots", "--ladder", "--players", "0"], "seats 2 to 3 players, not 0"),
        (["bots", "--ladder", "--bot", "greedy", "--bot", "random", "--variant", "no-such-rule"], "no-such-rule"),
    ):
        r = runner.invoke(app, args)
        assert r.exit_code == 2, (args, r.stdout, r.stderr)
        assert words in r.stderr and "Traceback" not in r.stderr


def test_a_pairings_score_is_its_share_of_the_hands_played():
    # each run's hands are counted once: heads-up, a hand is won by one bot or the other or
    # no one (a draw, half to each), so greedy's score is its wins over the 2 x 60 hands
    # plus half the undecided ones (it read 2 x 120 hands: every score was pulled to 50 %)
    (pair,) = ladder(LadderConfig(bots=("greedy", "random"), hands=60, seed=5))["pairings"]
    assert pair["hands"] == 120 and pair["wins_a"] + pair["wins_b"] <= 120
    undecided = pair["hands"] - pair["wins_a"] - pair["wins_b"]
    assert pair["score"] == (pair["wins_a"] + 0.5 * undecided) / pair["hands"]
    assert pair["elo_gap"] == elo_gap(pair["score"])


def test_the_ladders_rules_line_names_its_options_as_its_json_does():
    runner = CliRunner()
    args = ["bots", "--ladder", "--bot", "greedy", "--bot", "random", "--hands", "4", "--variant", "hit-penalty", "--option", "base_stake=2"]
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)["config"]
    assert (data["variants"], data["options"]) == (["hit-penalty"], {"base_stake": 2})
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.stderr
    assert text.stdout.splitlines()[0] == "bot ladder: 4 hands per pairing and seating, 2 players, rules hit-penalty base_stake=2, seed 0"
