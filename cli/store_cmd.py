"""``tonk export``, ``tonk import``, ``tonk verify``, ``tonk schema``: the event store's commands."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import BinaryIO, Optional, cast

from typing import TYPE_CHECKING

import typer

from .app import app, fail, reported, settings
from .interrupts import interruption_reported
from .options import db_option
from .render import print_json
from .replay_cmd import warn_broken_chain

if TYPE_CHECKING:  # the store and msgspec load when a command runs, keeping `tonk --help` quick
    from ..storage import EventStore


@app.command("export")
def export_cmd(
    ctx: typer.Context,
    game_ids: Optional[list[str]] = typer.Argument(None, metavar="GAME_ID", hidden=True),
    all_games: bool = typer.Option(False, "--all", "-a", help="Export every game in the store (ordered by id)."),
    output: Optional[Path] = typer.Option(None, "--output", metavar="FILE", help="Write to FILE instead of standard output."),
    json_out: bool = typer.Option(False, "--json", help="With --output, print the summary as JSON."),
    as_record: bool = typer.Option(False, "--as-record", help="Write one hand's position as a hand record (the dispute desk's and tonk adjudicate's format) instead of events; with --hand."),
    hand: Optional[int] = typer.Option(None, "--hand", min=1, metavar="N", help="With --as-record: the hand (1-based)."),
    at: int = typer.Option(0, "--at", min=0, metavar="K", help="With --as-record: the position after K actions of the hand (default 0: just after the deal)."),
    db: Optional[str] = db_option(),
) -> None:
    """Export games as JSONL: a header line, then one event a line with its hash chain.

    GAME_ID: games to export in this order (any unique prefix of an id), or --all.
    With --as-record --hand N [--at K]: one game's hand N at position K as a hand record
    (the position, then the actions that followed), for `tonk adjudicate` or the dispute desk."""
    from ..storage.open import open_store

    db = settings(ctx).db
    if as_record or hand is not None or at:
        _export_record(db, game_ids or [], all_games, as_record, hand, at, output, json_out)
        return
    if bool(game_ids) == all_games:
        raise fail("name the games to export, or give --all (not both)")
    with reported(), open_store(db, create=False, read_only=True) as store:
        ids = resolve_game_ids(store, game_ids) if game_ids else None  # None: --all
        if output is None:
            _export_to_stdout(store, ids)
        else:
            games, events = _export_to_file(store, ids, output)
        broken = _broken_chains(store, ids)
    warn_broken_chain(broken, "the file holds the events as stored, which tonk import refuses")
    if output is None:
        return
    if json_out:
        print_json({"output": str(output), "games": games, "events": events})
    else:
        typer.echo(f"exported {games} game(s), {events} event(s) to {output}")


def _export_record(db: str, game_ids: list[str], all_games: bool, as_record: bool, hand: Optional[int], at: int, output: Optional[Path], json_out: bool) -> None:
    """``--as-record``: one hand's position as a hand record, on stdout or into ``output``."""
    import json

    from ..application.position_record import position_record
    from ..storage.open import open_store

    if not as_record:
        raise fail("--hand and --at go with --as-record (a hand's position as a hand record)")
    if all_games or len(game_ids) != 1:
        raise fail("--as-record exports one hand of one game: name one GAME_ID (not --all)")
    if hand is None:
        raise fail("--as-record needs --hand N (the hand to export)")
    with reported(), open_store(db, create=False, read_only=True) as store:
        (game_id,) = resolve_game_ids(store, game_ids)
        record = position_record(store.read(game_id), hand, at, game_id=game_id)
    text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}") from None
    if json_out:
        print_json({"output": str(output), "game": game_id, "hand": hand, "at": at, "actions": len(record["actions"])})
    else:
        typer.echo(f"wrote hand {hand} of game {game_id} at position {at} ({len(record['actions'])} action(s) follow) to {output}")


def _broken_chains(store: EventStore, ids: Optional[list[str]]) -> list:
    """The first broken link of each exported game whose events do not hold their chain."""
    if ids is None:
        return store.verify()
    return [f for gid in dict.fromkeys(ids) for f in store.verify(gid)]


def _event_total(store, ids: Optional[list[str]]) -> int:
    """How many events an export writes (for its progress bar)."""
    if ids is None:
        return store.last_position()  # positions are gap-free: the number of events (either back end)
    return sum(store.version(g) for g in dict.fromkeys(ids))


def resolve_game_ids(store, texts: list[str]) -> list[str]:
    """Full ids for ids or unique prefixes, in the order given."""
    from .games_cmd import resolve_game_id

    known = store.game_ids()
    return [resolve_game_id(store, t, known) for t in texts]


