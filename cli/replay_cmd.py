"""``tonk replay GAME_ID``: a recorded game event by event, with the table after each step.

``--as PLAYER`` shows only what that player could see (``core.views``);
without it, the auditor's omniscient view.  Replay folds the recorded events
and consults no rule, so it works without the variants the game was played
with.
"""

from __future__ import annotations

from typing import Any, Optional

import typer

from .app import Failure, app, reported, settings
from .options import db_option


def replay_steps(events: list, viewer: str, at: int | None = None):
    """``(seq, event_view, player_view)`` after each event (only event ``at`` if given).

    Raises :class:`Failure` for a viewer who is not at the table, an ``at``
    out of range, or an event that cannot be applied to the state before it
    (a damaged log: ``tonk audit`` names what is wrong).
    """
    from ..core.events import GameStarted
    from ..core.state import State, evolve
    from ..core.views import AUDITOR, event_view, player_view

    first = events[0] if events else None
    if not isinstance(first, GameStarted):
        raise Failure("the game's log does not start with game_started (run tonk audit on it)")
    if viewer != AUDITOR and viewer not in first.players:
        raise Failure(f"{viewer!r} is not a player of this game (players: {', '.join(first.players)})")
    if at is not None and not 1 <= at <= len(events):
        raise Failure(f"--at {at} is out of range: the game has events 1 to {len(events)}")
    state = State()
    for seq, event in enumerate(events, start=1):
        try:
            evolve(state, event)
        except Exception as exc:  # a damaged log; replay must not crash on it
            raise Failure(f"event {seq} cannot be applied to the position before it ({type(exc).__name__}: {exc}); run tonk audit") from None
        if at is not None and seq != at:
            continue
        yield seq, event_view(event, viewer), player_view(state, viewer)
        if at is not None:
            return


def warn_broken_chain(findings: list) -> None:
    """One line on stderr when the replayed events do not hold their hash chain."""
    for f in findings:
        typer.echo(f"warning: game {f.game_id} seq {f.seq}: {f.message}; the events shown are not the ones recorded (tonk verify)", err=True)


@app.command("replay")
def replay_cmd(
    ctx: typer.Context,
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game (any unique prefix of its id)."),
    at: Optional[int] = typer.Option(None, "--at", min=1, metavar="N", help="Show only the table after event N (1-based)."),
    as_player: Optional[str] = typer.Option(None, "--as", metavar="PLAYER", help="Show only what this player could see (default: the auditor, who sees all)."),
    json_out: bool = typer.Option(False, "--json", help="Print the steps as JSON (docs/cli-json.md)."),
    db: Optional[str] = db_option(),
) -> None:
    """Replay a recorded game event by event, as one player saw it or as the omniscient auditor."""
    from ..core.views import AUDITOR
    from .games_cmd import open_existing_store, resolve_game_id

    viewer = as_player if as_player is not None else AUDITOR
    with reported():
        store = open_existing_store(settings(ctx).db, read_only=True)
        try:
            gid = resolve_game_id(store, game_id)
            events = store.read(gid)
            broken = store.verify(gid)
        finally:
            store.close()
    warn_broken_chain(broken)
    if json_out:
        _print_json(gid, viewer, events, at)
    else:
        _print_people(viewer, events, at)


def _print_json(gid: str, viewer: str, events: list, at: int | None) -> None:
    import msgspec

    from .render import print_json

    steps: list[dict[str, Any]] = []
    with reported():
        for seq, ev, view in replay_steps(events, viewer, at):
            steps.append({"seq": seq, "event": ev, "view": msgspec.to_builtins(view)})
    print_json({"game_id": gid, "viewer": viewer, "events": len(events), "steps": steps})


def _print_people(viewer: str, events: list, at: int | None) -> None:
    from .render import console
    from .table import ending_lines, event_line, net_line, table_lines

    out = console()
    n = len(events)
    with reported():
        for seq, ev, view in replay_steps(events, viewer, at):
            out.print(f"[bold]#{seq}[/bold]/{n} {event_line(ev, viewer)}")
            if ev.get("type") == "hand_ended":
                for line in ending_lines(ev)[1:]:
                    out.print(line)
                out.print("  " + net_line(view.net))
            elif ev.get("type") != "game_ended":
                for line in table_lines(view):
                    out.print(line)
            out.print()
