"""``bench.peer_rlcard`` judges its target by the ratio within each round (the two sides ran
one after the other), not by one side's median over the other's: a machine that speeds up
between rounds must not make tonk look faster than it is."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout: bench/ is not in the package
from bench.peer_rlcard import paired_wall_ratios  # noqa: E402


def _runs(actions: int, walls: list[float]) -> list[dict]:
    return [{"actions": actions, "wall_s": w} for w in walls]


def test_each_rounds_ratio_pairs_the_runs_of_that_round():
    # the sitting of 2026-12-02 07:51: RLCard slow in rounds 1-3, fast in 4-5, tonk alike
    rlcard = _runs(240_681, [8.12, 7.88, 7.98, 5.53, 5.66])
    tonk = _runs(198_181, [1.93, 1.84, 2.31, 1.64, 1.76])
    rounds = paired_wall_ratios(tonk, rlcard)
    assert rounds == [3.46, 3.53, 2.84, 2.78, 2.65]
    assert sorted(rounds)[2] == 2.84  # the median the target is judged by: not met
    # one side's median over the other's pairs tonk's round 2 with RLCard's slow round 3: 3.53
    tonk_median = sorted(198_181 / w for w in [1.93, 1.84, 2.31, 1.64, 1.76])[2]
    rlcard_median = sorted(240_681 / w for w in [8.12, 7.88, 7.98, 5.53, 5.66])[2]
    assert round(tonk_median / rlcard_median, 2) == 3.53