def _export_to_stdout(store: EventStore, ids: Optional[list[str]]) -> None:
    from ..storage.jsonl import export_games

    from .progress import CountingWriter, progress

    sys.stdout.flush()
    out = sys.stdout.buffer
    try:
        with progress("exporting", _event_total(store, ids) + 1, "lines", enabled=not sys.stdout.isatty()) as advance:
            export_games(store, ids, cast(BinaryIO, CountingWriter(out, advance)))  # it only writes
        out.flush()
    except BrokenPipeError:  # the reader stopped early (`tonk export --all | head`)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise typer.Exit(1) from None


def _export_to_file(store: EventStore, ids: Optional[list[str]], output: Path) -> tuple[int, int]:
    """Write next to ``output`` and rename into place, so a failed export leaves no partial file."""
    import secrets

    from ..storage.jsonl import export_games
    from .progress import CountingWriter, progress

    directory = output.parent if str(output.parent) else Path(".")
    if not directory.is_dir():
        raise fail(f"cannot write {output}: directory {directory} does not exist")
    tmp = directory / f".{output.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        with open(tmp, "xb") as out, progress("exporting", _event_total(store, ids) + 1, "lines") as advance:  # default permissions, unlike mkstemp's 0600
            counts = export_games(store, ids, cast(BinaryIO, CountingWriter(out, advance)))  # it only writes
        os.replace(tmp, output)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise fail(f"cannot write {output}: {exc.strerror or exc}") from None
        raise
    return counts


@app.command("import")
def import_cmd(
    ctx: typer.Context,
    file: Path = typer.Argument(..., metavar="FILE", hidden=True),
    strict: bool = typer.Option(True, "--strict/--no-strict", help="Audit every game against its pinned rules before importing."),
    json_out: bool = typer.Option(False, "--json", help="Print {imported, present, games, events} as JSON."),
    db: Optional[str] = db_option(),
) -> None:
    """Import games from JSONL; the whole file is validated first and refused whole on any error.

    FILE: a JSONL file written by tonk export."""
    from ..storage.jsonl import check_file, write_checked
    from ..storage.open import is_memory, is_postgres, open_store, store_exists

    db = settings(ctx).db
    written: list[int] = []
    with reported(), interruption_reported(lambda: _import_interrupted(written, db)):
        # a PostgreSQL store is opened (created) at once; a SQLite file only once there is something to write
        existing = open_store(db, create=is_postgres(db)) if store_exists(db) else None
        try:
            from .progress import progress

            size = file.stat().st_size if file.is_file() else None
            with progress("checking", size, "bytes") as advance:
                read = [0]

                def done(upto: int) -> None:
                    advance(upto - read[0])
                    read[0] = upto

                checked = check_file(file, existing, rules_check=first_rules_finding if strict else None, progress=done)
            if checked.imported:
                store = existing or open_store(db, create=True)
                try:
                    write_checked(store, checked)
                    written.append(len(checked.imported))
                finally:
                    if store is not existing:
                        store.close()
        finally:
            if existing is not None:
                existing.close()
    for warning in checked.warnings:
        typer.echo(f"warning: {warning}", err=True)
    if json_out:
        print_json(checked.as_dict())
    else:
        line = f"imported {len(checked.imported)} game(s), {checked.events} event(s)"
        if is_memory(db):  # a check of the file: the store is gone with the command
            line += " into an in-memory store (:memory:) and discarded them"
        if checked.present:
            line += f"; {len(checked.present)} already in the store with the same events"
        typer.echo(line)


def _import_interrupted(written: list[int], target: str) -> str:
    from ..storage.open import describe

    db = describe(target)
    if written:
        return f"the import was written before the interrupt: {written[0]} game(s) imported into {db}; the store is consistent"
    return f"nothing was imported (an import is written in one transaction); the store {db} is consistent and unchanged"


