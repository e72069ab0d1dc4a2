"""``tonk key``, ``tonk checkpoint``, ``tonk prove``, and what ``verify --receipt /
--checkpoint / --proof`` and ``play`` / ``simulate --receipts`` run: thin commands over
:mod:`tonk.storage.evidence` (formats and algorithms: docs/evidence.md).

Exit codes: malformed evidence, a wrong key or a bad signature exit 2 with one
``error:`` line naming the file; a store that contradicts well-formed evidence exits 1,
one line per game affected naming its first missing or different event.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional

import typer

from .app import Failure, app, reported, settings, unwritable
from .options import db_option
from .render import print_json

RECEIPT_SUFFIX = ".receipt"


def _findings_exit(findings: list, heading: str, json_out: bool, data: dict[str, Any]) -> None:
    """Print the findings of a store that contradicts the evidence and exit 1."""
    if json_out:
        print_json({**data, "ok": False, "findings": [f.as_dict() for f in findings]})
    else:
        for f in findings:
            typer.echo(f.line())
    typer.echo(f"error: {heading}", err=True)
    raise typer.Exit(1)


@app.command("key")
def key_cmd(
    ctx: typer.Context,
    json_out: bool = typer.Option(False, "--json", help="Print {key, name, key_id, key_file} as JSON."),
    db: Optional[str] = db_option(),
) -> None:
    """Print the store's public key (created with its signing key on first use); verifiers pass it to --key."""
    from ..storage.evidence import signer
    from ..storage.keys import store_key_path
    from .games_cmd import open_existing_store

    with reported():
        store = open_existing_store(settings(ctx).db)
        with store:
            key = signer(store).verifier
    if json_out:
        print_json({"key": key.text(), "name": key.name, "key_id": f"{key.id:08x}", "key_file": str(store_key_path(store))})
    else:
        typer.echo(key.text())


