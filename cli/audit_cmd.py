"""``tonk audit``: is every recorded game untampered and lawful under its own pinned rules?

Per game, three checks:

* **chain**: the store's hash chain and sequence, checked while the events are
  read (``EventStore.iter_verified_games``, the same findings as ``EventStore.verify``);
* **conservation**: folding the events, every card of the hand's deck is in
  exactly one place (a hand, the stock, the discard pile, a spread) after
  every event, and every event applies to the position before it;
* **rules**: every recorded action is re-run through ``decide`` under the
  ruleset pinned in ``game_started`` and must produce exactly the recorded
  events (``core.audit.audit_events``); the checks live in ``application.audit``.

Each finding names the game, hand, event seq, rule id and what was expected
versus recorded.  Exit 0 when every game is clean, 1 with findings, 2 when a
game cannot be audited (unknown id, missing database, a variant the game was
recorded with is not installed).

With ``--rules``/``--option`` the command re-adjudicates the recorded actions
under other house rules instead (``application.reconsider``) and exits 0 unless the
input is bad.
"""

from __future__ import annotations

from typing import Any

import typer

from .app import Failure, app, reported, settings

# --- people's output -------------------------------------------------------------------------


def _short(value: Any, width: int = 60) -> str:
    import json

    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
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
    from rich.markup import escape

    gid = result["game_id"]
    checks = result["checks"]
    marks = {"ok": "[green]ok[/green]", "failed": "[red]failed[/red]", "not run": "[dim]not run[/dim]"}
    head = f"[bold]game {gid}[/bold]  {result['hands']} hand(s), {result['events']} events"
    out.print(head)
    out.print("  " + " \u00b7 ".join(f"{k} {marks[v]}" for k, v in checks.items()))
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
    from rich.markup import escape

    from .table import card

    def rules_text(spec: dict[str, Any]) -> str:
        return ", ".join(spec["variants"]) or "classic"

    def changed_options(spec: dict[str, Any], base: dict[str, Any]) -> str:
        diff = [f"{k}={v}" for k, v in spec["options"].items() if base["options"].get(k) != v]
        return f" ({', '.join(diff)})" if diff else ""

    rec, new = r["recorded_rules"], r["rules"]
    out.print(f"[bold]game {r['game_id']}[/bold]")
    out.print(f"  recorded under:     {rules_text(rec)}")
    out.print(f"  reconsidered under: {rules_text(new)}{escape(changed_options(new, rec))}")
    for h in r["hands"]:
        status = h["status"]
        label = f"  hand {h['hand_no']} (dealer {h['dealer']}): "
        if status == "same":
            out.print(label + "[green]same ending and payout[/green]")
        elif status == "stopped":
            s = h["illegal"][0]
            action = " ".join(_card_word(w, card) for w in s["action"].split())
            out.print(label + f"[red]stopped[/red] at event {s['seq']}: {s['player']} {action} would be illegal")
            out.print(f"      {s['code']}, rule {escape(s['rule'])}: {escape(s['message'])}")
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
    fmt = lambda net: ", ".join(f"{p} {n:+d}" for p, n in net.items())  # noqa: E731
    out.print(f"  net recorded: {fmt(r['recorded_net'])}")
    partial = "" if r["complete"] else " [dim](partial)[/dim]"
    out.print(f"  net under these rules: {fmt(r['net'])}{partial}")


def _card_word(word: str, card) -> str:
    from ..core.cards import RANK_OF

    return card(word) if word in RANK_OF else word


# --- the command -----------------------------------------------------------------------------


