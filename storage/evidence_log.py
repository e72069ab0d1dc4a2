"""The store's evidence tables: the append-only log of event hashes that checkpoints sign,
the public keys the store has signed with, and the checkpoints it signed.

``evidence_log`` holds one entry per event, in the order the entries were logged:
``(leaf_index, game_id, seq, hash)``, where ``hash`` is the event's stored chain hash.
Each ``tonk checkpoint`` appends the events stored since the last one (every game's
events after the highest seq already logged), then signs the Merkle tree head over all
entries.  Entries are only ever appended, so the tree of a later checkpoint extends the
tree of an earlier one and a consistency proof joins them; a tree over "every game's
last event" would not be append-only (a game that grows changes its leaf).

Leaf bytes (what the Merkle tree hashes, with the 0x00 leaf prefix)::

    uint32 big-endian length of the game id in UTF-8 || game id (UTF-8)
    || uint64 big-endian seq || the 32 bytes of the event's hash

``evidence_keys`` holds each public key (never a private key) with its name; the log's
origin is that name.  ``evidence_checkpoints`` keeps the signed notes, so that
``tonk prove`` can give a proof against the latest one.  Triggers refuse UPDATE and
DELETE on all three.
"""

from __future__ import annotations

import sqlite3
import struct
from typing import NamedTuple

from .errors import StoreError
from .signed_note import MalformedEvidence, VerifierKey

TABLES = ("evidence_log", "evidence_keys", "evidence_checkpoints")


def create_tables(db) -> None:
    """The migration that adds the evidence tables (``tonk.storage.schema.STEPS``)."""
    db.execute(
        """
        CREATE TABLE evidence_log (
            leaf_index INTEGER PRIMARY KEY CHECK (leaf_index >= 0),
            game_id    TEXT    NOT NULL,
            seq        INTEGER NOT NULL CHECK (seq >= 1),
            hash       TEXT    NOT NULL CHECK (length(hash) = 64),
            logged_at  TEXT    NOT NULL,
            UNIQUE (game_id, seq)
        ) STRICT
        """
    )
    db.execute(
        """
        CREATE TABLE evidence_keys (
            key_id     TEXT NOT NULL PRIMARY KEY CHECK (length(key_id) = 8),
            name       TEXT NOT NULL,
            public_key TEXT NOT NULL,
            created_at TEXT NOT NULL
        ) STRICT
        """
    )
    db.execute(
        """
        CREATE TABLE evidence_checkpoints (
            tree_size INTEGER NOT NULL CHECK (tree_size >= 0),
            key_id    TEXT    NOT NULL,
            root_hash TEXT    NOT NULL CHECK (length(root_hash) = 64),
            note      TEXT    NOT NULL,
            signed_at TEXT    NOT NULL,
            PRIMARY KEY (tree_size, key_id)
        ) STRICT
        """
    )
    for table in TABLES:
        for verb in ("UPDATE", "DELETE"):
            db.execute(
                f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {verb} is refused'); END"
            )


class Entry(NamedTuple):
    """One entry of the log: the event ``(game_id, seq)`` whose chain hash was ``hash``."""

    index: int
    game_id: str
    seq: int
    hash: str


def leaf_bytes(game_id: str, seq: int, hash_hex: str) -> bytes:
    """The bytes of the log entry for event ``seq`` of ``game_id`` with chain hash ``hash_hex``."""
    gid = game_id.encode("utf-8")
    try:
        digest = bytes.fromhex(hash_hex)
    except ValueError:
        digest = b""
    if len(digest) != 32:
        raise StoreError(f"game {game_id} seq {seq}: the stored hash {hash_hex[:64]!r} is not 64 hex digits")
    return struct.pack(">I", len(gid)) + gid + struct.pack(">Q", seq) + digest


def parse_leaf(data: bytes) -> tuple[str, int, str]:
    """``(game_id, seq, hash)`` from leaf bytes; :class:`MalformedEvidence` if they are not one."""
    if len(data) < 4:
        raise MalformedEvidence("the entry is too short to be a tonk log entry")
    (n,) = struct.unpack(">I", data[:4])
    if len(data) != 4 + n + 8 + 32:
        raise MalformedEvidence("the entry's length does not match a tonk log entry")
    try:
        game_id = data[4 : 4 + n].decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedEvidence("the entry's game id is not UTF-8") from None
    (seq,) = struct.unpack(">Q", data[4 + n : 12 + n])
    return game_id, seq, data[12 + n :].hex()


