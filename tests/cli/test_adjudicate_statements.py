"""``tonk adjudicate`` in text mode prints, under the verdicts, the one-line statement of each
rule cited (core/rule_statements.py), for format versions 1 and 2; --json is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tonk.application.adjudicate import adjudicate
from tonk.cli.app import app
from tonk.core.handrecord import load_records
from tonk.core.rule_statements import statement

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def test_version_1_statements_under_refusals_endings_and_payments():
    out = run("adjudicate", str(ROOT / "examples" / "disputed-hands.json")).stdout
    assert f"seq 1, rule A7.3: {statement('A7.3')}" in out
    assert f"seq 6, rule A7.1: {statement('A7.1')}" in out
    assert f"rule A12.5: {statement('A12.5')}" in out  # D1's ending: the knocker caught
    assert f"rule A12.6: {statement('A12.6')}" in out  # D1's low_hand payments


def test_version_2_statements_under_each_open_outcome():
    out = run("adjudicate", str(ROOT / "examples" / "public-partial-cases.json")).stdout
    pk12 = out.split("PK12", 1)[1]
    assert f"rule A12.8: {statement('A12.8')}" in pk12.split("outcome 2")[0]
    assert f"seq 2, rule A7.3: {statement('A7.3')}" in out  # PK08: CARD_NOT_IN_HAND


def test_json_holds_the_verdicts_as_before():
    path = ROOT / "examples" / "disputed-hands.json"
    printed = json.loads(run("adjudicate", str(path), "--json").stdout)["cases"]
    assert printed == [adjudicate(case, i) for i, case in enumerate(load_records(path))]
    assert "statement" not in json.dumps(printed)


def test_a_tie_for_lowest_is_settled_by_a_statement_that_says_how_a_tie_pays():
    """T09 (two non-knockers tie for lowest): the low-hand payments' rule says the tied players
    are each paid and do not pay each other (A12.7, B-03), not only "the player who held the
    lowest hand"; the exhausted stock's rule says the same of its tie (B-06)."""
    cases = json.loads((ROOT / "examples" / "public-cases.json").read_text())
    t09 = next(c for c in cases["cases"] if c["id"] == "T09")
    out = run_on({**cases, "cases": [t09]})
    line = next(x for x in out.splitlines() if "rule A12.6:" in x)
    assert "tied lowest players are each paid, not by each other (A12.7)" in line, line
    assert "tied lowest players are each paid, not by each other (B-06)" in statement("A12.8")


def run_on(records: dict) -> str:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "records.json"
        path.write_text(json.dumps(records))
        result = run("adjudicate", str(path))
    assert result.exit_code in (0, 1), result.stdout
    return result.stdout


VARIANT_SETTLEMENTS = ROOT / "tests" / "core" / "fixtures" / "variant-settlements.json"


def _text_of_case(case_id: str) -> str:
    records = json.loads(VARIANT_SETTLEMENTS.read_text())
    case = next(c for c in records["cases"] if c["id"] == case_id)
    return run_on({**records, "cases": [case]})


def test_under_a_house_rule_that_settles_the_hand_its_statement_is_printed_not_the_base_rules():
    """The variant audit's five records (notes s14 audvar item 2): the base rule's statement
    contradicted the ledger printed with it; the house rule's statement is printed instead."""
    for case_id, house_rule, base_rule in [
        ("CS6", "V:caught-scheme", "A12.5"),  # a lower player paid nothing by dropper_pays_all_stakes
        ("MIT1", "V:multiple-initial-tonks-all-paid", "A5.3"),  # "nobody is paid" above payments
        ("LT1", "V:low-initial-tonk", "A5.2"),  # "a player dealt 49 or 50" for a dealt 13
        ("ST1", "V:stock-tie", "A12.8"),  # a tie's payment with no payments
        ("DN1", "V:double-requires-new-spread", "A12.1"),  # "double" above a 1-unit tonk out
    ]:
        out = _text_of_case(case_id)
        assert f"rule {house_rule}: {statement(house_rule)}" in out, (case_id, out)
        assert f"rule {base_rule}:" not in out, (case_id, out)


def test_the_payments_rule_is_printed_under_the_ledger_when_it_is_not_the_endings():
    out = _text_of_case("SE1")  # stock-end-immediate ends the hand; A12.8 pays the lowest
    end, ledger = out.split("  ledger:")
    assert f"rule V:stock-end-immediate: {statement('V:stock-end-immediate')}" in end
    assert f"rule A12.8: {statement('A12.8')}" in ledger


def test_json_carries_the_settling_rules_of_each_verdict():
    printed = json.loads(run("adjudicate", str(VARIANT_SETTLEMENTS), "--json").stdout)["cases"]
    by_id = {v["id"]: v for v in printed}
    assert (by_id["CS6"]["end_rule"], by_id["CS6"]["payment_rules"]) == ("V:caught-scheme", {"caught_penalty": "V:caught-scheme"})
    assert (by_id["ST1"]["end_rule"], by_id["ST1"]["payment_rules"]) == ("V:stock-tie", {})
    d1 = json.loads(run("adjudicate", str(ROOT / "examples" / "disputed-hands.json"), "--json").stdout)["cases"][0]
    assert (d1["end_rule"], d1["payment_rules"]) == ("A12.5", {"caught_penalty": "A12.5", "low_hand": "A12.6"})


def _open_knock_under_a_caught_scheme() -> dict:
    """P1 knocks with A♠ 2♠ (3); P3's two cards are unseen: two low cards catch P1, two
    high ones do not, so the ending is open between A12.4 and the table's caught scheme."""
    unseen = ["AH", "AD", "2H", "KH", "QH", "JH", "10H"]
    known = ["AS", "2S", "7D", "8D"]
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    discard = [r + s for s in "SHDC" for r in ranks if r + s not in unseen + known]
    return {
        "format": "tonk-adjudication-cases",
        "format_version": 2,
        "cases": [
            {
                "id": "OPENCS",
                "title": "an open knock under dropper_pays_all_stakes",
                "ruleset": {"variants": ["caught-scheme"], "options": {"base_stake": 1, "caught_scheme": "dropper_pays_all_stakes"}},
                "players": ["P1", "P2", "P3"],
                "dealer": "P3",
                "setup": {
                    "mode": "explicit",
                    "hands": {"P1": ["AS", "2S"], "P2": ["7D", "8D"], "P3": {"unknown": 2}},
                    "stock": {"unknown": 5},
                    "discard": discard,
                    "table": [],
                    "to_act": "P1",
                },
                "actions": [{"seq": 1, "player": "P1", "action": "knock"}],
            }
        ],
    }


def test_each_open_outcome_carries_and_prints_its_own_settling_rule():
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "open.json"
        path.write_text(json.dumps(_open_knock_under_a_caught_scheme()))
        (v,) = json.loads(run("adjudicate", str(path), "--json").stdout)["cases"]
        out = run("adjudicate", str(path)).stdout
    assert v["open"] is True and "end_rule" not in v
    assert all(set(o) == {"end", "ledger", "net"} for o in v["outcomes"])  # the expected block's shape
    rules = {o["end"]["outcome"]: (r["end_rule"], r["payment_rules"]) for o, r in zip(v["outcomes"], v["outcome_rules"], strict=True)}
    assert rules == {"knocker_won": ("A12.4", {"knock_win": "A12.4"}), "knocker_caught": ("V:caught-scheme", {"caught_penalty": "V:caught-scheme"})}
    assert f"rule V:caught-scheme: {statement('V:caught-scheme')}" in out
    assert f"rule A12.4: {statement('A12.4')}" in out
    assert "rule A12.5:" not in out
