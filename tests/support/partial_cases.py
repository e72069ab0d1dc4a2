"""Written-down explicit cases with parts hidden: the partial-knowledge records (format
version 2) that the engine tests, the HTTP test and ``bench/bench_partial.py`` judge.

Imported as ``partial_cases`` by the tests (``tests/support`` is on pytest's path) and as
``tests.support.partial_cases`` by the benchmark, run from the checkout's root."""

from __future__ import annotations

import copy
import random
from typing import Any


def hide_parts(case: dict[str, Any], rng: random.Random, hand_chance: float = 0.8) -> dict[str, Any]:
    """A copy of an explicit case with its stock unknown and, by chance, one hand (all of it
    or a part: ``hand_chance``) and the discard pile below its top unknown; without its
    expectations (the full case's verdict is what the hidden one is compared with)."""
    c = copy.deepcopy(case)
    c.pop("expected", None)
    for a in c.get("actions", []):
        a.pop("expect", None)
    setup = c["setup"]
    setup["stock"] = {"unknown": len(setup["stock"])}
    if rng.random() < hand_chance:
        p = rng.choice(c["players"])
        cards = setup["hands"][p]
        keep = rng.randint(0, len(cards))
        setup["hands"][p] = {"cards": cards[:keep], "unknown": len(cards) - keep}
    if rng.random() < 0.5 and len(setup["discard"]) > 1:
        setup["discard"] = {"cards": setup["discard"][:1], "unknown": len(setup["discard"]) - 1}
    c["format_version"] = 2
    return c
