"""`tonk adjudicate` on partial-knowledge hand records (format_version 2): --check on the
public cases, the text and JSON of open verdicts, and malformed records refused with the
place named (exit 2, no traceback)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tonk.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
PARTIAL = ROOT / "examples" / "public-partial-cases.json"
runner = CliRunner()


def _file(tmp_path: Path, doc: dict[str, Any], name: str = "records.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def _pk12() -> dict[str, Any]:
    doc = json.loads(PARTIAL.read_text())
    return next(c for c in doc["cases"] if c["id"] == "PK12")


def test_the_public_partial_cases_pass_check():
    result = runner.invoke(app, ["adjudicate", str(PARTIAL), "--check"])
    assert result.exit_code == 0, result.output
    assert "3 match expected, 0 differ; 1 listed as malformed, 1 refused as expected" in result.output


def test_check_finds_a_wrong_range_and_a_wrong_outcome(tmp_path):
    doc = json.loads(PARTIAL.read_text())
    pk12 = next(c for c in doc["cases"] if c["id"] == "PK12")
    pk12["expected"]["hand_totals"]["P1"] = {"min": 3, "max": 11}
    pk12["expected"]["outcomes"].pop()
    result = runner.invoke(app, ["adjudicate", _file(tmp_path, doc), "--check"])
    assert result.exit_code == 1
    assert "differs hand_totals" in result.output and "differs outcomes" in result.output


def test_check_does_not_compare_the_decided_by_sentence(tmp_path):
    doc = json.loads(PARTIAL.read_text())
    pk12 = next(c for c in doc["cases"] if c["id"] == "PK12")
    pk12["expected"]["decided_by"] = "P1's total: 5 or less, P1 alone is lowest; 6, P1 and P3 tie; 7 or more, P3 is lowest"
    result = runner.invoke(app, ["adjudicate", _file(tmp_path, doc), "--check"])
    assert result.exit_code == 0, result.output


def test_check_finds_a_malformed_record_that_is_read(tmp_path):
    doc = json.loads(PARTIAL.read_text())
    doc["malformed"].append(copy.deepcopy(doc["cases"][0]) | {"id": "FINE"})
    result = runner.invoke(app, ["adjudicate", _file(tmp_path, doc), "--check"])
    assert result.exit_code == 1
    assert "FINE" in result.output and "listed as malformed, but read as a valid record" in result.output


def test_text_shows_ranges_unknown_cards_and_what_decides(tmp_path):
    result = runner.invoke(app, ["adjudicate", str(PARTIAL)])
    assert result.exit_code == 0, result.output
    assert "P3: 2 unknown  total 4 to 20" in result.output
    assert "drew a card nobody saw" in result.output
    assert "end: open, 3 possible outcomes" in result.output
    assert "decided by: P1's total 8 to 12: stock exhausted by P2" in result.output


def test_json_uses_the_expected_blocks_field_names():
    result = runner.invoke(app, ["adjudicate", str(PARTIAL), "--json"])
    assert result.exit_code == 0
    cases = {c["id"]: c for c in json.loads(result.stdout)["cases"]}
    assert cases["PK05"]["hand_totals"]["P3"] == {"min": 4, "max": 20}
    assert cases["PK05"]["final_hands"]["P3"] == {"unknown": 2} and cases["PK05"]["open"] is False
    pk12 = cases["PK12"]
    assert pk12["open"] is True and len(pk12["outcomes"]) == 3
    assert not {"end", "ledger", "net"} & set(pk12)
    assert set(pk12["outcomes"][0]) == {"end", "ledger", "net"} and pk12["decided_by"]


def test_a_single_case_file_may_carry_its_own_version(tmp_path):
    case = _pk12() | {"format_version": 2}
    result = runner.invoke(app, ["adjudicate", _file(tmp_path, case), "--check"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda c: c["setup"]["hands"]["P3"].append("9C"), "case PK12: setup.discard: card 9C is named twice (also in setup.hands.P3)"),
        (lambda c: c["setup"].update(stock={"unknown": 3}), "case PK12: setup: the unknown counts add up to 8"),
        (lambda c: c["setup"]["discard"].update(hidden=True), "case PK12: setup.discard: unknown field(s) hidden"),
        (lambda c: c["actions"][0].update(card="KC"), "case PK12: actions[0].card: KC is not an unseen card"),
    ],
)
def test_malformed_records_exit_2_naming_the_place(tmp_path, change, message):
    case = _pk12()
    change(case)
    doc = {"format": "tonk-adjudication-cases", "format_version": 2, "cases": [case]}
    result = runner.invoke(app, ["adjudicate", _file(tmp_path, doc)])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)  # a clean exit 2, not an exception


def test_a_version_1_file_refuses_unknown_cards(tmp_path):
    doc = {"format_version": 1, "cases": [_pk12()]}
    result = runner.invoke(app, ["adjudicate", _file(tmp_path, doc)])
    assert result.exit_code == 2
    assert "case PK12: setup.hands.P1" not in result.output and "setup.stock: expected a list of cards" in result.output


def test_schema_describes_both_hand_record_versions():
    result = runner.invoke(app, ["schema", "--hand-record"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["x-tonk-format-versions"] == [1, 2]
    v1 = schema["$defs"]["case_v1"]["properties"]["setup"]["oneOf"][1]["properties"]
    v2 = schema["$defs"]["case_v2"]["properties"]["setup"]["oneOf"][1]["properties"]
    assert v1["stock"]["$ref"] == "#/$defs/cards"  # version 1: a list, top first
    assert v2["stock"]["oneOf"][1]["required"] == ["unknown"]
    assert set(v2["hands"]["additionalProperties"]["oneOf"][1]["properties"]) == {"unknown", "cards"}
    legal = schema["$defs"]["case_v2"]["properties"]["actions"]["items"]["properties"]["expect"]["properties"]["legal"]
    assert {"const": "open"} in legal["oneOf"]
    assert "malformed" in schema["oneOf"][1]["properties"]
    # the event schema is still what `tonk schema` prints
    assert json.loads(runner.invoke(app, ["schema"]).stdout)["x-tonk-format"] != "tonk-adjudication-cases"
