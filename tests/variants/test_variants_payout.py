"""Payout variants: double-requires-new-spread (B-23), caught-scheme (C6.29), stock-tie (C6.31)."""

from __future__ import annotations

import pytest
from variant_helpers import act, judge, ledger, position, record

from tonk.variants import load_ruleset
from tonk.core import RulesetError

TABLE = (("S1", "P1", "5S 6S 7S"), ("S2", "P2", "QH QD QS"), ("S3", "P3", "3H 4H 5H"))
OTHERS = {"P2": "9C 4D", "P3": "JC 8D"}
DOUBLE = ledger("P2>P1 2 tonk_out", "P3>P1 2 tonk_out")
SINGLE = ledger("P2>P1 1 tonk_out", "P3>P1 1 tonk_out")


def _hits_only() -> list[dict]:
    return [act("P1", "draw_stock", drawn="2H"), act("P1", "hit", card="8S", target="S1"), act("P1", "hit", card="QC", target="S2"), act("P1", "hit", card="2H", target="S3")]


def _spread_then_hits() -> list[dict]:
    return [act("P1", "draw_stock", drawn="QC"), act("P1", "spread", cards="9D 10D JD", spread_id="S4"), act("P1", "hit", card="8S", target="S1"), act("P1", "hit", card="QC", target="S2")]


def _hits_then_spread() -> list[dict]:
    return [act("P1", "draw_stock", drawn="QC"), act("P1", "hit", card="8S", target="S1"), act("P1", "hit", card="QC", target="S2"), act("P1", "spread", cards="9D 10D JD", spread_id="S4")]


def _going_out(variants, actions, hand, stock, want, **options):
    case = record(variants, position({"P1": hand, **OTHERS}, stock=stock, table=TABLE), actions, options=options, expected={"end": {"type": "tonk_out", "player": "P1"}, "ledger": want})
    judge(case)


@pytest.mark.parametrize(
    "scope, actions, hand, stock, want",
    [
        ("going_out_turn", _hits_only, "8S QC", "2H", SINGLE),
        ("going_out_turn", _spread_then_hits, "9D 10D JD 8S", "QC", DOUBLE),
        ("final_action", _spread_then_hits, "9D 10D JD 8S", "QC", SINGLE),
        ("final_action", _hits_then_spread, "9D 10D JD 8S", "QC", DOUBLE),
        ("whole_hand", _hits_only, "8S QC", "2H", DOUBLE),  # S1 on the explicit table is P1's, laid earlier in this hand (B-23)
        ("whole_hand", _spread_then_hits, "9D 10D JD 8S", "QC", DOUBLE),
    ],
)
def test_double_requires_new_spread_scopes(scope, actions, hand, stock, want):
    _going_out(["double-requires-new-spread"], actions(), hand, stock, want, new_spread_scope=scope)


def test_base_game_pays_double_for_hits_only():
    _going_out([], _hits_only(), "8S QC", "2H", DOUBLE)


def test_double_requires_new_spread_whole_hand_counts_an_earlier_turn():
    hand = "9D 10D JD 8S KC"
    actions = [
        act("P1", "draw_stock", drawn="QC"),
        act("P1", "spread", cards="9D 10D JD", spread_id="S4"),
        act("P1", "discard", card="KC"),
        act("P2", "draw_stock", drawn="2D"),
        act("P2", "discard", card="2D"),
        act("P3", "draw_stock", drawn="3D"),
        act("P3", "discard", card="3D"),
        act("P1", "draw_stock", drawn="6H"),
        act("P1", "hit", card="8S", target="S1"),
        act("P1", "hit", card="QC", target="S2"),
        act("P1", "hit", card="6H", target="S3"),
    ]
    for variant, scope, want in (
        ("double-requires-new-spread", "going_out_turn", SINGLE),
        ("double-for-new-spread", "whole_hand", DOUBLE),  # the alias names the same variant
    ):
        case = record([variant], position({"P1": hand, **OTHERS}, stock="QC 2D 3D 6H", table=TABLE), actions, options={"new_spread_scope": scope}, expected={"end": {"type": "tonk_out", "player": "P1"}, "ledger": want})
        judge(case)