@app.command("audit")
def audit_cmd(
    ctx: typer.Context,
    game_ids: list[str] = typer.Argument(None, metavar="GAME_ID", help="Games to audit (any unique prefix of an id)."),
    all_games: bool = typer.Option(False, "--all", "-a", help="Audit every game in the store."),
    json_out: bool = typer.Option(False, "--json", help="Print the results as JSON (docs/cli-json.md)."),
    rules: list[str] = typer.Option(
        [], "--rules", "-r", metavar="VARIANT", help="Re-adjudicate under these house rules instead (repeatable; 'classic' = the base game)."
    ),
    option: list[str] = typer.Option(
        [], "--option", "-o", metavar="NAME=VALUE", help="Re-adjudicate with this ruleset option (repeatable; with or without --rules)."
    ),
) -> None:
    """Audit recorded games: hash chain, card conservation, every action re-run under its rules.

    Exit 0 when clean, 1 with findings, 2 when a game cannot be audited.

    With --rules/--option: re-adjudicate the recorded actions under other house rules and show, hand by hand, which actions would have been illegal and how each payout differs."""
    from .games_cmd import open_existing_store, resolve_game_id

    game_ids = list(game_ids or [])
    with reported():
        if all_games and game_ids:
            raise Failure("give game ids or --all, not both")
        if not all_games and not game_ids:
            raise Failure("name the games to audit, or give --all")
        store = open_existing_store(settings(ctx).db, read_only=True)
    try:
        with reported():
            if rules or option:
                known = store.game_ids()
                ids = known if all_games else list(dict.fromkeys(resolve_game_id(store, g, known) for g in game_ids))
                code = _reconsider(store, ids, [r for r in rules if r != "classic"], option, json_out)
            elif all_games:  # streamed from one scan of the store, no list of ids
                code = _audit(store, None, json_out)
            else:
                known = store.game_ids()
                code = _audit(store, list(dict.fromkeys(resolve_game_id(store, g, known) for g in game_ids)), json_out)
    finally:
        store.close()
    if code:
        raise typer.Exit(code)


def _progress(json_out: bool, total: int):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from .render import err_console

    err = err_console()
    return Progress(
        TextColumn("auditing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=json_out or not err.is_terminal or total < 2,
    )


def _audit(store, ids: list[str] | None, json_out: bool) -> int:
    """Audit the games ``ids`` (``None``: every game), streaming: one game in memory at a
    time; people's output is printed game by game, and ``--json`` keeps each game's
    small result object (no events)."""
    from ..application.audit import audit_verified
    from .render import console, print_json

    out = console()
    total = store.game_count() if ids is None else len(ids)
    summary = {"games": 0, "clean": 0, "with_findings": 0, "errors": 0}
    kept: list[dict[str, Any]] = []
    errors: list[str] = []
    rulesets: dict = {}
    from .store_cmd import interruption_reported

    stopped = lambda: f"{summary['games']} of {total} game(s) audited; audit only reads: nothing was written, the store is consistent and unchanged"  # noqa: E731
    with interruption_reported(stopped), _progress(json_out, total) as progress:
        task = progress.add_task("audit", total=total)
        for game in store.iter_verified_games(ids):
            result = audit_verified(game, rulesets)
            verdict = result["verdict"]
            summary["games"] += 1
            summary[{"clean": "clean", "findings": "with_findings", "error": "errors"}[verdict]] += 1
            if verdict == "error":
                errors.append(f"error: game {result['game_id']}: {result['error']}")
            if json_out:
                kept.append(result)
            else:
                if summary["games"] > 1:
                    out.print()
                print_audit(result, out)
            progress.advance(task)
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
    for line in errors:
        typer.echo(line, err=True)
    if summary["errors"]:
        return 2
    return 1 if summary["with_findings"] else 0


def _reconsider(store, ids: list[str], variants: list[str], option: list[str], json_out: bool) -> int:
    from ..core.events import GameStarted
    from ..application.reconsider import build_ruleset, reconsider, to_builtins
    from .render import console, print_json

    results = []
    for gid in ids:
        events = store.read(gid)
        first = events[0] if events else None
        if not isinstance(first, GameStarted):
            raise Failure(f"game {gid} does not start with game_started (run tonk audit on it)")
        ruleset = build_ruleset(variants, option, carry_from=first.ruleset)
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
