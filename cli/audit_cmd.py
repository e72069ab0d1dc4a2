"""``tonk audit``: is every recorded game untampered and lawful under its own pinned rules?

Per game, three checks:

* **chain**: the store's hash chain and sequence, checked while the events are
  read (``EventStore.iter_verified_games``, the same findings as ``EventStore.verify``);
* **conservation**: folding the events, every card of the hand's deck is in
  exactly one place (a hand, the stock, the discard pile, a spread) after
  every event, and every event applies to the position before it;
* **rules**: every recorded action is re-run through ``decide`` under the
  ruleset pinned in ``game_started`` and must produce exactly the recorded
  events (``core.audit.audit_events``).

Each finding names the game, hand, event seq, rule id and what was expected
versus recorded.  Exit 0 when every game is clean, 1 with findings, 2 when a
game cannot be audited (unknown id, missing database, a variant the game was
recorded with is not installed).

With ``--rules``/``--option`` the command re-adjudicates the recorded actions
under other house rules instead (``core.reconsider``) and exits 0 unless the
input is bad.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from .app import Failure, app, reported, settings
from .options import db_option, option_option, registry_with, variant_file_option, variant_option

def _short(value: Any, width: int = 60) -> str:
    """A value as compact JSON; cut with "…" at ``width`` only on a terminal (piped output is exact)."""
    import json

    from .render import console

    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if not console().is_terminal:
        return text
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def expected_vs_recorded(expected: Any, recorded: Any) -> list[str]:
    """Lines naming what was expected against what was recorded (for events: the differing fields)."""
    if isinstance(expected, dict) and isinstance(recorded, dict):
        keys = [k for k in dict.fromkeys([*expected, *recorded]) if expected.get(k) != recorded.get(k)]
        out = []
        for k in keys:
            out += [f"{k}:", f"  expected {_short(expected.get(k))}", f"  recorded {_short(recorded.get(k))}"]
        return out
    if expected is None and recorded is None:
        return []
    return [f"expected {_short(expected) if expected is not None else '-'}", f"recorded {_short(recorded) if recorded is not None else '-'}"]


def print_audit(result: dict[str, Any], out) -> None:
    from .render import safe as escape
    from .render import safe

    gid = result["game_id"]
    checks = result["checks"]
    marks = {"ok": "[green]ok[/green]", "failed": "[red]failed[/red]", "not run": "[dim]not run[/dim]"}
    hands = f"{result['hands']} hand(s), " if checks["rules"] != "not run" else ""  # hands are counted as they are re-run
    head = f"[bold]game {safe(gid)}[/bold]  {hands}{result['events']} events"
    out.print(head)
    out.print("  " + " \u00b7 ".join(f"{k} {marks[v]}" for k, v in checks.items()))
    if result.get("deal"):  # which guarantees the deals have (core.deal_audit), said plainly
        out.print(f"  deals: {safe(result['deal']['statement'])}")
    for f in result["findings"]:
        hand = f"hand {f['hand_no']}, " if f["hand_no"] else ""
        out.print(f"  [red]finding[/red] {hand}event {f['seq']}, rule {escape(f['rule'])} ({f['check']}): {escape(f['message'])}")
        for line in expected_vs_recorded(f["expected"], f["recorded"]):
            out.print(f"      {escape(line)}")
    if result["verdict"] == "error":
        out.print(f"  verdict: [red]cannot audit[/red]: {escape(result['error'])}")
    elif result["verdict"] == "findings":
        out.print(f"  verdict: [red]{len(result['findings'])} finding(s)[/red]")
    else:
        out.print("  verdict: [green]clean[/green]")


def print_reconsideration(r: dict[str, Any], out) -> None:
    from .render import safe as escape

    from .table import card

    def rules_text(spec: dict[str, Any]) -> str:
        return escape(", ".join(spec["variants"]) or "classic")

    def changed_options(spec: dict[str, Any], base: dict[str, Any]) -> str:
        diff = [f"{k}={v}" for k, v in spec["options"].items() if base["options"].get(k) != v]
        return f" ({', '.join(diff)})" if diff else ""

    rec, new = r["recorded_rules"], r["rules"]
    out.print(f"[bold]game {escape(r['game_id'])}[/bold]")
    out.print(f"  recorded under:     {rules_text(rec)}")
    out.print(f"  reconsidered under: {rules_text(new)}{escape(changed_options(new, rec))}")
    for h in r["hands"]:
        status = h["status"]
        label = f"  hand {h['hand_no']} (dealer {escape(h['dealer'])}): "
        if status == "same":
            out.print(label + "[green]same ending and payout[/green]")
        elif status == "stopped":
            s = h["illegal"][0]
            action = " ".join(_card_word(w, card) for w in s["action"].split())
            out.print(label + f"[red]stopped[/red] at event {s['seq']}: {escape(s['player'])} {action} would be illegal")
            out.print(f"      {escape(s['code'])}, rule {escape(s['rule'])}: {escape(s['message'])}")
            out.print(f"      {h['replayed']} action(s) replayed, {h['unplayed']} after it not played; ending and payout unknown")
        elif status == "unfinished":
            out.print(label + "[yellow]unfinished[/yellow]: the hand would still be in play after every recorded action")
        elif status == "not_comparable":
            out.print(label + f"[yellow]not comparable[/yellow]: {escape(h['note'] or '')}")
        else:
            word = "ends early" if status == "ended_early" else "different"
            out.print(label + f"[yellow]{word}[/yellow]")
        for d in h["differences"]:
            out.print(f"      {escape(d)}")
        if h["note"] and status != "not_comparable":
            out.print(f"      [dim]{escape(h['note'])}[/dim]")
    def fmt(net: dict[str, int], spec: dict[str, Any]) -> str:
        text = ", ".join(f"{escape(p)} {n:+d}" for p, n in net.items())
        stake = spec["options"].get("base_stake", 1)
        if stake != 1 or rec["options"].get("base_stake", 1) != new["options"].get("base_stake", 1):
            text += f" [dim](stake units; money at stake {stake}: " + ", ".join(f"{escape(p)} {n * stake:+d}" for p, n in net.items()) + ")[/dim]"
        return text

    out.print(f"  net recorded: {fmt(r['recorded_net'], rec)}")
    partial = "" if r["complete"] else " [dim](partial)[/dim]"
    out.print(f"  net under these rules: {fmt(r['net'], new)}{partial}")


def _card_word(word: str, card) -> str:
    from ..core.cards import RANK_OF

    from .render import safe

    return card(word) if word in RANK_OF else safe(word)


# --- the command -----------------------------------------------------------------------------


@app.command("audit")
def audit_cmd(
    ctx: typer.Context,
    game_ids: list[str] = typer.Argument(None, metavar="GAME_ID", hidden=True),
    all_games: bool = typer.Option(False, "--all", "-a", help="Audit every game in the store."),
    json_out: bool = typer.Option(False, "--json", help="Print the results as JSON (docs/cli-json.md)."),
    rules: list[str] = variant_option("Re-adjudicate under these house rules instead (repeatable; 'classic' = the base game)."),
    option: list[str] = option_option("Re-adjudicate with this ruleset option KEY=VALUE (repeatable; without --variant the game's own house rules are kept)."),
    variant_file: list[Path] = variant_file_option(),
    db: Optional[str] = db_option(),
) -> None:
    """Audit recorded games: hash chain, card conservation, every action re-run under its rules.

    GAME_ID: games to audit (any unique prefix of an id), or --all.  Exit 0 when clean, 1 with findings, 2 when a game cannot be audited.

    With --variant/--option: re-adjudicate the recorded actions under other house rules and show, hand by hand, which actions would have been illegal and how each payout differs."""
    from .games_cmd import open_existing_store, resolve_game_id

    game_ids = list(game_ids or [])
    with reported():
        if all_games and game_ids:
            raise Failure("give game ids or --all, not both")
        if not all_games and not game_ids:
            raise Failure("name the games to audit, or give --all")
        registry = registry_with(variant_file)
        store = open_existing_store(settings(ctx).db, read_only=True)
    try:
        with reported():
            if rules or option:
                known = store.game_ids()
                ids = known if all_games else list(dict.fromkeys(resolve_game_id(store, g, known) for g in game_ids))
                # no --variant: the game's own house rules (only the options change)
                code = _reconsider(store, ids, [r for r in rules if r != "classic"] if rules else None, option, json_out, registry)
            elif all_games:  # streamed from one scan of the store, no list of ids
                code = _audit(store, None, json_out, registry)
            else:
                known = store.game_ids()
                code = _audit(store, list(dict.fromkeys(resolve_game_id(store, g, known) for g in game_ids)), json_out, registry)
    finally:
        store.close()
    if code:
        raise typer.Exit(code)


def _audit(store, ids: list[str] | None, json_out: bool, registry=None) -> int:
    """Audit the games ``ids`` (``None``: every game), streaming: one game in memory at a
    time; people's output is printed game by game, and ``--json`` keeps each game's
    small result object (no events)."""
    from functools import partial

    from ..application.audit import audit_verified, count_verdict, new_summary
    from ..variants import load_ruleset
    from .render import console, print_json

    loader = partial(load_ruleset, registry=registry)

    out = console()
    total = store.game_count() if ids is None else len(ids)
    summary = new_summary()
    kept: list[dict[str, Any]] = []
    errors: list[str] = []
    rulesets: dict = {}
    from .progress import progress
    from .interrupts import interruption_reported

    stopped = lambda: f"{summary['games']} of {total} game(s) audited; audit only reads: nothing was written, the store is consistent and unchanged"  # noqa: E731
    with interruption_reported(stopped), progress("auditing", total, "games", enabled=not json_out and total >= 2) as advance:
        for game in store.iter_verified_games(ids):
            result = audit_verified(game, rulesets, loader)
            verdict = result["verdict"]
            count_verdict(summary, verdict)
            if verdict == "error":
                errors.append(f"error: game {result['game_id']}: {result['error']}")
            if json_out:
                kept.append(result)
            else:
                if summary["games"] > 1:
                    out.print()
                print_audit(result, out)
            advance(1)
    if json_out:
        print_json({"games": kept, "summary": summary})
    else:
        if not summary["games"]:
            out.print("no games to audit")
        elif summary["games"] > 1:
            out.print(
                f"\n{summary['games']} games: {summary['clean']} clean, {summary['with_findings']} with findings, "
                f"{summary['errors']} could not be audited"
            )
    from .render import one_line

    for line in errors:
        typer.echo(one_line(line), err=True)
    if summary["errors"]:
        return 2
    return 1 if summary["with_findings"] else 0


def _reconsider(store, ids: list[str], variants: list[str] | None, option: list[str], json_out: bool, registry=None) -> int:
    """Re-adjudicate each game under ``variants`` (``None``: the variants it was recorded
    under) with the ``option`` texts (``K=V``; options not given keep their recorded values
    where the rules declare them)."""
    from ..core.events import GameStarted
    from ..application.reconsider import reconsider, to_builtins
    from ..variants.loading import build_ruleset
    from .render import console, print_json

    results = []
    for gid in ids:
        events = store.read(gid)
        first = events[0] if events else None
        if not isinstance(first, GameStarted):
            raise Failure(f"game {gid} does not start with game_started (run tonk audit on it)")
        names = list(first.ruleset.variants) if variants is None else variants
        ruleset = build_ruleset(names, option, carry_from=first.ruleset, registry=registry)
        results.append(to_builtins(reconsider(events, ruleset)))
    if json_out:
        print_json({"games": results})
    else:
        out = console()
        for i, r in enumerate(results):
            if i:
                out.print()
            print_reconsideration(r, out)
    return 0