def _write_text(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise Failure(f"cannot write {path}: {exc.strerror or exc}") from None


@app.command("checkpoint")
def checkpoint_cmd(
    ctx: typer.Context,
    output: Optional[Path] = typer.Option(None, "--output", metavar="FILE", help="Write the checkpoint to FILE instead of standard output."),
    new_key: bool = typer.Option(False, "--new-key", help="Sign with a new key when the store's key file is lost (the old public key stays recorded)."),
    json_out: bool = typer.Option(False, "--json", help="Print {origin, tree_size, root_hash, checkpoint, output} as JSON."),
    db: Optional[str] = db_option(),
) -> None:
    """Log the events stored since the last checkpoint and sign the Merkle tree head (a C2SP tlog-checkpoint)."""
    import base64

    from ..storage.evidence import Contradicted, make_checkpoint
    from .games_cmd import open_existing_store

    with reported():
        if output is not None and (why := unwritable(output)):
            raise Failure(f"cannot write {output}: {why} (nothing was signed)")
        store = open_existing_store(settings(ctx).db)
        with store:
            try:
                cp = make_checkpoint(store, new_key=new_key)
            except Contradicted as exc:
                _findings_exit(exc.findings, "the store contradicts its own evidence log or chain; no checkpoint was signed", json_out, {})
        if output is not None:
            _write_text(output, cp.note)
    data = {"origin": cp.origin, "tree_size": cp.tree_size, "root_hash": base64.b64encode(cp.root_hash).decode(), "checkpoint": cp.note}
    if json_out:
        print_json({**data, "output": str(output) if output else None})
    elif output is None:
        typer.echo(cp.note, nl=False)
    else:
        typer.echo(f"checkpoint of {cp.origin}: {cp.tree_size} entries, root {data['root_hash']}, written to {output}")


@app.command("prove")
def prove_cmd(
    ctx: typer.Context,
    game_id: str = typer.Argument(..., metavar="GAME_ID", hidden=True),
    output: Optional[Path] = typer.Option(None, "--output", metavar="FILE", help="Write the proof to FILE instead of standard output."),
    json_out: bool = typer.Option(False, "--json", help="Print {game_id, seq, hash, index, tree_size, origin, proof, output} as JSON."),
    db: Optional[str] = db_option(),
) -> None:
    """Print the proof that the game's last logged event is in the latest checkpoint (a C2SP tlog-proof).

    GAME_ID: the game (any unique prefix of its id)."""
    from ..storage.evidence import Contradicted, make_proof, proof_text
    from .games_cmd import open_existing_store, resolve_game_id

    with reported():
        store = open_existing_store(settings(ctx).db, read_only=True)
        with store:
            gid = resolve_game_id(store, game_id)
            try:
                proof = make_proof(store, gid)
            except Contradicted as exc:
                _findings_exit(exc.findings, "the store's evidence log no longer matches its latest checkpoint; no proof given", json_out, {})
            held = store.version(gid)
        text = proof_text(proof)
        if output is not None:
            _write_text(output, text)
    if held > proof.seq:
        typer.echo(
            f"note: game {gid} has {held} events; the latest checkpoint holds it up to seq {proof.seq} (tonk checkpoint logs the rest)", err=True
        )
    if json_out:
        print_json(
            {
                "game_id": gid,
                "seq": proof.seq,
                "hash": proof.hash,
                "index": proof.index,
                "tree_size": proof.checkpoint.tree_size,
                "origin": proof.checkpoint.origin,
                "proof": text,
                "output": str(output) if output else None,
            }
        )
    elif output is None:
        typer.echo(text, nl=False)
    else:
        typer.echo(f"proof of game {gid} seq {proof.seq} (entry {proof.index} of {proof.checkpoint.tree_size}) written to {output}")


# --- verify --receipt / --checkpoint / --proof ----------------------------------------------------


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise Failure(f"{what} {path}: no such file") from None
    except OSError as exc:
        raise Failure(f"{what} {path}: cannot read it ({exc.strerror or exc})") from None


def _receipt_files(paths: list[Path]) -> list[Path]:
    """The receipt files named, a directory standing for the ``*.receipt`` files in it."""
    files = []
    for p in paths:
        if p.is_dir():
            found = sorted(p.glob(f"*{RECEIPT_SUFFIX}"))
            if not found:
                raise Failure(f"no {RECEIPT_SUFFIX} files in the directory {p}")
            files.extend(found)
        else:
            files.append(p)
    return files


def _ok_line(kind: str, path: Path, facts: dict[str, Any]) -> str:
    if kind == "receipt":
        return f"ok: receipt {path}: game {facts['game_id']} seq {facts['seq']} (seat {facts['seat']}) is held as signed"
    if kind == "checkpoint":
        return (
            f"ok: checkpoint {path}: the store extends {facts['origin']} at {facts['tree_size']} entries "
            f"(now {facts['store_tree_size']}; consistency proof of {len(facts['consistency_proof'])} hash(es) verified); "
            f"every event logged in it is held ({facts['games_checked']} game(s))"
        )
    line = (
        f"ok: proof {path}: game {facts['game_id']} seq {facts['seq']} is entry {facts['index']} of "
        f"{facts['origin']} at {facts['tree_size']} entries"
    )
    return line + ("; the store extends that checkpoint" if facts["store_checked"] else " (no store checked)")


def verify_evidence(db: str, receipts: list[Path], checkpoints: list[Path], proofs: list[Path], key_text: Optional[str], json_out: bool) -> None:
    """``tonk verify`` with evidence files: exit 0 when the store holds all they vouch for."""
    from ..storage.evidence import read_key, verify_checkpoint, verify_proof, verify_receipt
    from ..storage.open import store_exists

    reports = []
    with reported():
        key = read_key(key_text) if key_text is not None else None  # "" is a key given badly, not none given
        store = None
        if receipts or checkpoints or store_exists(db):
            from .games_cmd import open_existing_store

            store = open_existing_store(db)
        try:
            if store is not None:  # opened whenever receipts or checkpoints are given
                for path in _receipt_files(receipts):
                    what = f"receipt {path}"
                    reports.append((path, verify_receipt(store, _read(path, "receipt"), key, what)))
                for path in checkpoints:
                    reports.append((path, verify_checkpoint(store, _read(path, "checkpoint"), key, f"checkpoint {path}")))
            for path in proofs:
                reports.append((path, verify_proof(store, _read(path, "proof"), key, f"proof {path}")))
        finally:
            if store is not None:
                store.close()
    failed = [(p, r) for p, r in reports if not r.ok]
    if json_out:
        print_json({"ok": not failed, "reports": [{"file": str(p), **r.as_dict()} for p, r in reports]})
    else:
        held = [p for p, r in reports if r.kind == "receipt" and r.ok]
        for path, r in reports:
            if not r.ok:
                for f in r.findings:
                    typer.echo(f"{r.kind} {path}: {f.line()}")
            elif r.kind != "receipt" or len(held) == 1:
                typer.echo(_ok_line(r.kind, path, r.facts))
        checked = sum(1 for _, r in reports if r.kind == "receipt")
        if len(held) > 1 and len(held) == checked:
            typer.echo(f"ok: {len(held)} receipts: the store holds the history each vouches for")
        elif held and len(held) < checked:
            typer.echo(f"{len(held)} of {checked} receipts are held as signed; the others are named above")
        if any(r.facts.get("key_source") == "store" for _, r in reports):
            typer.echo("note: checked with the public key the store records; pass --key with a key you trust to hold the store to account")
    if failed:
        raise typer.Exit(1)


# --- receipts written by play and simulate --------------------------------------------------------


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)[:40] or "_"


