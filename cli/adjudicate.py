"""``tonk adjudicate FILE``: the verdict on written-down hands (cases/README.md format)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

# the engine (tonk.core.adjudication, handrecord, the variant registry) is imported
# when the command runs, not when the app starts
from .app import app, fail, reported
from .options import variant_file_option
from .render import card, cards, console, err_console, ledger_lines, one_line, print_json, safe


def _describe_action(a: dict[str, Any], raw: dict[str, Any]) -> str:
    act = a["action"]
    if act == "spread":
        return "spread " + cards(raw.get("cards", []))
    if act == "hit":
        return f"hit {card(raw.get('card'))} on {safe(raw.get('target'))}"
    if act == "discard":
        return f"discard {card(raw.get('card'))}"
    return safe(act)


def _stake(raw: dict[str, Any]) -> int | None:
    """The case's ``ruleset.options.base_stake`` when it is a whole number (amounts are in its units)."""
    rs = raw.get("ruleset") if isinstance(raw, dict) else None
    stake = (rs.get("options") or {}).get("base_stake") if isinstance(rs, dict) and isinstance(rs.get("options"), dict) else None
    return stake if isinstance(stake, int) and not isinstance(stake, bool) and stake >= 1 else None


def _print_case(v: dict[str, Any], raw: dict[str, Any], diffs: list[str] | None) -> None:
    from rich.table import Table

    out = console()
    title = f" {safe(v.get('title'))}" if v.get("title") else ""
    out.print(f"\n[bold]{safe(v['id'])}[/bold]{title}")
    if v["status"] == "skipped":
        out.print(f"  [yellow]skipped[/yellow]: {safe(v['reason'])}")
        return
    if "deal" in v:
        d = v["deal"]
        out.print(f"  deal: upcard {card(d['discard_top'])}, stock {d['stock_size']}")
        for p, h in d["hands"].items():
            out.print(f"    {safe(p)}: {cards(h)}")
    raw_actions = raw.get("actions", [])
    if v["actions"]:
        t = Table(show_header=True, header_style="bold", box=None, padding=(0, 1))
        t.add_column("seq", justify="right")
        t.add_column("player")
        t.add_column("action")
        t.add_column("verdict")
        for a, ra in zip(v["actions"], raw_actions):
            if a["legal"]:
                extra = []
                if a.get("drawn"):
                    extra.append(f"drew {card(a['drawn'])}")
                if a.get("spread_id"):
                    extra.append(f"as {safe(a['spread_id'])}")
                if a.get("effect"):
                    extra.append("stock empty: hand ends")
                verdict = "[green]legal[/green]" + (" " + ", ".join(extra) if extra else "")
            else:
                verdict = f"[red]illegal[/red] {safe(a['violation'])} ({safe(a['rule'])}): {safe(a['message'])}"
            t.add_row(safe(a["seq"]), safe(a["player"]), _describe_action(a, ra if isinstance(ra, dict) else {}), verdict)
        out.print(t)
    end = v["end"]
    if end is None:
        out.print("  end: [yellow]the hand has not ended[/yellow]")
    else:
        who = end.get("player") or ", ".join(str(p) for p in end.get("players", []))
        outcome = f" ({safe(end['outcome'])})" if end.get("outcome") else ""
        out.print(f"  end: [bold]{safe(end['type'])}[/bold] {safe(who)}{outcome}")
    for p, h in v["final_hands"].items():
        out.print(f"    {safe(p)}: {cards(h)}  total {v['hand_totals'][p]}")
    for s in v["final_table"]:
        out.print(f"    {safe(s['id'])} ({safe(s['owner'])}, {safe(s['kind'])}): {cards(s['cards'])}")
    if v["ledger"]:
        out.print("  ledger:")
        for line in ledger_lines(v["ledger"], _stake(raw)):
            out.print(f"    {line}")
    else:
        out.print("  ledger: [dim]no payments[/dim]")
    out.print("  net: " + ", ".join(f"{safe(p)} {n:+d}" for p, n in v["net"].items()) + f"; next dealer {safe(v['next_dealer'])}")
    if diffs is not None:
        if diffs:
            for d in diffs:
                out.print(f"  [red]differs[/red] {safe(d)}")
        else:
            out.print("  [green]matches expected[/green]")


@app.command("adjudicate")
def adjudicate_cmd(
    file: Path = typer.Argument(..., metavar="FILE", hidden=True),
    json_out: bool = typer.Option(False, "--json", help="Print {\"cases\": [...]} as JSON."),
    check: bool = typer.Option(False, "--check", help="Compare each case with its expected block; exit 1 on any difference."),
    case: list[str] = typer.Option([], "--case", metavar="ID", help="Only the case(s) with this id; repeatable."),
    variant_file: list[Path] = variant_file_option(),
) -> None:
    """Adjudicate written-down hands: each action's verdict, the ending, totals and ledger.

    FILE is a hand-record JSON file: one case, or {"cases": [...]} (format: shared/cases/README.md)."""
    from ..core.adjudication import adjudicate, compare
    from ..core.handrecord import load_records
    from ..variants.registry import default_registry

    with reported():
        registry = default_registry().with_files(variant_file) if variant_file else None
        raws = load_records(file)
    if case:
        wanted = set(case)
        raws = [r for r in raws if isinstance(r, dict) and r.get("id") in wanted]
        if not raws:
            raise fail(f"{file}: no case with id {', '.join(case)}")
    verdicts = []
    failures = 0
    errors = 0
    from .progress import iterate

    for i, raw in enumerate(iterate(raws, "adjudicating", "cases", enabled=len(raws) > 1)):
        v = adjudicate(raw, i, registry=registry)
        diffs = None
        if check and v["status"] == "ok":
            diffs = compare(v, raw)
            v["check"] = {"ok": not diffs, "differences": diffs}
            failures += bool(diffs)
        if v["status"] == "error":
            errors += 1
        verdicts.append((v, raw, diffs))
    if json_out:
        print_json({"cases": [v for v, _, _ in verdicts]})
    else:
        for v, raw, diffs in verdicts:
            if v["status"] == "error":
                err_console().print(f"error: {one_line(v['message'])}", markup=False)
                continue
            _print_case(v, raw if isinstance(raw, dict) else {}, diffs)
        n_ok = sum(1 for v, _, _ in verdicts if v["status"] == "ok")
        n_skip = sum(1 for v, _, _ in verdicts if v["status"] == "skipped")
        summary = f"\n{len(verdicts)} case(s): {n_ok} adjudicated, {n_skip} skipped, {errors} malformed"
        if check:
            summary += f"; {n_ok - failures} match expected, {failures} differ"
        console().print(summary)
    if errors:
        raise typer.Exit(2)
    if failures:
        if json_out:
            for v, _, diffs in verdicts:
                for d in diffs or []:
                    err_console().print(one_line(f"{v['id']}: {d}"), markup=False)
        raise typer.Exit(1)