def has_tables(conn: sqlite3.Connection) -> bool:
    """Whether the store has the evidence tables (a store of an older schema opened
    read-only may not)."""
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'evidence_%'")}
    return set(TABLES) <= names


def known_keys(conn: sqlite3.Connection) -> list[VerifierKey]:
    """The public keys the store has signed with, oldest first."""
    if not has_tables(conn):
        return []
    keys = []
    for (text,) in conn.execute("SELECT public_key FROM evidence_keys ORDER BY created_at, key_id"):
        try:
            keys.append(VerifierKey.parse(text))
        except MalformedEvidence as exc:
            raise StoreError(f"the store's evidence_keys table holds a damaged public key: {exc}") from None
    return keys


def record_key(conn: sqlite3.Connection, key: VerifierKey, at: str) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO evidence_keys (key_id, name, public_key, created_at) VALUES (?, ?, ?, ?)",
        (f"{key.id:08x}", key.name, key.text(), at),
    )


def entries(conn: sqlite3.Connection, limit: int | None = None) -> list[Entry]:
    """The log's entries in order (the first ``limit`` of them)."""
    if not has_tables(conn):
        return []
    sql = "SELECT leaf_index, game_id, seq, hash FROM evidence_log"
    if limit is None:
        return [Entry(*r) for r in conn.execute(sql + " ORDER BY leaf_index")]
    return [Entry(*r) for r in conn.execute(sql + " WHERE leaf_index < ? ORDER BY leaf_index", (limit,))]


def size(conn: sqlite3.Connection) -> int:
    if not has_tables(conn):
        return 0
    return conn.execute("SELECT count(*) FROM evidence_log").fetchone()[0]


def append_new_events(conn: sqlite3.Connection, at: str) -> int:
    """Append an entry for every stored event not logged yet (each game's events after its
    highest logged seq), in the order they were recorded; returns how many."""
    start = conn.execute("SELECT coalesce(max(leaf_index) + 1, 0) FROM evidence_log").fetchone()[0]
    rows = conn.execute(
        """
        SELECT e.game_id, e.seq, e.hash FROM events AS e
        LEFT JOIN (SELECT game_id, max(seq) AS top FROM evidence_log GROUP BY game_id) AS l ON l.game_id = e.game_id
        WHERE e.seq > coalesce(l.top, 0)
        ORDER BY e.recorded_at, e.game_id, e.seq
        """
    ).fetchall()
    conn.executemany(
        "INSERT INTO evidence_log (leaf_index, game_id, seq, hash, logged_at) VALUES (?, ?, ?, ?, ?)",
        ((start + i, gid, seq, h, at) for i, (gid, seq, h) in enumerate(rows)),
    )
    return len(rows)


class StoredCheckpoint(NamedTuple):
    tree_size: int
    key_id: str
    root_hash: str
    note: str


def record_checkpoint(conn: sqlite3.Connection, cp: StoredCheckpoint, at: str) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO evidence_checkpoints (tree_size, key_id, root_hash, note, signed_at) VALUES (?, ?, ?, ?, ?)",
        (*cp, at),
    )


def latest_checkpoint(conn: sqlite3.Connection) -> StoredCheckpoint | None:
    if not has_tables(conn):
        return None
    row = conn.execute(
        "SELECT tree_size, key_id, root_hash, note FROM evidence_checkpoints ORDER BY tree_size DESC, signed_at DESC LIMIT 1"
    ).fetchone()
    return StoredCheckpoint(*row) if row else None


def game_entry(conn: sqlite3.Connection, game_id: str, below: int) -> Entry | None:
    """The entry of the game's last event among the first ``below`` entries."""
    row = conn.execute(
        "SELECT leaf_index, game_id, seq, hash FROM evidence_log WHERE game_id = ? AND leaf_index < ? ORDER BY seq DESC LIMIT 1",
        (game_id, below),
    ).fetchone()
    return Entry(*row) if row else None