def make_receipts_directory(directory: Path) -> None:
    """``--receipts DIR``, made if missing: done before the store is opened (or created), so
    that a directory that cannot be made changes nothing."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Failure(f"--receipts: cannot create the directory {directory}: {exc.strerror or exc}") from None


class ReceiptWriter:
    """Writes a receipt per seat at each hand's end into ``directory``:
    ``<game id>.seq<seq>.<seat index>-<seat>.receipt``."""

    def __init__(self, store, directory: Path):
        from ..storage.evidence import signer

        make_receipts_directory(directory)
        self.store = store
        self.directory = directory
        self.key = signer(store)  # now, so that a missing key or cryptography fails before play
        self.done: dict[str, int] = {}
        self.written = 0

    def game(self, game_id: str) -> None:
        """Receipts for the game's hand ends not written yet."""
        from ..storage.evidence import hand_end_receipts, seats_of

        after = self.done.get(game_id, 0)
        receipts = hand_end_receipts(self.store, game_id, key=self.key, after=after)
        if not receipts:
            return
        index = {seat: i for i, seat in enumerate(seats_of(self.store, game_id), 1)}
        for seq, seat, text in receipts:
            _write_text(self.directory / f"{game_id}.seq{seq:06d}.{index[seat]}-{_safe(seat)}{RECEIPT_SUFFIX}", text)
            self.written += 1
        self.done[game_id] = receipts[-1][0]


def check_receipts_possible(db: str, directory: Path) -> None:
    """Before a simulation: the store's signing key can be had and the directory made."""
    from ..storage.open import open_store

    make_receipts_directory(directory)
    with open_store(db, create=True) as store:
        ReceiptWriter(store, directory)


def write_simulation_receipts(db: str, directory: Path, configs: list) -> int:
    """Receipts for every hand's end of the games the simulations ``configs`` stored."""
    from ..application.simulate import game_id_for
    from ..storage.open import open_store

    with open_store(db, create=False) as store:
        writer = ReceiptWriter(store, directory)
        for config in configs:
            ruleset = config.ruleset()
            for i in range(config.games):
                writer.game(game_id_for(config, ruleset, i))
    return writer.written
