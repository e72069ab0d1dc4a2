"""The rule a verdict cites for its ending and its payments is the rule that settled them
under the case's ruleset (core/rule_statements.py ``settling_rules``): a house rule of
rules.md section C where it, or an option away from its default, changes the settlement
(C1.3, C4.12-C4.16, C6.29, C6.31, C6.32), the base rule of A5/A12 otherwise.

The records (tests/core/fixtures/variant-settlements.json) come from the variant audit:
under each house rule the base rule's statement contradicted the ledger beside it (a
caught knocker "pays double to each player with an equal or lower total" above a ledger
that pays one player; "nobody is paid" above payments; "a player dealt 49 or 50" for a
dealt 13; a tie's payment with no payments; "double" above a 1-unit tonk out).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from tonk.application.adjudicate import adjudicate
from tonk.core.rule_statements import RULES, settling_rules, statement

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "variant-settlements.json"
STATED = {r.id for r in RULES}

#: case id -> (end_rule, payment_rules)
EXPECTED: dict[str, tuple[str, dict[str, str]]] = {
    # C1.3: a tonk out by hits only pays 1 (DN1), with a new spread 2 (DN2): the house rule both times
    "DN1": ("V:double-requires-new-spread", {"tonk_out": "V:double-requires-new-spread"}),
    "DN2": ("V:double-requires-new-spread", {"tonk_out": "V:double-requires-new-spread"}),
    # C4.12/C4.13: the totals that are a tonk, by the variant or by the option alone
    "I50b": ("V:initial-tonk-50-only", {"initial_tonk": "V:initial-tonk-50-only"}),
    "ITT1": ("V:initial-tonk-totals", {"initial_tonk": "V:initial-tonk-totals"}),
    # C4.14: a dealt 13 is a tonk; two low tonks are a draw
    "LT1": ("V:low-initial-tonk", {"initial_tonk": "V:low-initial-tonk"}),
    "LT3": ("V:low-initial-tonk", {}),
    # C4.16: several tonks are all paid (also low ones); all seats with a tonk: nobody pays
    "LT5": ("V:multiple-initial-tonks-all-paid", {"initial_tonk": "V:multiple-initial-tonks-all-paid"}),
    "MIT1": ("V:multiple-initial-tonks-all-paid", {"initial_tonk": "V:multiple-initial-tonks-all-paid"}),
    "MIT2": ("V:multiple-initial-tonks-all-paid", {}),
    # C6.29: the base scheme named explicitly is the base rules; any other is the house rule
    "CS1": ("A12.5", {"caught_penalty": "A12.5", "low_hand": "A12.6"}),
    "CS5": ("V:caught-scheme", {"caught_penalty": "V:caught-scheme", "low_hand": "V:caught-scheme"}),
    "CS6": ("V:caught-scheme", {"caught_penalty": "V:caught-scheme"}),
    "CS7": ("V:caught-scheme", {"caught_penalty": "V:caught-scheme", "low_hand": "V:caught-scheme"}),
    # C6.31: a tie at a dry stock is a draw, by the variant or by the option alone
    "ST1": ("V:stock-tie", {}),
    "ST5": ("V:stock-tie", {}),
    # C6.32: the hand ended when the stock ran out, paid by A12.8; with a tie under stock-tie, the draw
    "SE1": ("V:stock-end-immediate", {"stock_exhausted_low": "A12.8"}),
    "SE4": ("V:stock-tie", {}),
}


def _cases() -> list[dict]:
    return json.loads(FIXTURE.read_text())["cases"]


def test_the_fixture_holds_exactly_the_cases_expected_here():
    assert [c["id"] for c in _cases()] == list(EXPECTED)


@pytest.mark.parametrize("index", range(len(EXPECTED)), ids=list(EXPECTED))
def test_each_verdict_cites_the_rule_that_settled_it(index):
    case = _cases()[index]
    v = adjudicate(case, index)
    assert v["status"] == "ok", v
    end_rule, payment_rules = EXPECTED[case["id"]]
    assert (v["end_rule"], v["payment_rules"]) == (end_rule, payment_rules)
    assert set(v["payment_rules"]) == {p["reason"] for p in v["ledger"]}  # one rule for every reason paid
    assert {end_rule, *payment_rules.values()} <= STATED


def test_the_statements_agree_with_the_ledgers_beside_them():
    """The five records of the audit: the statement printed says what the ledger does."""
    verdicts = {c["id"]: adjudicate(c, i) for i, c in enumerate(_cases())}
    cs6 = verdicts["CS6"]  # dropper_pays_all_stakes: only the lowest is paid; P3 (12 <= 15) gets nothing
    assert [p["to"] for p in cs6["ledger"]] == ["P2"] and cs6["hand_totals"]["P3"] <= cs6["hand_totals"]["P1"]
    assert "caught_scheme" in statement(cs6["end_rule"]) and "equal or lower" not in statement(cs6["end_rule"])
    mit1 = verdicts["MIT1"]  # two tonks, both paid
    assert mit1["ledger"] and "nobody is paid" not in statement(mit1["end_rule"])
    assert "each player without one pays each of them twice the stake" in statement(mit1["end_rule"])
    lt1 = verdicts["LT1"]  # a dealt 13
    assert lt1["hand_totals"][lt1["end"]["player"]] == 13 and "49 or 50" not in statement(lt1["end_rule"])
    st1 = verdicts["ST1"]  # a tie at a dry stock, no payments
    assert st1["ledger"] == [] and "nobody is paid" in statement(st1["end_rule"])
    dn1 = verdicts["DN1"]  # out by hits only: 1 unit
    assert {p["amount"] for p in dn1["ledger"]} == {1} and "by hits only wins the basic stake" in statement(dn1["end_rule"])


def test_the_base_game_cites_the_base_rules():
    base = SimpleNamespace(variants=(), options={"caught_scheme": "pagat", "stock_tie": "split_as_catch", "initial_tonk_totals": [49, 50]})
    knock = {"type": "knock", "player": "P1", "outcome": "knocker_caught"}
    ledger = [{"reason": "caught_penalty"}, {"reason": "low_hand"}]
    assert settling_rules(base, knock, ledger, {}) == ("A12.5", {"caught_penalty": "A12.5", "low_hand": "A12.6"})
    assert settling_rules(base, {"type": "initial_tonk", "player": "P1"}, [{"reason": "initial_tonk"}], {"P1": 49}) == ("A5.2", {"initial_tonk": "A5.2"})
    assert settling_rules(base, {"type": "initial_tonk_draw", "players": ["P1", "P2"]}, [], {"P1": 49, "P2": 50}) == ("A5.3", {})
    assert settling_rules(base, {"type": "stock_exhausted", "player": "P1"}, [], {}) == ("A12.8", {})
    assert settling_rules(base, {"type": "turn_cap"}, [], {}) == ("B-31", {})
    assert settling_rules(base, None, [], {}) == (None, {})


def test_a_low_tonk_and_a_tonk_of_the_agreed_totals_cite_each_their_rule():
    both = SimpleNamespace(variants=("initial-tonk-50-only", "low-initial-tonk"), options={"initial_tonk_totals": [50], "low_tonk_max": 13})
    paid = [{"reason": "initial_tonk"}]
    assert settling_rules(both, {"type": "initial_tonk", "player": "P1"}, paid, {"P1": 50})[0] == "V:initial-tonk-50-only"
    assert settling_rules(both, {"type": "initial_tonk", "player": "P1"}, paid, {"P1": 12})[0] == "V:low-initial-tonk"
    draw = {"type": "initial_tonk_draw", "players": ["P1", "P2"]}
    assert settling_rules(both, draw, [], {"P1": 50, "P2": 50}) == ("V:initial-tonk-50-only", {})
    assert settling_rules(both, draw, [], {"P1": 50, "P2": 9}) == ("V:low-initial-tonk", {})


def test_an_ending_or_payment_of_a_third_party_house_rule_cites_no_rule():
    rules = SimpleNamespace(variants=("keep-kings",), options={})
    assert settling_rules(rules, {"type": "royal_tonk", "player": "P1"}, [{"reason": "royal"}, {"reason": "knock_win"}], {}) == (None, {"knock_win": "A12.4"})
