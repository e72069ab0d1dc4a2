"""Confidence intervals and plain verdicts for simulation figures.

A mean of per-hand values has a normal-approximation 95 % interval (``Z95``
standard errors either side), from the sample variance (the sum and the sum of
squares the tally keeps).  A share ``k / n`` has Wilson's score interval, and its
standard error is that of the share with one success and one failure added,
``(k + 1) / (n + 2)`` over ``n + 2`` (Agresti and Caffo): a share of 0 % or 100 %
is not taken as exact (7 knocks out of 7 won is not "certainly 100 %").  Two
rulesets run on the same seeds play different hands as soon as a rule changes
play, so a difference between them is treated as a difference of independent
samples: its standard error is the root of the sum of the two squared errors.

A difference's **verdict** says how far from zero it is, in standard errors:

* ``certain``: at least ``Z_CERTAIN`` (3.29, a chance below 1 in 1,000 that noise
  alone makes a difference this large);
* ``likely real``: at least ``Z95`` (1.96, below 1 in 20);
* ``within noise``: less;
* ``no difference``: both sides exactly equal with no spread at all (e.g. 0 % and 0 %).
"""

from __future__ import annotations

import math
from typing import Any

Z95 = 1.959963984540054
Z_CERTAIN = 3.290526731491926


def mean_ci(total: float, total_sq: float, n: int) -> dict[str, Any]:
    """The mean of ``n`` values given their sum and sum of squares, with its standard error
    and 95 % interval: ``{mean, se, ci: [lo, hi], n}``."""
    if n <= 0:
        return {"mean": 0.0, "se": 0.0, "ci": [0.0, 0.0], "n": 0}
    mean = total / n
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1)) if n > 1 else 0.0
    se = math.sqrt(var / n)
    return {"mean": mean, "se": se, "ci": [mean - Z95 * se, mean + Z95 * se], "n": n}


def share_ci(count: int, n: int) -> dict[str, Any]:
    """A share ``count / n`` with its standard error (one success and one failure added) and
    Wilson's 95 % score interval, within 0..1 and never of zero width:
    ``{mean, se, ci: [lo, hi], n, count}``."""
    if n <= 0:
        return {"mean": 0.0, "se": 0.0, "ci": [0.0, 0.0], "n": 0, "count": 0}
    p = count / n
    adjusted = (count + 1) / (n + 2)
    se = math.sqrt(adjusted * (1 - adjusted) / (n + 2))
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    lo = 0.0 if count == 0 else max(0.0, centre - half)
    hi = 1.0 if count == n else min(1.0, centre + half)
    return {"mean": p, "se": se, "ci": [lo, hi], "n": n, "count": count}


def verdict(diff: float, se: float) -> str:
    """The plain word for a difference and its standard error (see the module's doc)."""
    if se <= 0:
        return "no difference" if diff == 0 else "certain"
    z = abs(diff) / se
    if z >= Z_CERTAIN:
        return "certain"
    if z >= Z95:
        return "likely real"
    return "within noise"


def difference(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """``b - a`` of two estimates (``mean_ci``/``share_ci`` results): the difference, its
    standard error, 95 % interval and verdict."""
    diff = b["mean"] - a["mean"]
    se = math.sqrt(a["se"] ** 2 + b["se"] ** 2)
    said = "no difference" if diff == 0 and _no_spread(a) and _no_spread(b) else verdict(diff, se)
    return {"diff": diff, "se": se, "ci": [diff - Z95 * se, diff + Z95 * se], "verdict": said}


def _no_spread(e: dict[str, Any]) -> bool:
    """Whether an estimate's values were all alike (a share of 0 % or 100 %, a mean of equal values)."""
    return e["count"] in (0, e["n"]) if "count" in e else e["se"] == 0


def elo_gap(score: float) -> float:
    """The Elo rating difference whose expected score is ``score`` (clipped to 0.1 %..99.9 %)."""
    s = min(max(score, 0.001), 0.999)
    return 400.0 * math.log10(s / (1.0 - s))


def elo_ratings(names: list[str], scores: dict[tuple[str, str], float], anchor: float = 1500.0) -> dict[str, float]:
    """Ratings from a complete round robin: ``scores[(a, b)]`` is a's expected score against
    b.  The least-squares fit of ``r_a - r_b`` to each pairing's Elo gap, with the ratings'
    mean at ``anchor`` (for a complete round robin: each rating is the mean of its gaps)."""
    n = len(names)
    out = {}
    for a in names:
        gaps = [elo_gap(scores[(a, b)]) for b in names if b != a and (a, b) in scores]
        out[a] = anchor + (sum(gaps) / n if n else 0.0)
    return out


__all__ = ["Z95", "Z_CERTAIN", "difference", "elo_gap", "elo_ratings", "mean_ci", "share_ci", "verdict"]
