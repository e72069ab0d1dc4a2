"""Moving an archive between stores (SQLite to PostgreSQL and back), verified; and the
backup of a PostgreSQL store into a new SQLite file (:func:`backup_to_file`).

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
from .jsonl import RulesCheck, export_games, import_file
from .store import EventStore, backup_paths

#: the side tables a backup carries besides the events, with their columns, in their order
SIDE_TABLES: tuple[tuple[str, str, str], ...] = (
    ("evidence_keys", "key_id, name, public_key, created_at", "created_at, key_id"),
    ("evidence_log", "leaf_index, game_id, seq, hash, logged_at", "leaf_index"),
    ("evidence_checkpoints", "tree_size, key_id, root_hash, note, signed_at", "tree_size, key_id"),
    ("served_tables", "game_id, settings, closed", "n"),
    ("seat_tokens", "game_id, seat, token_hash", "game_id, seat"),
)


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
    export_games(dest, ids, back)  # type: ignore[arg-type]
    result.digest = back.sha.hexdigest()
    if result.digest != sent:
        raise StoreError(f"the copy in {dest.path} does not export the same bytes as {source.path} (sha256 {result.digest} != {sent})")
    return result


def backup_to_file(source: EventStore, dest: str | Path) -> int:
    """Write a new SQLite store file ``dest`` holding everything ``source`` (a PostgreSQL
    store) holds: every game (through :func:`copy_games`, so the file exports the same bytes),
    the evidence log with its keys and checkpoints (so receipts, checkpoints and proofs
    signed before check against the file), and the served tables' settings and token
    hashes.  The side tables are read first: events are only ever appended, so every event
    they name is in the games copied after.  Written beside ``dest`` and renamed into
    place; an existing ``dest`` is refused.  Returns the number of games."""
    from .seats import create_sqlite_tables

    dest, tmp = backup_paths(dest)
    with source.statements() as sql:
        side = {
            table: sql.execute(f"SELECT {columns} FROM {table} ORDER BY {order}").fetchall() if sql.has_tables([table]) else []
            for table, columns, order in SIDE_TABLES
        }
    try:
        with EventStore.open(tmp) as target:
            result = copy_games(source, target)
            create_sqlite_tables(target)
            with target.statements_write() as out:
                for table, columns, _ in SIDE_TABLES:
                    marks = ", ".join("?" for _ in columns.split(","))
                    out.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", side[table])
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
