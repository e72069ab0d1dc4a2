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


def test_the_plain_actions_table_is_what_rich_prints_for_the_same_rows():
    """Off a terminal the actions table is made as plain lines (a large file prints one per
    case); they must be the lines Rich's table gives, hostile and wide text included."""
    import io
    from types import SimpleNamespace

    from rich.console import Console

    from tonk.cli.adjudicate import _actions_table
    from tonk.cli.render import UNWRAPPED

    actions = [
        {"seq": 1, "player": "ann", "action": "draw_stock", "legal": True, "drawn": "10H"},
        {"seq": 2, "player": "[bold red]x[/]", "action": "discard", "legal": False, "violation": "NOT_IN_HAND", "rule": "A7.4", "message": "[/] \x1b[31mfake\r"},
        {"seq": 10, "player": "b\u00f6b\u4e2d", "action": "spread", "legal": True, "spread_id": "S1"},
        {"seq": 11, "player": "cy", "action": "hit", "legal": True, "effect": "stock_empty"},
    ]
    raw = [{}, {"card": "KS"}, {"cards": ["2C", "3C", "4C"]}, {"card": "5C", "target": "S1"}]

    def printed(rich_table: bool) -> str:
        buf = io.StringIO()
        out = Console(file=buf, width=UNWRAPPED, soft_wrap=True, highlight=False, force_terminal=False)
        out.print(_actions_table(SimpleNamespace(is_terminal=rich_table), actions, raw))
        return buf.getvalue()

    plain = printed(rich_table=False)
    assert plain == printed(rich_table=True)
    assert "[bold red]x[/]" in plain and "\\x1b[31mfake\\x0d" in plain and "\x1b" not in plain and "\r" not in plain
