"""The text of a partial-knowledge verdict (format_version 2) in ``tonk adjudicate``:
hands with unknown cards, totals as ranges, open actions and open outcomes."""

from __future__ import annotations

from typing import Any

from .render import card, cards, ledger_lines, safe
from .rule_lines import end_rule_lines, payment_rule_lines


def action_verdict(a: dict[str, Any]) -> str | None:
    """The verdict cell of an action whose legality is open, or of a draw of an unseen
    card; ``None`` for everything else (printed as for version 1)."""
    if a["legal"] == "open":
        return f"[yellow]open[/yellow]: where illegal, {_reason(a)}"
    if a["legal"] is False and isinstance(a["violation"], dict):
        return f"[red]illegal[/red], depending on the unseen cards: {_reason(a)}"
    if a["legal"] is True and a["action"] in ("draw_stock", "draw_discard") and not a.get("drawn") and not a.get("effect"):
        return "[green]legal[/green] drew a card nobody saw"
    return None


def _either(value: Any) -> str:
    return " or ".join(safe(v) for v in value["open"]) if isinstance(value, dict) else safe(value)


def _reason(a: dict[str, Any]) -> str:
    """What an action breaks: one code, rule and message, or each where they differ."""
    return f"{_either(a['violation'])} ({_either(a['rule'])}): {_either(a['message'])}"


def hand_text(h: Any) -> str:
    if isinstance(h, list):
        return cards(h)
    if isinstance(h, dict) and "open" in h:
        return " [yellow]or[/yellow] ".join(hand_text(x) for x in h["open"])
    shown = cards(h["cards"]) if h.get("cards") else ""
    return (shown + " + " if shown else "") + f"{h['unknown']} unknown"


def total_text(t: Any) -> str:
    if isinstance(t, dict):
        return f"{t['min']} to {t['max']}"
    return str(t)


def end_text(end: dict[str, Any] | None) -> str:
    if end is None:
        return "[yellow]the hand has not ended[/yellow]"
    who = end.get("player") or ", ".join(str(p) for p in end.get("players", []))
    outcome = f" ({safe(end['outcome'])})" if end.get("outcome") else ""
    return f"[bold]{safe(end['type'])}[/bold] {safe(who)}{outcome}"


def net_text(net: dict[str, int]) -> str:
    return ", ".join(f"{safe(p)} {n:+d}" for p, n in net.items())


def outcome_lines(v: dict[str, Any], stake: int | None) -> list[str]:
    """The ending, ledger and net: settled as for version 1, or each open outcome."""
    if not v.get("open"):
        lines = [f"  end: {end_text(v['end'])}", *end_rule_lines(v.get("end_rule"))]
    else:
        lines = [f"  end: [yellow]open[/yellow], {len(v['outcomes'])} possible outcomes"]
    lines += final_lines(v)
    if not v.get("open"):
        lines += _ledger(v["ledger"], stake, "  ", v)
        lines.append(f"  net: {net_text(v['net'])}; next dealer {safe(v['next_dealer'])}")
        return lines
    settled_by = v.get("outcome_rules") or [{}] * len(v["outcomes"])  # outcome_rules[i] settles outcomes[i]
    for i, (o, rules) in enumerate(zip(v["outcomes"], settled_by), 1):
        lines.append(f"  outcome {i}: {end_text(o['end'])}")
        lines += end_rule_lines(rules.get("end_rule"), "      ")
        lines += _ledger(o["ledger"], stake, "    ", rules)
        lines.append(f"    net: {net_text(o['net'])}")
    lines.append(f"  decided by: {safe(v['decided_by'])}")
    lines.append(f"  next dealer {safe(v['next_dealer'])}")
    return lines


def final_lines(v: dict[str, Any]) -> list[str]:
    lines = [f"    {safe(p)}: {hand_text(h)}  total {total_text(v['hand_totals'][p])}" for p, h in v["final_hands"].items()]
    table = v["final_table"]
    tables = table["open"] if isinstance(table, dict) else [table]
    for n, spreads in enumerate(tables):
        if len(tables) > 1:
            lines.append(f"    table, possibility {n + 1}:")
        for s in spreads:
            lines.append(f"    {safe(s['id'])} ({safe(s['owner'])}, {safe(s['kind'])}): {cards(s['cards'])}")
    top = v["final_piles"]["discard_top"]
    if isinstance(top, dict) and "unknown" in top:
        lines.append("    discard top: a card nobody saw")
    elif isinstance(top, str):
        lines.append(f"    discard top: {card(top)}")
    return lines


def _ledger(ledger: list[dict[str, Any]], stake: int | None, indent: str, settled: dict[str, Any]) -> list[str]:
    """A ledger and the rules behind its payments (``settled``: the verdict, or the outcome's
    entry of ``outcome_rules``, that carries ``end_rule`` and ``payment_rules``)."""
    if not ledger:
        return [f"{indent}ledger: [dim]no payments[/dim]"]
    return [f"{indent}ledger:"] + [f"{indent}  {line}" for line in ledger_lines(ledger, stake)] + payment_rule_lines(settled.get("payment_rules"), indent + "  ", settled.get("end_rule"))
