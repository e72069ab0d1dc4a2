"""The store's schema, its migrations, and the check of a file before it is opened.

The schema is created and upgraded through sqlite-utils migrations (the
``tonk`` set, recorded in ``_sqlite_migrations``).  The SQLite header marks
the file as a tonk store: ``PRAGMA application_id`` is :data:`APPLICATION_ID`
and ``PRAGMA user_version`` the schema version (the number of migrations
applied).  A file is inspected through a read-only connection before it is
opened for writing, so a file that is refused is never modified.

Schema-evolution rules for migrations: append a new function to the list,
never edit or reorder an applied one; each runs in the transaction that
records it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote

from sqlite_utils import Database, Migrations

from . import sqlite_layout as layout
from .errors import StoreError
from .evidence_log import create_tables as _evidence_tables

APPLICATION_ID = 0x746F6E6B  # "tonk"
SQLITE_MAGIC = b"SQLite format 3\x00"

#: the page size of a new store (an existing store keeps its own): small pages, so that a
#: commit rewrites few bytes of each b-tree it touches (issue 24)
PAGE_SIZE = 1024
#: the page size of a new store made by a bulk writer (``tonk simulate``), which commits whole
#: games, not single commands: fewer, larger pages cost less to write and read back (a store
#: keeps the page size it was made with, whoever writes to it later)
BULK_PAGE_SIZE = 4096
#: how much WAL a bulk writer lets grow before SQLite copies it into the file (a checkpoint,
#: with two fsyncs; SQLite's default is 1,000 pages): fewer, larger checkpoints
BULK_CHECKPOINT_BYTES = 64 * 1024 * 1024


def _append_only(table: str) -> dict[str, str]:
    return {
        "events_no_update": (
            f"CREATE TRIGGER events_no_update BEFORE UPDATE ON {table} "
            "BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE is refused'); END"
        ),
        "events_no_delete": (
            f"CREATE TRIGGER events_no_delete BEFORE DELETE ON {table} "
            "BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE is refused'); END"
        ),
    }


#: the append-only triggers on the events' table (``event_rows`` since schema 5), by name, as
#: created (``tonk verify`` checks they are there, unchanged)
TRIGGERS = _append_only("event_rows")
#: the same on schema 4's ``events`` table (what migrations 1 to 4 create; a store of an older
#: schema opened for reading only has them)
LEGACY_TRIGGERS = _append_only("events")


def is_lean(conn: sqlite3.Connection) -> bool:
    """Whether the store's events are in the lean layout of schema 5 (:mod:`.sqlite_layout`)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'event_rows'").fetchone() is not None


def trigger_problems(conn: sqlite3.Connection) -> list[str]:
    """What is wrong with the append-only triggers: each one missing or changed."""
    table, triggers = ("event_rows", TRIGGERS) if is_lean(conn) else ("events", LEGACY_TRIGGERS)
    found = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", (table,)).fetchall())
    problems = []
    for name, sql in triggers.items():
        if name not in found:
            problems.append(f"the append-only trigger {name} is missing: events can be changed in place")
        elif " ".join(found[name].split()) != " ".join(sql.split()):
            problems.append(f"the append-only trigger {name} is not the one tonk created: {found[name]!r}")
    return problems


def _events_and_games(db: Database) -> None:
    db.execute(
        """
        CREATE TABLE events (
            game_id     TEXT    NOT NULL,
            seq         INTEGER NOT NULL CHECK (seq >= 1),
            type        TEXT    NOT NULL,
            payload     TEXT    NOT NULL,
            recorded_at TEXT    NOT NULL,
            hash        TEXT    NOT NULL CHECK (length(hash) = 64),
            prev_hash   TEXT    NOT NULL CHECK (length(prev_hash) = 64),
            command_id  TEXT    NOT NULL DEFAULT '',
            PRIMARY KEY (game_id, seq)
        ) STRICT
        """
    )
    db.execute("CREATE INDEX events_command ON events (game_id, command_id) WHERE command_id <> ''")
    for sql in LEGACY_TRIGGERS.values():
        db.execute(sql)
    db.execute(
        """
        CREATE TABLE games (
            game_id    TEXT    PRIMARY KEY NOT NULL,
            started_at TEXT    NOT NULL,
            ended_at   TEXT,
            players    TEXT    NOT NULL,
            variants   TEXT    NOT NULL,
            options    TEXT    NOT NULL,
            hands      INTEGER NOT NULL,
            net        TEXT    NOT NULL,
            status     TEXT    NOT NULL,
            events     INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID
        """
    )
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def _global_position(db: Database) -> None:
    """Every event gets its place in the store's global reading order (``position``,
    1, 2, 3, ... in commit order: appends are serialised by the write lock), for
    subscribers that follow every game at once.  Events stored before keep their
    insertion order (their rowid)."""
    db.execute("ALTER TABLE events ADD COLUMN position INTEGER NOT NULL DEFAULT 0")
    db.execute("DROP TRIGGER events_no_update")
    db.execute("UPDATE events SET position = rowid")
    db.execute(
        "CREATE TRIGGER events_position BEFORE INSERT ON events WHEN NEW.position < 1 "
        "BEGIN SELECT RAISE(ABORT, 'an event needs its global position'); END"
    )
    db.execute(LEGACY_TRIGGERS["events_no_update"])
    db.execute("CREATE UNIQUE INDEX events_position ON events (position)")


