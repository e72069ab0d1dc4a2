"""`tonk adjudicate` on hostile or unusual files: refused cleanly (one `error:` line, exit 2),
a check that checked nothing fails, verdicts stream out case by case, progress on a terminal."""

from __future__ import annotations

import copy
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tonk.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "disputed-hands.json"
DOC = json.loads(EXAMPLES.read_text())
runner = CliRunner()


def _write(tmp_path: Path, text: str, name: str = "cases.json") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _with_case(mutate) -> dict:
    doc = copy.deepcopy(DOC)
    mutate(doc["cases"][1])
    return doc


# --- JSON outside sane limits -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, names",
    [
        ('{"cases": [' + "[" * 100_000 + "]" * 100_000 + "]}", ["line 1", "nesting deeper than 64 levels"]),
        ('{"cases": [{"id": "A", "x": ' + "[" * 70 + "]" * 70 + "}]}", ["case #1", "nesting deeper than 64 levels"]),
        ('{"cases": [\n{"id": "A", "seq": ' + "9" * 5000 + "}]}", ["line 2", "an integer of 5000 digits"]),
        ('{"cases": [\n\n{"id": "A", "n": NaN}]}', ["line 3", "NaN is not a JSON number"]),
        ('{"id": "A", "n": -Infinity}', ["-Infinity is not a JSON number"]),
        ('{"id": "A", "n": 1e999}', ["out of range"]),
        ("[" * 5000 + "]" * 5000, ["nesting deeper than 64 levels"]),
        ('{"cases": [\n{"id": "A", "title": "x\\ud800"}]}', ["line 2", "lone surrogate U+D800"]),
    ],
)
def test_json_outside_the_limits_is_one_error_line_naming_the_file(tmp_path, clean_failure, text, names):
    path = _write(tmp_path, text)
    for extra in ([], ["--json"], ["--check"]):
        result = runner.invoke(app, ["adjudicate", str(path), *extra])
        clean_failure(result, 2, str(path))
        for n in names:
            assert n in result.stderr, result.stderr


# --- seq and expect.legal ------------------------------------------------------------------------


def test_a_file_with_a_byte_order_mark_is_read(tmp_path):
    """A UTF-8 byte order mark (as some editors write) is skipped, as RFC 8259 lets a parser do."""
    plain = runner.invoke(app, ["adjudicate", str(EXAMPLES), "--json"])
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + EXAMPLES.read_bytes())
    r = runner.invoke(app, ["adjudicate", str(bom), "--json"])
    assert r.exit_code == plain.exit_code == 0 and r.stdout == plain.stdout, r.stderr


@pytest.mark.parametrize("what, says", [("dir", "cannot be read (Is a directory)"), ("latin1", "not UTF-8 text (byte 8)")])
def test_a_directory_or_a_file_not_utf8_is_named_plainly(tmp_path, clean_failure, what, says):
    p = tmp_path / "cases.json"
    if what == "dir":
        p.mkdir()
    else:
        p.write_bytes(b'{"id": "\xe9t\xe9"}')
    clean_failure(runner.invoke(app, ["adjudicate", str(p)]), 2, f"{p}: {says}")


@pytest.mark.parametrize(
    "seqs, bad",
    [([1, 2, 2, 4], "actions[2].seq: is 2"), ([0, 1, 2, 3], "actions[0].seq: is 0"), ([-1, 2, 3, 4], "actions[0].seq: is -1"), ([2, 1, 3, 4], "actions[0].seq: is 2")],
)
def test_seq_must_count_1_2_3_in_order(tmp_path, seqs, bad):
    def mutate(case):
        for a, s in zip(case["actions"], seqs):
            a["seq"] = s

    path = _write(tmp_path, json.dumps(_with_case(mutate)))
    result = runner.invoke(app, ["adjudicate", str(path), "--check"])
    assert result.exit_code == 2
    assert f"error: case D2: {bad}" in result.stderr


@pytest.mark.parametrize("value", ["yes", 1, None, "true"])
def test_expect_legal_must_be_a_boolean(tmp_path, value):
    def mutate(case):
        case["actions"][0]["expect"]["legal"] = value

    path = _write(tmp_path, json.dumps(_with_case(mutate)))
    result = runner.invoke(app, ["adjudicate", str(path), "--check"])
    assert result.exit_code == 2
    assert "error: case D2: actions[0].expect.legal: must be true or false" in result.stderr


