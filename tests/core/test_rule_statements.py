"""Every rule id the engine can cite has a one-line statement, and every statement is of a
rule of rules.md (core/rule_statements.py).

The ids are found two ways: in the source (every string literal of the engine's packages
that is a rule id, and ``V:<name>`` of every built-in variant that raises an illegal
action), and by running the engine over the public cases, the referee cases and the
example disputes (the rule of every illegal action, of every ending and ledger entry).
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
import re
from pathlib import Path

import pytest

from tonk.application.adjudicate import adjudicate
from tonk.core.rule_statements import RECORD_SECTION, RULES, UnknownRule, ending_rule, payment_rule, rule, statement
from variant_helpers import public_cases_path

ROOT = Path(__file__).resolve().parents[2]
RULES_MD = ROOT.parent / "shared" / "rules.md"
ENGINE_PACKAGES = ("core", "variants", "application")
#: a rule id as verdicts and findings carry it: rules.md A/B, a house rule, or the record's own checks
RULE_ID = re.compile(r"A\d+(\.\d+)?|B-\d+|V:[a-z0-9][a-z0-9-]*|log|chain")
STATED = {r.id for r in RULES}
STATEMENTS_MODULE = ROOT / "core" / "rule_statements.py"


def _literals(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and RULE_ID.fullmatch(n.value)}


def _variants_that_cite() -> set[str]:
    """``V:<name>`` of every built-in variant whose module raises through ``VARIANT.illegal``."""
    from tonk.variants.registry import default_registry

    cited = set()
    for reg in default_registry().all():
        module = inspect.getmodule(reg.plugin)
        if module is None or not module.__name__.startswith("tonk.variants."):
            continue
        if ".illegal(" in inspect.getsource(module):
            cited.add(reg.info.rule)
    return cited


def _cited_in_source() -> set[str]:
    ids = set()
    for package in ENGINE_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path != STATEMENTS_MODULE:  # the statements themselves cite nothing
                ids |= _literals(path)
    return ids | _variants_that_cite()


def test_the_source_scan_finds_the_rules_the_engine_is_known_to_cite():
    # the B-35 table, the audit's ids, and variant rules both written out and built by VARIANT.illegal
    known = {"A6.1", "A12", "A7.1", "A7.2", "A7.3", "A7.4", "A8.1", "A8.2", "A8.3", "A9.1", "A9.2", "A1.1", "A4", "log", "chain"}
    found = _cited_in_source()
    assert known <= found, known - found
    assert {"V:jokers-wild", "V:deuces-wild", "V:hit-penalty", "V:mandatory-laydown"} <= found


def test_every_rule_id_in_the_engines_source_has_a_statement():
    missing = _cited_in_source() - STATED
    assert not missing, f"rule ids cited without a statement in core/rule_statements.py: {sorted(missing)}"


def _case_files() -> list[Path]:
    fixtures = ROOT / "tests" / "core" / "fixtures"
    return [public_cases_path(), fixtures / "referee-cases.json", ROOT / "examples" / "disputed-hands.json", fixtures / "variant-settlements.json"]


def _verdicts():
    for path in _case_files():
        for i, case in enumerate(json.loads(path.read_text())["cases"]):
            verdict = adjudicate(case, i)
            if verdict["status"] == "ok":
                yield verdict


@functools.cache
def _cited_by_verdicts() -> tuple[frozenset[str], frozenset[tuple[str, str | None]], frozenset[str]]:
    """The rules the verdicts over every case file name (of refused actions, ``end_rule`` and
    ``payment_rules``), the endings and the ledger reasons."""
    cited, endings, reasons = set(), set(), set()
    for v in _verdicts():
        cited |= {a["rule"] for a in v["actions"] if not a["legal"]}
        if v["end"] is not None:
            endings.add((v["end"]["type"], v["end"].get("outcome")))
            assert v["end_rule"] is not None, v["id"]
            cited.add(v["end_rule"])
        else:
            assert (v["end_rule"], v["payment_rules"]) == (None, {}), v["id"]
        assert set(v["payment_rules"]) == {entry["reason"] for entry in v["ledger"]}, v["id"]
        reasons |= set(v["payment_rules"])
        cited |= set(v["payment_rules"].values())
    return frozenset(cited), frozenset(endings), frozenset(reasons)


def test_every_rule_an_adjudication_names_has_a_statement():
    cited, endings, reasons = _cited_by_verdicts()
    # the cases reach every kind of verdict, so this is no empty check
    assert {"A6.1", "A7.2", "A8.3", "A9.2", "A12"} <= cited
    assert {"initial_tonk", "initial_tonk_draw", "tonk_out", "out_by_discard", "stock_exhausted"} <= {t for t, _ in endings}
    assert {("knock", "knocker_won"), ("knock", "knocker_caught")} <= endings
    assert {"caught_penalty", "low_hand", "knock_win"} <= reasons
    missing = cited - STATED
    assert not missing, f"rule ids cited without a statement: {sorted(missing)}"
    for rule_id in cited:
        assert statement(rule_id)


def test_every_ending_the_engine_can_produce_is_settled_by_a_stated_rule():
    # the end types core/events.py documents for HandEnded
    from tonk.core import events

    doc = inspect.getdoc(events.HandEnded) or ""
    types = set(re.findall(r"``([a-z_]+)``", doc[doc.index("``end``") :]))
    assert {"initial_tonk", "tonk_out", "knock", "turn_cap"} <= types
    for end_type in types - {"end", "knock"}:
        assert ending_rule(end_type) in STATED, end_type
    for outcome in ("knocker_won", "knocker_caught"):
        assert ending_rule("knock", outcome) in STATED


def test_every_statement_is_of_a_rule_the_engine_cites():
    settled = {ending_rule("turn_cap")}  # the host's cap: no case reaches it
    orphans = STATED - _cited_in_source() - _cited_by_verdicts()[0] - settled
    assert not orphans, f"statements of rules nothing cites: {sorted(orphans)}"


def _rules_md() -> str:
    if not RULES_MD.is_file():
        pytest.skip(f"the rules specification is not beside the project ({RULES_MD})")
    return RULES_MD.read_text()


def _ids_in_rules_md(text: str) -> set[str]:
    """The rule ids rules.md defines: bold numbered rules (**A7.4**, **B-31 ...**), the section
    headings (### A12. ...), and the variants of section C as ``V:<name>``."""
    ids = set(re.findall(r"\*\*(A\d+\.\d+|B-\d+)\b", text))
    ids |= set(re.findall(r"^### (A\d+)\.", text, re.MULTILINE))
    catalogue = text[text.index("\n## C. ") : text.index("\n## D. ")]
    ids |= {f"V:{name}" for name in re.findall(r"^\s*\d+\.\s+\*\*`([a-z0-9-]+)`\*\*", catalogue, re.MULTILINE)}
    return ids


def test_every_statement_is_of_a_rule_rules_md_defines():
    text = _rules_md()
    defined = _ids_in_rules_md(text)
    assert {"A1.1", "A7.4", "A12", "B-31", "V:knock-limit"} <= defined  # the parse finds each kind
    of_the_game = {r.id for r in RULES if r.section != RECORD_SECTION}
    assert not of_the_game - defined, sorted(of_the_game - defined)
    headings = set(re.findall(r"^#{2,3} (.+)$", text, re.MULTILINE))
    for r in RULES:
        if r.section != RECORD_SECTION:
            assert r.section in headings, (r.id, r.section)


def test_every_ledger_reason_rules_md_names_is_paid_by_a_stated_rule():
    text = _rules_md()
    b27 = text[text.index("**B-27") : text.index("- **B-28")]
    reasons = set(re.findall(r"`([a-z_]+)`", b27[b27.index("reasons:") :]))
    assert {"initial_tonk", "caught_penalty", "stock_exhausted_low"} <= reasons
    for reason in reasons:
        assert payment_rule(reason) in STATED, reason


def test_the_ids_that_are_no_rule_of_the_game_are_those_the_audit_documents():
    record_ids = {r.id for r in RULES if r.section == RECORD_SECTION}
    assert record_ids == {"log", "chain"}
    doc = (ROOT / "docs" / "cli-json.md").read_text()
    for rule_id in record_ids:
        assert f"`{rule_id}`" in doc


def test_statements_are_one_line_each_and_ids_unique():
    assert len(STATED) == len(RULES)
    for r in RULES:
        assert r.text and "\n" not in r.text and len(r.text) <= 160, r.id
        assert not r.text.startswith(r.id), r.id


def test_statement_of_a_rule_the_engine_cites():
    assert statement("A7.4") == "a discard ends your turn; you must have drawn first, and the card must be in your hand"
    assert rule("A6.1").section == "A6. Turn order"


@pytest.mark.parametrize("rule_id", ["A99", "V:keep-kings", "", "a7.4"])
def test_an_unknown_rule_id_is_a_clear_error(rule_id):
    with pytest.raises(UnknownRule) as exc:
        statement(rule_id)
    assert repr(rule_id) in str(exc.value) and exc.value.rule_id == rule_id


def test_an_unknown_ending_or_payment_reason_is_a_clear_error():
    with pytest.raises(UnknownRule, match="ending 'knock:None'"):
        ending_rule("knock")
    with pytest.raises(UnknownRule, match="payment reason 'bonus'"):
        payment_rule("bonus")
