"""``tonk games``: the recorded games (id, when, players and net results, ruleset, hands).

Also home of the store helpers the reading commands share: opening an
existing store (a missing file is an error, never silently created) and
resolving a game id, which may be abbreviated to any unique prefix (as git
does with commit ids); ``tonk games`` shows the first 8 characters.
"""

from __future__ import annotations

from typing import Any, Optional

import typer

from .app import Failure, app, reported, settings
from .options import db_option

SHORT_ID = 8


def open_existing_store(path: str, *, read_only: bool = False):
    """The store at ``path`` (``read_only``: for reading only, so it may sit on read-only
    media); :class:`Failure` if it does not exist."""
    from ..storage.open import open_store, store_exists

    if not store_exists(path):
        raise Failure(f"no tonk database at {path} (play a game first, or give --db / TONK_DB)")
    return open_store(path, create=False, read_only=read_only)


def resolve_game_id(store, text: str, ids: list[str] | None = None) -> str:
    """The full id of a game given its id or a unique prefix of it."""
    ids = store.game_ids() if ids is None else ids
    if text in ids:
        return text
    matches = [g for g in ids if g.startswith(text)] if text else []
    if len(matches) == 1:
        return matches[0]
    from ..core.names import quoted

    if not matches:
        raise Failure(f"no game {quoted(text)} in {store.path} (tonk games lists them)")
    listed = ", ".join(m[: max(SHORT_ID, len(text) + 4)] for m in matches[:5])
    raise Failure(f"game id {quoted(text)} is ambiguous: {len(matches)} games start with it ({listed}{', ...' if len(matches) > 5 else ''})")


def warn_disagreeing_rows(game_ids: list[str]) -> None:
    """One line on stderr when the games table disagrees with the events (the rows shown
    are the events' own)."""
    if game_ids:
        shown = ", ".join(g[:SHORT_ID] for g in game_ids[:5]) + (", ..." if len(game_ids) > 5 else "")
        typer.echo(
            f"warning: the games table disagrees with the events for {len(game_ids)} game(s) ({shown}); "
            "shown as the events have them (tonk verify names the differences)",
            err=True,
        )


def game_row(row: dict[str, Any]) -> dict[str, Any]:
    """One game as documented in docs/cli-json.md (a stable shape, whatever the store adds)."""
    return {
        "game_id": row.get("game_id"),
        "started_at": row.get("started_at"),
        "ended_at": row.get("ended_at"),
        "players": list(row.get("players") or ()),
        "variants": list(row.get("variants") or ()),
        "options": dict(row.get("options") or {}),
        "hands": row.get("hands", 0),
        "net": dict(row.get("net") or {}),
        "status": row.get("status"),
        "events": row.get("events"),
    }


def _when(ts: str | None) -> str:
    if not ts:
        return "-"
    return ts.replace("T", " ")[:16]


def _rules(g: dict[str, Any]) -> str:
    text = ", ".join(g["variants"]) or "classic"
    stake = g["options"].get("base_stake", 1)
    return text + (f" \u00d7{stake}" if stake != 1 else "")


@app.command("games")
def games_cmd(
    ctx: typer.Context,
    player: Optional[str] = typer.Option(None, "--player", metavar="PLAYER", help="Only games with this player seated."),
    variant: Optional[str] = typer.Option(None, "--variant", "-v", metavar="VARIANT", help="Only games played with this house rule."),
    json_out: bool = typer.Option(False, "--json", help="Print {\"games\": [...]} as JSON (docs/cli-json.md)."),
    db: Optional[str] = db_option(),
) -> None:
    """List the recorded games: id, when, players with their net results, ruleset, hands played."""
    with reported():
        store = open_existing_store(settings(ctx).db, read_only=True)
        try:
            found, disagree = store.checked_games(player=player, variant=variant)
            rows = [game_row(r) for r in found]
        finally:
            store.close()
    warn_disagreeing_rows(disagree)
    if json_out:
        from .render import print_json

        print_json({"games": rows})
        return
    from rich.table import Table

    from .render import console, safe

    out = console()
    if not rows:
        filt = " matching the filter" if player or variant else ""
        from ..storage.open import describe

        out.print(f"no games{filt} in {safe(describe(settings(ctx).db))}")
        return
    t = Table(box=None, header_style="bold", padding=(0, 1), show_edge=False)
    t.add_column("game", no_wrap=True)
    t.add_column("started", no_wrap=True)
    t.add_column("players (net)", overflow="fold")
    t.add_column("rules", overflow="fold")
    t.add_column("hands", justify="right")
    t.add_column("status")
    for g in rows:
        net = ", ".join(f"{p} {g['net'].get(p, 0):+d}" for p in g["players"])
        status = "[green]ended[/green]" if g["status"] == "ended" else f"[yellow]{safe(g['status'])}[/yellow]"
        t.add_row(safe(str(g["game_id"])[:SHORT_ID]), safe(_when(g["started_at"])), safe(net), safe(_rules(g)), str(g["hands"]), status)
    out.print(t)
    out.print(f"[dim]{len(rows)} game(s); ids may be abbreviated to any unique prefix[/dim]")