def _chain_version(db: Database) -> None:
    """Each event's chain version (tonk.storage.chain): 1 for the rows already stored, whose
    hash covers ``prev_hash`` and the payload; every append since writes 2, which covers
    ``recorded_at`` and ``command_id`` too.  No CHECK: a version this tonk does not know is
    reported by ``tonk verify``, and a later version needs no table rebuild."""
    db.execute("ALTER TABLE events ADD COLUMN chain INTEGER NOT NULL DEFAULT 1")


def _lean_events(db: Database) -> None:
    """The events move to the lean layout (:mod:`.sqlite_layout`): ``event_rows``, keyed by
    the position (the rowid: no second copy of the row), the game as a number, hashes as
    bytes, ``prev_hash`` and the repeats of one append's time and command id left out; every
    value comes back exactly.  ``events`` becomes a view showing the rows in schema 4's
    columns; ``games`` a rowid table (its rows fit a small page)."""
    conn = db.conn
    conn.create_function("tonk_at", 1, layout.at_value, deterministic=True)
    conn.create_function("tonk_hash", 1, layout.hash_value, deterministic=True)
    conn.create_function("tonk_pack", 1, layout.pack_text, deterministic=True)
    conn.execute(layout.TABLES[0])
    conn.execute("INSERT INTO game_numbers (game_id) SELECT game_id FROM events GROUP BY game_id ORDER BY min(position), game_id")
    conn.execute(layout.TABLES[1])
    conn.execute(layout.FROM_SCHEMA_4)
    conn.execute("DROP TABLE events")
    conn.execute(layout.VIEW)
    for sql in (*layout.TABLES[2:], *TRIGGERS.values(), *layout.VIEW_TRIGGERS):
        conn.execute(sql)
    conn.execute("ALTER TABLE games RENAME TO games_4")
    conn.execute(layout.GAMES)
    conn.execute("INSERT INTO games SELECT * FROM games_4 ORDER BY started_at, game_id")
    conn.execute("DROP TABLE games_4")


# The migrations in order: append, never edit or reorder an applied one.
STEPS = (
    ("0001_events_games", _events_and_games),
    ("0002_evidence", _evidence_tables),
    ("0003_global_position", _global_position),
    ("0004_chain_version", _chain_version),
    ("0005_lean_events", _lean_events),
)

migrations = Migrations("tonk")
for _name, _fn in STEPS:
    migrations(name=_name)(_fn)

MIGRATION_NAMES = tuple(name for name, _ in STEPS)
SCHEMA_VERSION = len(STEPS)


def inspect_file(path: Path, *, integrity: bool = True) -> int | None:
    """The schema version of an existing tonk store at ``path``, or ``None`` for a file that
    holds nothing yet (empty, or a SQLite database without a single table).

    Raises :class:`StoreError` for a file that is not a tonk store, has a newer schema,
    or is corrupt; the file is only read.
    """
    if path.is_dir():
        raise StoreError(f"{path} is a directory, not a tonk store")
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not head:
        return None
    if not head.startswith(SQLITE_MAGIC) or len(head) < 100:
        raise StoreError(f"{path} is not a tonk store (not a SQLite database)")
    # Read-only; and when no journal or WAL is beside the file, immutable, so that the
    # inspection does not even create the -wal/-shm files of a WAL-mode database.
    side = any(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-shm", "-journal"))
    uri = "file:" + quote(str(path.resolve())) + ("?mode=ro" if side else "?mode=ro&immutable=1")
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open {path}: {exc}") from None
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")]
        if app_id != APPLICATION_ID:
            if not names and app_id == 0 and version == 0:
                return None
            what = f"tables: {', '.join(sorted(names))}" if names else "another application's file"
            raise StoreError(f"{path} is a SQLite database but not a tonk store ({what})")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{path} has schema version {version}, newer than this tonk's ({SCHEMA_VERSION}); upgrade tonk to open it"
            )
        if "_sqlite_migrations" in names:
            applied = {r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations WHERE migration_set = 'tonk'")}
            unknown = sorted(applied - set(MIGRATION_NAMES))
            if unknown:
                raise StoreError(f"{path} has migrations this tonk does not know ({', '.join(unknown)}); upgrade tonk to open it")
        if integrity:
            problems = [r[0] for r in conn.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise StoreError(f"{path} is corrupt: {'; '.join(problems)}")
        return version
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is corrupt or not a tonk store: {exc}") from None
    finally:
        conn.close()


def migrate(db: Database, path: Path) -> None:
    """Apply pending migrations under the write lock (another process may be doing the same)."""
    conn = db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(f"{path} has schema version {version}, newer than this tonk's ({SCHEMA_VERSION})")
        if version < SCHEMA_VERSION:
            migrations.apply(db)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
