"""settle_caught (loops, one pass over the seats) against its definition by comprehensions.

The reference below is the previous implementation, kept verbatim: the fast one must give
the same ledger lines in the same order for every scheme, knocker and pattern of totals."""

from __future__ import annotations

import itertools

import pytest

from tonk.core.events import Payment
from tonk.core.settlement import CAUGHT_SCHEMES, lowest, settle_caught, to_lowest


def reference_settle_caught(knocker, seats, totals, scheme):
    others = [p for p in seats if p != knocker]
    k = totals[knocker]
    catchers = [p for p in others if totals[p] <= k]
    low = lowest(others, totals)
    ledger: list[Payment] = []
    if scheme in ("pagat", "double_to_catchers_only", "double_flat", "pagat_without_knocker_base"):
        ledger += [Payment(knocker, p, 2, "caught_penalty") for p in catchers]
        if scheme == "pagat":
            ledger += to_lowest(low, seats, 1, "low_hand")
        elif scheme == "pagat_without_knocker_base":
            ledger += to_lowest(low, others, 1, "low_hand")
    elif scheme == "double_to_low_only":
        ledger += [Payment(knocker, p, 2, "caught_penalty") for p in low]
    elif scheme == "double_to_low_plus_others_base":
        ledger += [Payment(knocker, p, 2, "caught_penalty") for p in low]
        ledger += to_lowest(low, others, 1, "low_hand")
    elif scheme == "dropper_pays_all_stakes":
        ledger += [Payment(knocker, p, len(seats) - 1, "caught_penalty") for p in low]
    return ledger


@pytest.mark.parametrize("scheme", CAUGHT_SCHEMES)
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_settle_caught_equals_its_definition(scheme, n):
    seats = tuple(f"P{i}" for i in range(1, n + 1))
    checked = 0
    for values in itertools.product((3, 7, 7, 12), repeat=n):
        totals = dict(zip(seats, values))
        for knocker in seats:
            # a caught knock: someone else at or below the knocker
            if all(t > totals[knocker] for p, t in totals.items() if p != knocker):
                continue
            got = settle_caught(knocker, seats, totals, scheme)
            assert got == reference_settle_caught(knocker, seats, totals, scheme), (knocker, totals)
            checked += 1
    assert checked > 0
