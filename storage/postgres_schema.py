"""The PostgreSQL store's schema and its migrations, versioned as the SQLite store's are.

The tables live in the connection's current schema (``search_path``; ``public``
by default).  ``tonk_migrations`` records every applied step by name; the
schema version is their number.  As for SQLite: append a new step, never edit
or reorder an applied one; each runs in the transaction that records it, under
an advisory lock, so two processes opening a new store together apply it once.
A database whose ``events`` table was not made by tonk, or that has a newer
schema, is refused and left untouched.

The tables mirror SQLite's: ``events`` (the same columns, ``NOT NULL``,
primary key ``(game_id, seq)``, text compared byte-wise with ``COLLATE "C"``
so every ordering equals SQLite's), append-only through triggers refusing
UPDATE, DELETE and TRUNCATE; ``games`` (the projection); and
``event_position``, the one-row counter of the global order, which every
append locks first (so appends are serialised, and commit order is position
order: see :mod:`.feed`); the evidence log's tables (:mod:`.evidence_log`);
``tonk_flush``, what a WAL flush writes (``PostgresEventStore.sync_wal``); and the function
``tonk_append``, an append in one statement (``storage/postgres_append.py``).
"""

from __future__ import annotations

from typing import Callable

from .errors import StoreError
from .evidence_log import create_tables_postgres as create_evidence_tables

ADVISORY_LOCK = 0x746F6E6B  # "tonk"
NOTIFY_CHANNEL = "tonk_events"


def _events_and_games(cur) -> None:
    cur.execute(
        """
        CREATE TABLE events (
            game_id     TEXT COLLATE "C" NOT NULL,
            seq         INTEGER NOT NULL CHECK (seq >= 1),
            type        TEXT COLLATE "C" NOT NULL,
            payload     TEXT COLLATE "C" NOT NULL,
            recorded_at TEXT COLLATE "C" NOT NULL,
            hash        TEXT COLLATE "C" NOT NULL CHECK (length(hash) = 64),
            prev_hash   TEXT COLLATE "C" NOT NULL CHECK (length(prev_hash) = 64),
            command_id  TEXT COLLATE "C" NOT NULL DEFAULT '',
            position    BIGINT  NOT NULL CHECK (position >= 1) UNIQUE,
            PRIMARY KEY (game_id, seq)
        )
        """
    )
    cur.execute("CREATE INDEX events_command ON events (game_id, command_id) WHERE command_id <> ''")
    cur.execute(
        """
        CREATE FUNCTION tonk_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'events are append-only: % is refused', TG_OP;
        END
        $$
        """
    )
    cur.execute(
        "CREATE TRIGGER events_no_update BEFORE UPDATE OR DELETE ON events "
        "FOR EACH ROW EXECUTE FUNCTION tonk_events_append_only()"
    )
    cur.execute(
        "CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events "
        "FOR EACH STATEMENT EXECUTE FUNCTION tonk_events_append_only()"
    )
    cur.execute(
        """
        CREATE TABLE games (
            game_id    TEXT COLLATE "C" PRIMARY KEY,
            started_at TEXT COLLATE "C" NOT NULL,
            ended_at   TEXT COLLATE "C",
            players    TEXT NOT NULL,
            variants   TEXT NOT NULL,
            options    TEXT NOT NULL,
            hands      INTEGER NOT NULL,
            net        TEXT NOT NULL,
            status     TEXT COLLATE "C" NOT NULL,
            events     INTEGER NOT NULL
        )
        """
    )
    cur.execute(
        """
        CREATE TABLE event_position (
            one  BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
            last BIGINT  NOT NULL CHECK (last >= 0)
        )
        """
    )
    cur.execute("INSERT INTO event_position (one, last) VALUES (TRUE, 0)")


# The migrations in order: append, never edit or reorder an applied one.
def _chain_version(cur) -> None:
    """Each event's chain version (tonk.storage.chain), as in the SQLite store: 1 for the
    rows already stored, 2 for every append since."""
    cur.execute("ALTER TABLE events ADD COLUMN chain INTEGER NOT NULL DEFAULT 1")


def _flush(cur) -> None:
    """``tonk_flush``: what a WAL flush writes (``PostgresEventStore.sync_wal``), one row
    per server process, keyed by its pid; it holds nothing else."""
    cur.execute("CREATE TABLE tonk_flush (slot INTEGER PRIMARY KEY, n BIGINT NOT NULL)")


def _append_function(cur) -> None:
    """``tonk_append``: an append in one statement, for a store that knows the game's last row
    (``storage/postgres_append.py``)."""
    from .postgres_append import create_append_function

    create_append_function(cur)


STEPS: tuple[tuple[str, Callable], ...] = (
    ("0001_events_games_position", _events_and_games),
    ("0002_chain_version", _chain_version),
    ("0003_evidence", create_evidence_tables),
    ("0004_flush", _flush),
    ("0005_append_function", _append_function),
)

MIGRATION_NAMES = tuple(name for name, _ in STEPS)
SCHEMA_VERSION = len(STEPS)


def applied(cur, where: str) -> list[str] | None:
    """The names of the applied migrations, or ``None`` when the schema holds no tonk store
    (raising :class:`StoreError`, naming the store ``where``, for one holding another
    application's ``events``)."""
    # pg_class read through the statement's own snapshot (not to_regclass, whose catalog
    # cache may not yet show a table another process created while we waited for the lock)
    cur.execute(
        "SELECT bool_or(c.relname = 'tonk_migrations'), bool_or(c.relname = 'events') FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relname IN ('tonk_migrations', 'events')"
    )
    has_migrations, has_events = (bool(x) for x in cur.fetchone())
    if not has_migrations:
        if has_events:
            raise StoreError(f"{where} has an events table that tonk did not make (no tonk_migrations): not a tonk store")
        return None
    cur.execute("SELECT name FROM tonk_migrations ORDER BY name")
    return [r[0] for r in cur.fetchall()]


def check_known(names: list[str], where: str) -> None:
    unknown = sorted(set(names) - set(MIGRATION_NAMES))
    if unknown:
        raise StoreError(f"{where} has schema version {len(names)} with migrations this tonk does not know ({', '.join(unknown)}); upgrade tonk to open it")


def migrate(conn, where: str) -> int:
    """Apply the pending migrations (in one transaction, under the advisory lock);
    returns the schema version."""
    with conn.transaction():
        cur = conn.cursor()
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK,))
        names = applied(cur, where)
        if names is None:
            cur.execute("CREATE TABLE tonk_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            names = []
        check_known(names, where)
        for name, step in STEPS:
            if name not in names:
                step(cur)
                cur.execute("INSERT INTO tonk_migrations (name) VALUES (%s)", (name,))
    return SCHEMA_VERSION