@pytest.mark.parametrize("value", ["2", 2.0, True, None, [2]])
@pytest.mark.parametrize("where", ["file", "case"])
def test_format_version_must_be_the_number_1_or_2(tmp_path, value, where):
    """A format_version that is not the number 1 or 2 is named, not read as version 1
    (a version 2 record's unknown cards then failed as "expected a list of cards")."""
    doc = copy.deepcopy(DOC)
    if where == "file":
        doc = {"format_version": value, **{k: v for k, v in doc.items() if k != "format_version"}}
    else:
        doc["cases"][1]["format_version"] = value
    path = _write(tmp_path, json.dumps(doc))
    result = runner.invoke(app, ["adjudicate", str(path)])
    assert result.exit_code == 2
    shown = "a list" if isinstance(value, list) else json.dumps(value)  # the file's own words, not Python's
    assert f"format_version: must be 1 or 2, not {shown}" in result.stderr, result.stderr


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda c: c["actions"][0].__setitem__("seq", True), "actions[0].seq: must be a whole number, not true"),
        (lambda c: c["actions"][0].__setitem__("seq", None), "actions[0].seq: must be a whole number, not null"),
        (lambda c: c["actions"][0]["expect"].__setitem__("legal", None), "actions[0].expect.legal: must be true or false, not null"),
        (lambda c: c["actions"][0]["expect"].__setitem__("legal", "yes"), 'actions[0].expect.legal: must be true or false, not "yes"'),
        (lambda c: c.__setitem__("id", 7), "#2: id: case id must be text, not 7"),
        (lambda c: c["setup"].__setitem__("mode", None), 'setup.mode: must be "deck" or "explicit", not null'),
    ],
)
def test_a_wrong_value_is_shown_as_json_writes_it(tmp_path, mutate, message):
    """A hand record is JSON: a wrong value is named in JSON's words (null, true, "2"), never
    Python's (None, True, '2', NoneType)."""
    path = _write(tmp_path, json.dumps(_with_case(mutate)))
    result = runner.invoke(app, ["adjudicate", str(path)])
    assert result.exit_code == 2
    assert f"error: case {message if message.startswith('#') else 'D2: ' + message}" in result.stderr, result.stderr
    assert not re.search(r"NoneType|\bNone\b|\bTrue\b|\bFalse\b", result.stderr), result.stderr


# --- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mutate, where",
    [
        (lambda c: c["players"].__setitem__(0, "P\x1b[31m1"), "players[0]: player name 'P\\x1b[31m1' contains the non-printable character U+001B"),
        (lambda c: c["players"].__setitem__(0, " P1"), "players[0]: player name ' P1' starts or ends with whitespace"),
        (lambda c: c["players"].__setitem__(0, "P" * 41), "players[0]: player name"),
        (lambda c: c.__setitem__("id", "D2\rverdict: clean"), "id: case id 'D2\\rverdict: clean' contains the non-printable character U+000D"),
    ],
)
def test_names_in_a_hand_record_follow_the_one_rule(tmp_path, mutate, where):
    path = _write(tmp_path, json.dumps(_with_case(mutate)))
    result = runner.invoke(app, ["adjudicate", str(path)])
    assert result.exit_code == 2
    line = [ln for ln in result.stderr.splitlines() if ln.startswith("error:")][0]
    assert where in line, line
    assert "\x1b" not in result.stderr and "\r" not in result.stderr


# --- a check that checked nothing ----------------------------------------------------------------


def _skipped(case):
    case["ruleset"]["variants"] = ["no-such-house-rule"]


def test_check_with_every_case_skipped_fails(tmp_path):
    doc = copy.deepcopy(DOC)
    for c in doc["cases"]:
        _skipped(c)
    path = _write(tmp_path, json.dumps(doc))
    for extra in ([], ["--json"]):
        result = runner.invoke(app, ["adjudicate", str(path), "--check", *extra])
        assert result.exit_code == 1, result.output
        assert "nothing was checked (all 2 case(s) were skipped)" in result.stderr
    # without --check nothing was claimed, so nothing fails
    assert runner.invoke(app, ["adjudicate", str(path)]).exit_code == 0


def test_check_of_an_empty_file_fails(tmp_path):
    path = _write(tmp_path, '{"cases": []}')
    result = runner.invoke(app, ["adjudicate", str(path), "--check"])
    assert result.exit_code == 1
    assert "nothing was checked (the file holds no case)" in result.stderr


def test_check_with_some_cases_skipped_says_so(tmp_path):
    doc = _with_case(_skipped)
    path = _write(tmp_path, json.dumps(doc))
    result = runner.invoke(app, ["adjudicate", str(path), "--check"])
    assert result.exit_code == 0
    assert "1 of 2 case(s) skipped, not checked" in result.stderr


def _without_expectations(case):
    case.pop("expected", None)
    for a in case.get("actions", []):
        a.pop("expect", None)


