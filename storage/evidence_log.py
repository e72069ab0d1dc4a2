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

import struct
from typing import Any, NamedTuple, Protocol

from .errors import StoreError
from .signed_note import MalformedEvidence, VerifierKey
from .statements import Statements

TABLES = ("evidence_log", "evidence_keys", "evidence_checkpoints")


def create_tables(db: Any) -> None:
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


def create_tables_postgres(cur: Any) -> None:
    """The same tables in a PostgreSQL store (``tonk.storage.postgres_schema.STEPS``): text
    compared byte-wise (``COLLATE "C"``, as the events), UPDATE, DELETE and TRUNCATE refused."""
    cur.execute(
        """
        CREATE TABLE evidence_log (
            leaf_index BIGINT PRIMARY KEY CHECK (leaf_index >= 0),
            game_id    TEXT COLLATE "C" NOT NULL,
            seq        INTEGER NOT NULL CHECK (seq >= 1),
            hash       TEXT COLLATE "C" NOT NULL CHECK (length(hash) = 64),
            logged_at  TEXT COLLATE "C" NOT NULL,
            UNIQUE (game_id, seq)
        )
        """
    )
    cur.execute(
        """
        CREATE TABLE evidence_keys (
            key_id     TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(key_id) = 8),
            name       TEXT COLLATE "C" NOT NULL,
            public_key TEXT COLLATE "C" NOT NULL,
            created_at TEXT COLLATE "C" NOT NULL
        )
        """
    )
    cur.execute(
        """
        CREATE TABLE evidence_checkpoints (
            tree_size BIGINT NOT NULL CHECK (tree_size >= 0),
            key_id    TEXT COLLATE "C" NOT NULL,
            root_hash TEXT COLLATE "C" NOT NULL CHECK (length(root_hash) = 64),
            note      TEXT COLLATE "C" NOT NULL,
            signed_at TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (tree_size, key_id)
        )
        """
    )
    cur.execute(
        """
        CREATE FUNCTION tonk_evidence_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '% is append-only: % is refused', TG_TABLE_NAME, TG_OP;
        END
        $$
        """
    )
    for table in TABLES:
        cur.execute(
            f"CREATE TRIGGER {table}_no_update BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION tonk_evidence_append_only()"
        )
        cur.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION tonk_evidence_append_only()"
        )


class Entry(NamedTuple):
    """One entry of the log: the event ``(game_id, seq)`` whose chain hash was ``hash``."""

    leaf_index: int
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


class StoredCheckpoint(NamedTuple):
    tree_size: int
    key_id: str
    root_hash: str
    note: str


#: the columns of each table, in the order :meth:`EvidenceTables.dump` gives its rows
COLUMNS = {
    "evidence_keys": "key_id, name, public_key, created_at",
    "evidence_log": "leaf_index, game_id, seq, hash, logged_at",
    "evidence_checkpoints": "tree_size, key_id, root_hash, note, signed_at",
}
_ORDER = {"evidence_keys": "created_at, key_id", "evidence_log": "leaf_index", "evidence_checkpoints": "tree_size, key_id"}


