"""The caught settlement (A12.5-A12.7, B-02 to B-04, C6 caught-scheme), checked against what the
rules say of it for every scheme, knocker and pattern of totals: the penalty goes from the
knocker to catchers (or to the lowest), low-hand stakes go to the lowest of the others, and
tied lowest players never pay each other (B-03)."""

from __future__ import annotations

import itertools

import pytest

from tonk.core.settlement import CAUGHT_SCHEMES, settle_caught


@pytest.mark.parametrize("scheme", CAUGHT_SCHEMES)
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_caught_ledgers_follow_the_scheme(scheme, n):
    seats = tuple(f"P{i}" for i in range(1, n + 1))
    checked = 0
    for values in itertools.product((3, 7, 7, 12), repeat=n):
        totals = dict(zip(seats, values))
        for knocker in seats:
            others = [p for p in seats if p != knocker]
            if all(totals[p] > totals[knocker] for p in others):
                continue  # not caught
            low_total = min(totals[p] for p in others)
            low = {p for p in others if totals[p] == low_total}
            ledger = settle_caught(knocker, seats, totals, scheme)
            penalties = [x for x in ledger if x.reason == "caught_penalty"]
            stakes = [x for x in ledger if x.reason == "low_hand"]
            assert all(x.from_ == knocker for x in penalties)
            if scheme in ("pagat", "double_to_catchers_only", "double_flat", "pagat_without_knocker_base"):
                assert sorted(x.to for x in penalties) == sorted(p for p in others if totals[p] <= totals[knocker])
                assert {x.amount for x in penalties} == {2}
            else:
                assert sorted(x.to for x in penalties) == sorted(low)
                assert {x.amount for x in penalties} == ({n - 1} if scheme == "dropper_pays_all_stakes" else {2})
            assert all(x.to in low and x.from_ not in low and x.amount == 1 for x in stakes)
            if scheme == "pagat":
                assert len(stakes) == len(low) * (n - len(low))
            elif scheme in ("pagat_without_knocker_base", "double_to_low_plus_others_base"):
                assert len(stakes) == len(low) * (n - 1 - len(low)) and all(x.from_ != knocker for x in stakes)
            else:
                assert stakes == []
            checked += 1
    assert checked > 0