@app.command("verify")
def verify_cmd(
    ctx: typer.Context,
    game_ids: Optional[list[str]] = typer.Argument(None, metavar="GAME_ID", hidden=True),
    receipt: list[Path] = typer.Option([], "--receipt", metavar="FILE", help="Check that the store holds the history this signed receipt vouches for (a directory: its *.receipt files); repeatable."),
    checkpoint: list[Path] = typer.Option([], "--checkpoint", metavar="FILE", help="Check that the store extends this signed checkpoint (consistency proof) and holds every event logged in it; repeatable."),
    proof: list[Path] = typer.Option([], "--proof", metavar="FILE", help="Check an inclusion proof written by tonk prove (and, when the store exists, the store against its checkpoint); repeatable."),
    key: Optional[str] = typer.Option(None, "--key", metavar="KEY|FILE", help="The public key to trust (as tonk key prints it, or a file holding it); default: the keys the store records."),
    json_out: bool = typer.Option(False, "--json", help="Print {ok, games, findings} as JSON (with evidence: {ok, reports})."),
    db: Optional[str] = db_option(),
) -> None:
    """Recompute the hash chains and seq continuity, check the games table against the events
    and the append-only triggers; exit 1 naming each game's first broken link and every difference.

    GAME_ID: games to verify (any unique prefix of an id; default: all).  With --receipt, --checkpoint
    or --proof: check the store against that signed evidence instead (docs/evidence.md); exit 1
    naming each game affected and its first missing or different event."""
    import msgspec

    from ..storage.open import open_store

    if receipt or checkpoint or proof:
        from .evidence_cmd import verify_evidence

        if game_ids:
            raise fail("name games, or give --receipt/--checkpoint/--proof, not both")
        verify_evidence(settings(ctx).db, receipt, checkpoint, proof, key, json_out)
        return
    if key is not None:
        raise fail("--key goes with --receipt, --checkpoint or --proof")

    with reported(), open_store(settings(ctx).db, create=False, read_only=True) as store:
        if game_ids:
            ids = list(dict.fromkeys(resolve_game_ids(store, game_ids)))
            findings = [f for gid in ids for f in store.verify(gid)]
            games = len(ids)
        else:
            findings = store.verify()
            games = len(store.game_ids())
        wanted = set(game_ids or ())
        rows = [f for f in store.projection_findings() if not wanted or f.game_id in wanted]
        triggers = store.trigger_problems()
    ok = not (findings or rows or triggers)
    if json_out:
        print_json(
            {
                "ok": ok,
                "games": games,
                "findings": [msgspec.to_builtins(f) for f in findings],
                "projection": [msgspec.to_builtins(f) for f in rows],
                "triggers": triggers,
            }
        )
    else:
        for f in findings:
            typer.echo(f"game {f.game_id} seq {f.seq}: {f.message} (expected {f.expected}, found {f.found})")
        for p in rows:
            typer.echo(f"game {p.game_id} projection: {p.message}")
        for t in triggers:
            typer.echo(f"store: {t}")
        if ok:
            typer.echo(f"ok: {games} game(s) verified")
    if not ok:
        raise typer.Exit(1)


def first_rules_finding(events: list):
    """The strict import's rules check: the game's first audit finding, or ``None``."""
    from ..application.audit import first_rules_finding as check

    return check(events)


@app.command("backup")
def backup_cmd(
    ctx: typer.Context,
    dest: Path = typer.Argument(..., metavar="DEST", hidden=True),
    json_out: bool = typer.Option(False, "--json", help="Print {backup, games} as JSON."),
    db: Optional[str] = db_option(),
) -> None:
    """Copy the store to DEST, a new SQLite file: a consistent snapshot (SQLite's backup API:
    safe while the store is in use and has a WAL, unlike cp); from a PostgreSQL store, every
    game, the evidence log and the served tables' records, the games checked byte for byte.

    DEST: the new file to write (an existing file is refused)."""
    from .games_cmd import open_existing_store

    with reported():
        store = open_existing_store(settings(ctx).db, read_only=True)
        try:
            store.backup(dest)
            games = store.game_count()
        finally:
            store.close()
    if json_out:
        print_json({"backup": str(dest), "games": games})
    else:
        typer.echo(f"backed up {games} game(s) to {dest}")


def event_schema() -> dict:
    """The JSON Schema of the event union, marked with the format name and version."""
    import msgspec

    from ..core.events import FORMAT_VERSION, Event
    from ..storage.jsonl import FORMAT_NAME

    schema = msgspec.json.schema(Event)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{FORMAT_NAME} event, format version {FORMAT_VERSION}",
        "x-tonk-format": FORMAT_NAME,
        "x-tonk-format-version": FORMAT_VERSION,
        **schema,
    }


@app.command("schema")
def schema_cmd(
    json_out: bool = typer.Option(False, "--json", help="Accepted for uniformity: the schema is JSON either way."),
    hand_record: bool = typer.Option(
        False, "--hand-record", help="The schema of hand-record files (tonk adjudicate), format versions 1 and 2, instead."
    ),
) -> None:
    """Print the JSON Schema of the event format (generated from the msgspec definitions) and its version;
    with --hand-record, that of hand-record files (format versions 1 and 2)."""
    if hand_record:
        from ..core.handrecord_schema import hand_record_schema

        print_json(hand_record_schema())
        return
    print_json(event_schema())