def test_double_requires_new_spread_leaves_out_by_discard_alone():
    case = record(
        ["double-requires-new-spread"],
        position({"P1": "8S 2C", **OTHERS}, stock="QC", table=TABLE),
        [act("P1", "draw_stock"), act("P1", "hit", card="8S", target="S1"), act("P1", "hit", card="QC", target="S2"), act("P1", "discard", card="2C")],
        expected={"end": {"type": "out_by_discard", "player": "P1"}, "ledger": ledger("P2>P1 1 out_by_discard", "P3>P1 1 out_by_discard")},
    )
    judge(case)


# --- caught-scheme ---------------------------------------------------------------------------------------

CAUGHT = {"P1": "2C 3D 4H 2H AS", "P2": "AD AC 2S 2D 3H", "P3": "5S 5H"}  # 12, 9, 10


@pytest.mark.parametrize(
    "scheme, want",
    [
        ("double_to_catchers_only", ledger("P1>P2 2 caught_penalty", "P1>P3 2 caught_penalty")),
        ("dropper_pays_all_stakes", ledger("P1>P2 2 caught_penalty")),
        ("double_to_low_plus_others_base", ledger("P1>P2 2 caught_penalty", "P3>P2 1 low_hand")),
        ("pagat", ledger("P1>P2 2 caught_penalty", "P1>P3 2 caught_penalty", "P1>P2 1 low_hand", "P3>P2 1 low_hand")),
    ],
)
def test_caught_scheme(scheme, want):
    case = record(["caught-scheme"], position(CAUGHT), [act("P1", "knock")], options={"caught_scheme": scheme}, expected={"end": {"type": "knock", "player": "P1", "outcome": "knocker_caught"}, "hand_totals": {"P1": 12, "P2": 9, "P3": 10}, "ledger": want})
    judge(case)


def test_caught_scheme_must_be_chosen():
    with pytest.raises(RulesetError, match=r"variant caught-scheme needs the option caught_scheme to be given \(one of pagat, "):
        load_ruleset(["caught-scheme"])


def test_base_game_uses_the_pagat_scheme():
    judge(record([], position(CAUGHT), [act("P1", "knock")], expected={"ledger": ledger("P1>P2 2 caught_penalty", "P1>P3 2 caught_penalty", "P1>P2 1 low_hand", "P3>P2 1 low_hand")}))


# --- stock-tie ----------------------------------------------------------------------------------------------

TIE = {"P1": "5S 6H", "P2": "KS AS", "P3": "KD QD"}  # 11, 11, 20


def test_stock_tie_draw_by_default_under_the_variant():
    actions = [act("P1", "draw_stock", effect="ends_hand_stock_exhausted")]
    judge(record(["stock-tie"], position(TIE, rest="discard"), actions, expected={"end": {"type": "stock_exhausted", "player": "P1"}, "hand_totals": {"P1": 11, "P2": 11, "P3": 20}, "ledger": []}))
    judge(record(["stock-tie"], position(TIE, rest="discard"), actions, options={"stock_tie": "split_as_catch"}, expected={"ledger": ledger("P3>P1 1 stock_exhausted_low", "P3>P2 1 stock_exhausted_low")}))
    judge(record([], position(TIE, rest="discard"), actions, expected={"ledger": ledger("P3>P1 1 stock_exhausted_low", "P3>P2 1 stock_exhausted_low")}))
    # a single lowest player is paid as usual
    judge(record(["stock-tie"], position({"P1": "5S 5H", "P2": "KS AS", "P3": "KD QD"}, rest="discard"), actions, expected={"ledger": ledger("P2>P1 1 stock_exhausted_low", "P3>P1 1 stock_exhausted_low")}))
