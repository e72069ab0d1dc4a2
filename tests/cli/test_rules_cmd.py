"""``tonk rules [ID]``: every rule id a verdict can cite, with its statement (the installed
console script, piped and on a pseudo-terminal)."""

from __future__ import annotations

import json

import pytest
from script_helpers import on_terminal, tonk

from tonk.core.rule_statements import RULES


def test_rules_lists_every_rule_one_aligned_line_each_off_a_terminal():
    r = tonk("rules")
    assert r.code == 0 and r.err == ""
    lines = r.out.splitlines()
    assert len(lines) == len(RULES)
    column = max(len(x.id) for x in RULES) + 2
    for line, rule in zip(lines, RULES):
        assert line == rule.id.ljust(column) + rule.text


def test_rules_json_lists_id_section_and_statement_in_order():
    r = tonk("rules", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out) == {"rules": [{"id": x.id, "section": x.section, "statement": x.text} for x in RULES]}


@pytest.mark.parametrize("typed, rule_id", [("A7.4", "A7.4"), ("a7.4", "A7.4"), ("V:knock-limit", "V:knock-limit"), ("knock-limit", "V:knock-limit"), ("log", "log"), ("mandatory-ace-laydown", "V:mandatory-laydown"), ("V:mandatory-ace-laydown", "V:mandatory-laydown"), ("caught-scheme", "V:caught-scheme"), ("double-for-new-spread", "V:double-requires-new-spread")])
def test_one_rule_by_its_id_in_any_case_or_a_house_rules_name_or_alias(typed, rule_id):
    (rule,) = [x for x in RULES if x.id == rule_id]
    r = tonk("rules", typed)
    assert r.code == 0, r.err
    assert r.out == f"{rule.id}: {rule.text}\n  section: {rule.section}\n"
    data = json.loads(tonk("rules", typed, "--json").out)
    assert data == {"rules": [{"id": rule.id, "section": rule.section, "statement": rule.text}]}


@pytest.mark.parametrize("typed", ["A99", "V:keep-kings", "[bold red]A7[/]", "A7\x1b[2J"])
def test_an_unknown_rule_id_is_one_error_line_naming_it(typed):
    r = tonk("rules", typed)
    assert r.code == 2 and r.out == ""
    line = r.err_line()
    assert "unknown rule id" in line and "\x1b" not in line
    assert repr(typed).strip("'") in line
    assert tonk("rules", typed, "--json").out == ""


def test_rules_on_a_terminal_is_a_table_grouped_by_section():
    code, out, _ = on_terminal(["rules"], stdout_tty=True, stderr_tty=False)
    assert code == 0
    text = out.decode()
    assert "statement" in text and "A7. Structure of a turn" in text and "C5. Turn structure and knocking" in text
    assert "V:knock-limit" in text and "\x1b[" in text  # styled for the terminal
