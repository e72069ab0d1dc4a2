"""``tonk copy``: move an archive between stores (SQLite file or postgresql:// URL), verified."""

from __future__ import annotations

from typing import Optional

import typer

from .app import app, reported
from .render import print_json


@app.command("copy")
def copy_cmd(
    source: str = typer.Option(..., "--from", metavar="DB", help="The store to copy from: a SQLite file or a postgresql:// URL."),
    dest: str = typer.Option(..., "--to", metavar="DB", help="The store to copy into (created if missing)."),
    game_ids: Optional[list[str]] = typer.Argument(None, metavar="GAME_ID", hidden=True),
    strict: bool = typer.Option(True, "--strict/--no-strict", help="Audit every game against its pinned rules before writing it."),
    json_out: bool = typer.Option(False, "--json", help="Print {games, events, copied, present, sha256} as JSON."),
) -> None:
    """Copy games between stores: exported, imported (validated), and exported again to check the bytes are the same.

    GAME_ID: games to copy (any unique prefix of an id in the --from store); default: all."""
    from ..core.errors import TonkError
    from ..storage.copy import copy_games
    from ..storage.open import is_memory, open_store
    from .store_cmd import first_rules_finding, resolve_game_ids

    with reported():
        if source == dest:
            raise TonkError("--from and --to name the same store")
        with open_store(source, create=False, read_only=True) as src:
            ids = resolve_game_ids(src, game_ids) if game_ids else None
            with open_store(dest, create=True) as dst:
                result = copy_games(src, dst, ids, rules_check=first_rules_finding if strict else None)
    if json_out:
        print_json(result.as_dict())
    else:
        line = f"copied {len(result.copied)} game(s) ({result.events} event(s) read), verified: the same export bytes (sha256 {result.digest[:16]})"
        if result.present:
            line += f"; {len(result.present)} already there with the same events"
        if is_memory(dest):  # a check that the games copy: the store is gone with the command
            line += "; --to :memory: keeps nothing after this command"
        typer.echo(line)
