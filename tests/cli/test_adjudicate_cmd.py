"""`tonk adjudicate`: verdicts for people and scripts, --check, and malformed files."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tonk.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "disputed-hands.json"
runner = CliRunner()


def test_verdict_for_people():
    result = runner.invoke(app, ["adjudicate", str(EXAMPLES)])
    assert result.exit_code == 0, result.output
    assert "illegal MUST_DRAW_FIRST (A7.3)" in result.output
    assert "end: knock P1 (knocker_caught)" in result.output
    assert "P1 \u2192 P2  2  caught_penalty" in result.output


def test_json_shape():
    result = runner.invoke(app, ["adjudicate", str(EXAMPLES), "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    case = data["cases"][1]
    assert case["status"] == "ok"
    for key in ("id", "actions", "end", "final_hands", "final_table", "final_piles", "hand_totals", "ledger", "net", "next_dealer"):
        assert key in case
    assert case["actions"][0]["violation"] == "MUST_DRAW_FIRST" and case["actions"][0]["rule"] == "A7.3"
    assert case["actions"][1]["drawn"] == "8C"


def test_check_passes_and_fails(tmp_path):
    assert runner.invoke(app, ["adjudicate", str(EXAMPLES), "--check"]).exit_code == 0
    data = json.loads(EXAMPLES.read_text())
    data["cases"][0]["expected"]["net"]["P1"] = -2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    result = runner.invoke(app, ["adjudicate", str(bad), "--check"])
    assert result.exit_code == 1
    assert "D1" in result.output and "net: expected" in result.output


def test_malformed_file_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    result = runner.invoke(app, ["adjudicate", str(bad)])
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "not valid JSON" in result.stderr and "Traceback" not in result.output
    data = json.loads(EXAMPLES.read_text())
    data["cases"][1]["actions"][2]["cards"][0] = "4Z"
    bad.write_text(json.dumps(data))
    result = runner.invoke(app, ["adjudicate", str(bad)])
    assert result.exit_code == 2
    assert "case D2: actions[2].cards[0]: unknown card '4Z'" in result.stderr


def test_missing_file():
    result = runner.invoke(app, ["adjudicate", "no/such/file.json"])
    assert result.exit_code == 2
    assert "no such file" in result.stderr