class EvidenceTables(Protocol):
    """The three tables as a store keeps them (:meth:`~.base.EventStore.evidence`)."""

    def key_texts(self) -> list[str]:
        """The public keys' text, oldest first."""
        ...

    def record_key(self, key: VerifierKey, at: str) -> None:
        """Record a public key (once)."""
        ...

    def entries(self, limit: int | None = None) -> list[Entry]:
        """The log's entries in order (the first ``limit`` of them)."""
        ...

    def size(self) -> int: ...

    def append_new_events(self, at: str) -> int:
        """Append an entry for every stored event not logged yet (each game's events after
        its highest logged seq), in the order they were recorded; returns how many."""
        ...

    def record_checkpoint(self, cp: StoredCheckpoint, at: str) -> None: ...

    def latest_checkpoint(self) -> StoredCheckpoint | None: ...

    def game_entry(self, game_id: str, below: int) -> Entry | None:
        """The entry of the game's last event among the first ``below`` entries."""
        ...

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of each table (:data:`COLUMNS`), for a backup."""
        ...

    def load(self, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        """Add the rows :meth:`dump` gave (into empty tables)."""
        ...


def known_keys(log: EvidenceTables) -> list[VerifierKey]:
    """The public keys the store has signed with, oldest first."""
    keys = []
    for text in log.key_texts():
        try:
            keys.append(VerifierKey.parse(text))
        except MalformedEvidence as exc:
            raise StoreError(f"the store's evidence_keys table holds a damaged public key: {exc}") from None
    return keys


class SqlEvidenceTables:
    """The tables in a SQL store, through its dialect adapter."""

    def __init__(self, sql: Statements):
        self._sql = sql

    def _present(self) -> bool:
        # a store of an older schema opened read-only may not have them
        return self._sql.has_tables(TABLES)

    def key_texts(self) -> list[str]:
        if not self._present():
            return []
        return [r[0] for r in self._sql.execute("SELECT public_key FROM evidence_keys ORDER BY created_at, key_id")]

    def record_key(self, key: VerifierKey, at: str) -> None:
        self._sql.execute(
            "INSERT INTO evidence_keys (key_id, name, public_key, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (f"{key.id:08x}", key.name, key.text(), at),
        )

    def entries(self, limit: int | None = None) -> list[Entry]:
        if not self._present():
            return []
        query = "SELECT leaf_index, game_id, seq, hash FROM evidence_log"
        if limit is None:
            return [Entry(*r) for r in self._sql.execute(query + " ORDER BY leaf_index")]
        return [Entry(*r) for r in self._sql.execute(query + " WHERE leaf_index < ? ORDER BY leaf_index", (limit,))]

    def size(self) -> int:
        if not self._present():
            return 0
        return int(self._sql.execute("SELECT count(*) FROM evidence_log").fetchone()[0])

    def append_new_events(self, at: str) -> int:
        sql = self._sql
        start = sql.execute("SELECT coalesce(max(leaf_index) + 1, 0) FROM evidence_log").fetchone()[0]
        rows = sql.execute(
            """
            SELECT e.game_id, e.seq, e.hash FROM events AS e
            LEFT JOIN (SELECT game_id, max(seq) AS top FROM evidence_log GROUP BY game_id) AS l ON l.game_id = e.game_id
            WHERE e.seq > coalesce(l.top, 0)
            ORDER BY e.position
            """
        ).fetchall()
        sql.executemany(
            "INSERT INTO evidence_log (leaf_index, game_id, seq, hash, logged_at) VALUES (?, ?, ?, ?, ?)",
            ((start + i, gid, seq, h, at) for i, (gid, seq, h) in enumerate(rows)),
        )
        return len(rows)

    def record_checkpoint(self, cp: StoredCheckpoint, at: str) -> None:
        self._sql.execute(
            "INSERT INTO evidence_checkpoints (tree_size, key_id, root_hash, note, signed_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (*cp, at),
        )

    def latest_checkpoint(self) -> StoredCheckpoint | None:
        if not self._present():
            return None
        row = self._sql.execute(
            "SELECT tree_size, key_id, root_hash, note FROM evidence_checkpoints ORDER BY tree_size DESC, signed_at DESC LIMIT 1"
        ).fetchone()
        return StoredCheckpoint(*row) if row else None

    def game_entry(self, game_id: str, below: int) -> Entry | None:
        row = self._sql.execute(
            "SELECT leaf_index, game_id, seq, hash FROM evidence_log WHERE game_id = ? AND leaf_index < ? ORDER BY seq DESC LIMIT 1",
            (game_id, below),
        ).fetchone()
        return Entry(*row) if row else None

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        present = self._present()
        return {
            table: [tuple(r) for r in self._sql.execute(f"SELECT {columns} FROM {table} ORDER BY {_ORDER[table]}")] if present else []
            for table, columns in COLUMNS.items()
        }

    def load(self, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        for table, columns in COLUMNS.items():
            marks = ", ".join("?" for _ in columns.split(","))
            self._sql.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows.get(table, []))
