"""``tonk replay GAME_ID``: a recorded game event by event, with the table after each step
(the steps come from :mod:`tonk.application.replay`).

``--as PLAYER`` shows only what that player could see (``core.views``);
without it, the auditor's omniscient view.  ``--hand 3`` (or ``3-5``,
``1,4``, ``7-``) shows only those hands, ``--summary`` one line a hand
(ending, totals, ledger); on a terminal the text goes through a pager.  Replay folds the recorded events
and consults no rule, so it works without the variants the game was played
with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from .app import Failure, app, reported, settings
from .options import db_option, registry_with, variant_file_option


def parse_hands(text: str) -> set[int] | tuple[int, None]:
    """``3`` / ``3-5`` / ``1,4`` / ``7-`` as a set of hand numbers (``7-``: ``(7, None)``)."""
    text = text.strip()
    if text.endswith("-") and text[:-1].isdigit() and "," not in text:
        return (int(text[:-1]), None)
    wanted: set[int] = set()
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()) or int(lo) < 1:
            from ..core.names import quoted

            raise Failure(f"--hand takes a hand number, a range or a list (3, 3-5, 1,4, 7-), not {quoted(text)}")
        a, b = int(lo), int(hi) if sep else int(lo)
        if b < a:
            raise Failure(f"--hand {text}: the range {a}-{b} is empty")
        wanted.update(range(a, b + 1))
    return wanted


def hand_filter(text: str | None, hands_in_game: int):
    """A predicate on hand numbers for ``--hand TEXT`` (``None``: every event)."""
    if text is None:
        return None
    spec = parse_hands(text)
    if isinstance(spec, tuple):
        first = spec[0]
        if first > hands_in_game:
            raise Failure(f"--hand {text}: the game has hands 1 to {hands_in_game}")
        return lambda n: n >= first
    missing = sorted(n for n in spec if n > hands_in_game)
    if missing:
        raise Failure(f"--hand {text}: the game has hands 1 to {hands_in_game}, not {missing[0]}")
    return lambda n: n in spec


def hands_dealt(events: list) -> int:
    from ..core.events import HandDealt

    return sum(1 for e in events if type(e) is HandDealt)


def warn_broken_chain(findings: list, consequence: str = "the events shown are not the ones recorded") -> None:
    """One line on stderr a game whose events do not hold their hash chain."""
    for f in findings:
        typer.echo(f"warning: game {f.game_id} seq {f.seq}: {f.message}; {consequence} (tonk verify)", err=True)


@app.command("replay")
def replay_cmd(
    ctx: typer.Context,
    game_id: str = typer.Argument(..., metavar="GAME_ID", hidden=True),
    at: Optional[int] = typer.Option(None, "--at", min=1, metavar="N", help="Show only the table after event N (1-based)."),
    as_player: Optional[str] = typer.Option(None, "--as", metavar="PLAYER", help="Show only what this player could see (default: the auditor, who sees all)."),
    hand: Optional[str] = typer.Option(None, "--hand", metavar="N|N-M", help="Only these hands: 3, 3-5, 1,4 or 7- (from hand 7 on)."),
    summary: bool = typer.Option(False, "--summary", help="One line a hand: its ending, the totals and the ledger."),
    json_out: bool = typer.Option(False, "--json", help="Print the steps as JSON (docs/cli-json.md)."),
    html: Optional[str] = typer.Option(None, "--html", metavar="FILE", help="Write the replay viewer as one self-contained HTML file (with --as: only what that player saw)."),
    variant_file: list[Path] = variant_file_option(
        "Load a one-off house rule from this Python file, for the audit --html embeds (the replay itself consults no rule); repeatable."
    ),
    db: Optional[str] = db_option(),
) -> None:
    """Replay a recorded game event by event, as one player saw it or as the omniscient auditor.

    GAME_ID: the game (any unique prefix of its id).  On a terminal the text goes through a pager ($TONK_PAGER, $PAGER or less -FRX)."""
    from ..core.views import AUDITOR
    from .games_cmd import open_existing_store, resolve_game_id

    viewer = as_player if as_player is not None else AUDITOR
    if html is not None:
        _write_html(ctx, game_id, as_player, html, json_out or summary or at is not None or hand is not None, variant_file)
        return
    with reported():
        store = open_existing_store(settings(ctx).db, read_only=True)
        try:
            gid = resolve_game_id(store, game_id)
            events = store.read(gid)
            broken = store.verify(gid)
        finally:
            store.close()
        hands = hand_filter(hand, hands_dealt(events))
        if summary and at is not None:
            raise Failure("--summary shows whole hands: give --hand, not --at")
    warn_broken_chain(broken)
    if summary:
        _print_summary(gid, viewer, events, hands, json_out)
    elif json_out:
        _print_json(gid, viewer, events, at, hands)
    else:
        from .pager import paged
        from .render import console

        with paged(console()):
            _print_people(viewer, events, at, hands)


def _write_html(ctx: typer.Context, game_id: str, as_player: str | None, path: str, narrowed: bool, variant_files: list[Path]) -> None:
    from functools import partial

    from ..application.audit import audit_game
    from ..application.replay_document import replay_document
    from ..application.replay_html import replay_html
    from ..variants import load_ruleset
    from .games_cmd import open_existing_store, resolve_game_id

    with reported():
        if narrowed:
            raise Failure("--html writes the whole game as a page: it cannot be combined with --json, --at, --hand or --summary")
        loader = partial(load_ruleset, registry=registry_with(variant_files))
        store = open_existing_store(settings(ctx).db, read_only=True)
        try:
            gid = resolve_game_id(store, game_id)
            events = store.read(gid)
            audit = audit_game(store, gid, {}, loader)
        finally:
            store.close()
        page = replay_html(replay_document(gid, events, as_player, audit))
        try:
            Path(path).write_text(page, encoding="utf-8")
        except OSError as exc:
            raise Failure(f"cannot write the HTML file {path}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {path}: {len(events)} events of game {gid}, seen by {as_player or 'every perspective'}", err=True)


def _print_json(gid: str, viewer: str, events: list, at: int | None, hands=None) -> None:
    from ..application.replay import replay_document
    from .render import print_json

    with reported():
        doc = replay_document(gid, viewer, events, at, hands)
    print_json(doc)


def _stake(events: list) -> int:
    first = events[0] if events else None
    options = getattr(getattr(first, "ruleset", None), "options", None) or {}
    stake = options.get("base_stake", 1)
    return stake if isinstance(stake, int) and stake >= 1 else 1


def summary_rows(events: list, viewer: str, hands=None) -> list[dict[str, Any]]:
    """One row a hand that ended: number, dealer, ending, totals, ledger and the net after it."""
    from ..application.replay import replay_steps

    rows = []
    dealer = None
    with reported():
        for seq, ev, view in replay_steps(events, viewer, None, hands):
            if ev.get("type") == "hand_dealt":
                dealer = ev.get("dealer")
            if ev.get("type") != "hand_ended":
                continue
            rows.append(
                {
                    "hand_no": ev.get("hand_no"),
                    "seq": seq,
                    "dealer": dealer,
                    "end": ev.get("end"),
                    "player": ev.get("player"),
                    "players": ev.get("players"),
                    "outcome": ev.get("outcome"),
                    "totals": ev.get("totals") or {},
                    "ledger": ev.get("ledger") or [],
                    "net": dict(view.net),
                }
            )
    return rows


def _print_summary(gid: str, viewer: str, events: list, hands, json_out: bool) -> None:
    from .render import amount, console, print_json, safe
    from .table import ending_phrase

    rows = summary_rows(events, viewer, hands)
    stake = _stake(events)
    if json_out:
        print_json({"game_id": gid, "viewer": viewer, "stake": stake, "hands": rows})
        return
    out = console()
    for r in rows:
        totals = ", ".join(f"{safe(p)} {t}" for p, t in r["totals"].items())
        ledger = "; ".join(f"{safe(p['from'])} \u2192 {safe(p['to'])} {amount(p['amount'], stake)} {safe(p['reason'])}" for p in r["ledger"]) or "no payments"
        out.print(f"[bold]hand {r['hand_no']}[/bold]: {ending_phrase(r)} | totals {totals} | {ledger}")
    if not rows:
        out.print("no hand of this game has ended")


def _print_people(viewer: str, events: list, at: int | None, hands=None) -> None:
    from ..application.replay import replay_steps
    from .render import console
    from .table import ending_lines, event_line, net_line, table_lines

    out = console()
    n = len(events)
    stake = _stake(events)
    with reported():
        for seq, ev, view in replay_steps(events, viewer, at, hands):
            out.print(f"[bold]#{seq}[/bold]/{n} {event_line(ev, viewer)}")
            if ev.get("type") == "hand_ended":
                for line in ending_lines(ev, stake)[1:]:
                    out.print(line)
                out.print("  " + net_line(view.net, stake))
            elif ev.get("type") != "game_ended":
                for line in table_lines(view):
                    out.print(line)
            out.print()
