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
