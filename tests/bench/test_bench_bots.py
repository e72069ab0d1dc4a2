"""bench_bots --paired: the expert with and without a changed constant, hand by hand."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tonk.core.expert_bot as expert_bot

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout: bench/ is not in the package
from bench.bench_bots import paired  # noqa: E402


def test_paired_without_a_change_plays_every_hand_alike(monkeypatch):
    monkeypatch.setattr(expert_bot, "DEFAULT_ROLLOUTS", 6)
    p = paired(2, 3, [])
    assert p["hands"] == 4 and p["alike"] == 1.0
    assert p["difference"]["mean_net"] == 0 and p["current"] == p["changed"]


def test_paired_sets_a_constant_for_the_changed_run_only(monkeypatch):
    """The first run plays with the constants as they are, the second with the settings, and
    the constants are put back afterwards."""
    import bench.bench_bots as bench_bots

    monkeypatch.setattr(expert_bot, "DEFAULT_ROLLOUTS", 6)
    min_gain = expert_bot.MIN_GAIN
    seen = []
    play = bench_bots._heads_up_nets

    def spy(make_own, hands, seed):  # type: ignore[no-untyped-def]
        seen.append((expert_bot.MIN_GAIN, expert_bot.DEFAULT_ROLLOUTS))
        return play(make_own, hands, seed)

    monkeypatch.setattr(bench_bots, "_heads_up_nets", spy)
    p = paired(2, 3, ["MIN_GAIN=0.5", "DEFAULT_ROLLOUTS=4"])
    assert p["settings"] == {"MIN_GAIN": 0.5, "DEFAULT_ROLLOUTS": 4}
    assert seen == [(min_gain, 6), (0.5, 4)]
    assert p["hands"] == 4
    assert expert_bot.DEFAULT_ROLLOUTS == 6 and expert_bot.MIN_GAIN == min_gain


@pytest.mark.parametrize("setting", ["NO_SUCH=1", "better_than=1", "KNOCK_REFUSING=1"])
def test_paired_refuses_what_is_not_a_numeric_constant(setting):
    with pytest.raises(SystemExit, match="not a numeric constant"):
        paired(1, 1, [setting])


@pytest.mark.parametrize("setting", ["MIN_GAIN=x", "MIN_GAIN=", "DEFAULT_ROLLOUTS"])
def test_paired_refuses_a_value_that_is_not_a_number(setting):
    with pytest.raises(SystemExit, match="is not a number"):
        paired(1, 1, [setting])