def test_check_with_no_expected_block_anywhere_fails(tmp_path):
    """Cases judged but none with an ``expected`` block or an action's ``expect``: nothing was
    compared, so the check fails (it once said "2 match expected" and exited 0)."""
    doc = copy.deepcopy(DOC)
    for c in doc["cases"]:
        _without_expectations(c)
    path = _write(tmp_path, json.dumps(doc))
    result = runner.invoke(app, ["adjudicate", str(path), "--check"])
    assert result.exit_code == 1, result.output
    assert "nothing compared: no case has an expected block" in result.stderr
    assert "match expected" not in result.stdout.replace("0 match expected", "")
    assert "2 without expectations" in result.stdout
    result = runner.invoke(app, ["adjudicate", str(path), "--check", "--json"])
    assert result.exit_code == 1, result.output
    assert "nothing compared: no case has an expected block" in result.stderr
    checks = [c["check"] for c in json.loads(result.stdout)["cases"]]
    assert checks == [{"ok": None, "compared": 0, "differences": []}] * 2
    # without --check nothing was claimed, so nothing fails
    assert runner.invoke(app, ["adjudicate", str(path)]).exit_code == 0


def test_check_with_some_cases_without_expectations_says_so(tmp_path):
    doc = _with_case(_without_expectations)
    path = _write(tmp_path, json.dumps(doc))
    result = runner.invoke(app, ["adjudicate", str(path), "--check"])
    assert result.exit_code == 0, result.output
    assert "1 match expected, 0 differ, 1 without expectations" in result.stdout
    assert "1 of 2 case(s) have no expected block, not compared" in result.stderr
    result = runner.invoke(app, ["adjudicate", str(path), "--check", "--json"])
    assert result.exit_code == 0, result.output
    first, second = (c["check"] for c in json.loads(result.stdout)["cases"])
    assert first["ok"] is True and first["compared"] > 0
    assert second == {"ok": None, "compared": 0, "differences": []}


# --- streaming -----------------------------------------------------------------------------------


def test_verdicts_before_a_broken_case_are_printed(tmp_path):
    text = json.dumps(DOC)
    cut = text.index('{"id": "D2"')
    path = _write(tmp_path, text[:cut] + '{"id": "D2", "x": NaN}]}')
    result = runner.invoke(app, ["adjudicate", str(path)])
    assert result.exit_code == 2
    assert "D1" in result.stdout and "end: knock" in result.stdout  # D1 was judged and shown
    assert "case #2" in result.stderr and "NaN" in result.stderr
    result = runner.invoke(app, ["adjudicate", str(path), "--json"])
    assert result.exit_code == 2
    assert [c["id"] for c in json.loads(result.stdout)["cases"]] == ["D1"]


def test_json_output_is_one_document_equal_to_the_whole_list(tmp_path):
    many = copy.deepcopy(DOC)
    many["cases"] = [dict(c, id=f"{c['id']}-{i}") for i in range(3) for c in DOC["cases"]]
    path = _write(tmp_path, json.dumps(many))
    result = runner.invoke(app, ["adjudicate", str(path), "--json", "--check"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert [c["id"] for c in data["cases"]] == [c["id"] for c in many["cases"]]
    assert result.stdout == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    empty = _write(tmp_path, '{"cases": []}', "empty.json")
    assert json.loads(runner.invoke(app, ["adjudicate", str(empty), "--json"]).stdout) == {"cases": []}


def _big_file(tmp_path: Path) -> Path:
    many = copy.deepcopy(DOC)
    many["cases"] = [dict(c, id=f"{c['id']}-{i}") for i in range(300) for c in DOC["cases"]]
    path = _write(tmp_path, json.dumps(many), "big.json")
    assert path.stat().st_size > 1_000_000
    return path


def test_progress_on_a_terminal_only(tmp_path):
    path = _big_file(tmp_path)
    cmd = [str(Path(sys.executable).with_name("tonk")), "adjudicate", str(path), "--check", "--json"]
    plain = subprocess.run(cmd, capture_output=True, text=True)
    assert plain.returncode == 0, plain.stderr
    assert len(json.loads(plain.stdout)["cases"]) == 600
    assert plain.stderr == ""  # stderr is not a terminal: no progress
    leader, follower = pty.openpty()
    with open(os.devnull, "w") as devnull:
        proc = subprocess.Popen(cmd, stdout=devnull, stderr=follower)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert proc.wait() == 0
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode())
    assert "adjudicating" in shown and f"% of {path.name}" in shown
    assert re.search(r"left \d+:\d\d:\d\d", shown), shown[-300:]  # an estimate of the time left
