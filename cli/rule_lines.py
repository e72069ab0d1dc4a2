"""The one-line statements of the rules a verdict cites, as ``tonk adjudicate`` prints them
under the verdicts (:mod:`tonk.core.rule_statements`): the rule each refused action breaks,
the rule that settles the ending and the rules behind the payments.  Each id is the
verdict's own (``rule``, ``end_rule``, ``payment_rules``): the verdict chose it under the
case's ruleset, and nothing here maps an ending or a payment to a rule again."""

from __future__ import annotations

from typing import Any, Iterable

from .render import safe


def _statement(rule_id: Any) -> str | None:
    from ..core.rule_statements import UnknownRule, statement

    try:
        return statement(str(rule_id))
    except UnknownRule:  # a third-party variant's rule: its id is printed, without a statement
        return None


def _line(indent: str, label: str, rule_id: Any) -> str:
    text = _statement(rule_id)
    said = f": {safe(text)}" if text is not None else ": (no statement: a rule of an installed house rule)"
    return f"{indent}[dim]{label}{safe(rule_id)}{said}[/dim]"


def _ids(rule: Any) -> list[Any]:
    """A verdict's ``rule``: one id, or ``{"open": [ids]}`` where it differs between worlds."""
    if isinstance(rule, dict) and isinstance(rule.get("open"), list):
        return list(dict.fromkeys(rule["open"]))
    return [rule] if rule else []


def action_rule_lines(actions: Iterable[dict[str, Any]]) -> list[str]:
    """Under the verdicts table: for each action that is (or may be) refused, its rule."""
    lines = []
    for a in actions:
        for rule_id in _ids(a.get("rule")):
            lines.append(_line("    ", f"seq {safe(a['seq'])}, rule ", rule_id))
    return lines


def end_rule_lines(rule_id: Any, indent: str = "    ") -> list[str]:
    """Under an ending: the rule that settles it, the verdict's ``end_rule`` (none: no ending,
    or an ending no rule here states)."""
    return [_line(indent, "rule ", rule_id)] if rule_id else []


def payment_rule_lines(payment_rules: Any, indent: str = "    ", end_rule: Any = None) -> list[str]:
    """Under a ledger: the rule behind each kind of payment in it, once each, from the
    verdict's ``payment_rules`` (reason -> rule id); not the ending's rule ``end_rule``,
    already stated under it."""
    ids = payment_rules.values() if isinstance(payment_rules, dict) else ()
    return [_line(indent, "rule ", r) for r in dict.fromkeys(ids) if r and r != end_rule]
