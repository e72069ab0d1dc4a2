"""Moving an archive between stores (SQLite to PostgreSQL and back), verified; and the
backup of a PostgreSQL (or in-memory) store into a new SQLite file (:func:`backup_to_file`).

:func:`copy_games` exports the games from the source as JSONL (to a temporary
file), imports that file into the destination through the ordinary import
(every line checked: chain, canonical bytes and, given a ``rules_check``, the rules; all
new games in one transaction), then exports the same games from the
destination and compares: the bytes must be the source's export, byte for
byte, or the copy is reported as failed.  A game already in the destination
with the same events is left as it is; with other events, the copy is refused
and nothing is written.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from .errors import StoreError
from .base import EventStore
from .jsonl import RulesCheck, export_games, import_file


@dataclass
class CopyResult:
    games: int = 0
    events: int = 0
    copied: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    digest: str = ""

    def as_dict(self) -> dict:
        return {"games": self.games, "events": self.events, "copied": self.copied, "present": self.present, "sha256": self.digest}


class _Digest:
    """A writable that only hashes what it is given."""

    def __init__(self) -> None:
        self.sha = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.sha.update(data)
        return len(data)


def copy_games(source: EventStore, dest: EventStore, game_ids: Iterable[str] | None = None, *, rules_check: RulesCheck | None = None) -> CopyResult:
    """Copy the games (all when ``game_ids`` is None) from ``source`` to ``dest``, then check
    that ``dest`` exports them byte-identically.  :class:`StoreError` if it does not.
    ``rules_check``: as for :func:`~.jsonl.import_file` (the strict import's audit)."""
    result = CopyResult()
    with tempfile.TemporaryDirectory(prefix="tonk-copy-") as tmp:
        path = Path(tmp) / "copy.jsonl"
        with open(path, "wb") as out:
            ids = source.game_ids() if game_ids is None else list(dict.fromkeys(game_ids))
            result.games, result.events = export_games(source, ids, out)
        sent = hashlib.sha256(path.read_bytes()).hexdigest()
        imported = import_file(dest, path, rules_check=rules_check)
    result.copied, result.present = imported.imported, imported.present
    back = _Digest()
    export_games(dest, ids, back)
    result.digest = back.sha.hexdigest()
    if result.digest != sent:
        raise StoreError(f"the copy in {dest.path} does not export the same bytes as {source.path} (sha256 {result.digest} != {sent})")
    return result


def backup_to_file(source: EventStore, dest: str | Path) -> int:
    """Write a new SQLite store file ``dest`` holding everything ``source`` (a PostgreSQL
    or in-memory store) holds: every game (through :func:`copy_games`, so the file exports
    the same bytes), the evidence log with its keys and checkpoints (so receipts,
    checkpoints and proofs signed before check against the file), and the served tables'
    settings and token hashes.  The side tables are read first: events are only ever
    appended, so every event they name is in the games copied after.  Written beside
    ``dest`` and renamed into place; an existing ``dest`` is refused.  Returns the number
    of games."""
    from .sqlite import SqliteEventStore, backup_paths

    dest, tmp = backup_paths(dest)
    with source.evidence() as log:
        evidence = log.dump()
    seats = source.seat_tables().dump()
    try:
        with SqliteEventStore.open_file(tmp) as target:
            result = copy_games(source, target)
            with target.evidence(write=True) as out:
                out.load(evidence)
            target.seat_tables().load(seats)
        conn = sqlite3.connect(tmp)
        try:
            conn.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
        finally:
            conn.close()
        os.replace(tmp, dest)
    except OSError as exc:
        raise StoreError(f"cannot back up to {dest}: {exc.strerror or exc}") from None
    except sqlite3.Error as exc:
        raise StoreError(f"cannot back up to {dest}: {exc}") from None
    finally:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm"), Path(f"{tmp}-journal")):
            if leftover.exists():
                leftover.unlink()
    return result.games
