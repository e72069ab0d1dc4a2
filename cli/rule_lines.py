"""The one-line statements of the rules a verdict cites, as ``tonk adjudicate`` prints them
under the verdicts (:mod:`tonk.core.rule_statements`): the rule each refused action breaks,
the rule that settles the ending and the rules behind the payments."""

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


def end_rule(end: dict[str, Any] | None) -> str | None:
    """The rule id that settles an ending (``None``: no ending, or none this engine states)."""
    from ..core.rule_statements import UnknownRule, ending_rule

    if not isinstance(end, dict):
        return None
    try:
        return ending_rule(str(end.get("type")), end.get("outcome"))
    except UnknownRule:
        return None


def end_rule_lines(end: dict[str, Any] | None, indent: str = "    ") -> list[str]:
    """Under an ending: the rule that settles it."""
    rule_id = end_rule(end)
    return [] if rule_id is None else [_line(indent, "rule ", rule_id)]


def payment_rule_lines(ledger: list[dict[str, Any]], indent: str = "    ", end: dict[str, Any] | None = None) -> list[str]:
    """Under a ledger: the rule behind each kind of payment in it, once each (not the rule
    of the ending ``end``, already stated under it)."""
    from ..core.rule_statements import UnknownRule, payment_rule

    ids = []
    for p in ledger:
        try:
            ids.append(payment_rule(str(p.get("reason"))))
        except UnknownRule:
            continue
    stated = end_rule(end)
    return [_line(indent, "rule ", r) for r in dict.fromkeys(ids) if r != stated]
