"""The event store on a PostgreSQL server: the SQLite store's contract, for several service
nodes sharing one database.

>>> store = PostgresEventStore.open("postgresql://tonk@db.example/tonk")   # doctest: +SKIP
>>> store.append(game.game_id, game.events, expected_version=0)            # doctest: +SKIP

Driver: psycopg 3 with psycopg-pool (the ``postgres`` extra), imported when a
store is opened, so the core install does not need them.  The store holds a
small connection pool; every operation borrows a connection (a streaming read
holds one until it is exhausted or closed), so a store may be shared by the
threads of a service.

It is the SQLite store's subclass: what does not speak SQL (the rules of what
may be appended, the one-pass verified scan audit uses, decoding through the
format's upcast, the games projection's fold) is the same code, and every
method that speaks SQL is written here for PostgreSQL.  The same contract test
suite runs against both (``tests/storage/contract/``).

Appends are serialised by the one-row ``event_position`` counter, locked first
in the append's transaction: the expected-version and command-id checks then
see every append committed before, exactly as under SQLite's write lock, and
positions are handed out in commit order (no reader of the global order skips
an event that committed late).  Each append sends ``NOTIFY tonk_events`` (the
new last position) on commit: a wake-up hint for followers, never the truth.
"""

from __future__ import annotations

import itertools
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Sequence
from urllib.parse import urlsplit, urlunsplit

import msgspec

from ..core.events import Event, decode
from . import projection
from .chain import CHECK_COLUMNS, ChainFinding, check_chain
from .codec import Decoder, decode_error, first_event
from .errors import StoreError, UnknownGame
from .feed import READ_ALL_LIMIT, FeedDecoder, Positioned
from .statements import PostgresStatements, Statements
from .postgres_schema import NOTIFY_CHANNEL, SCHEMA_VERSION, applied, check_known, migrate
from .store import EventStore, Record, _decode_rows, _record, checked_append, rows_after

if TYPE_CHECKING:
    import psycopg

URL_SCHEMES = ("postgresql://", "postgres://")
POOL_SIZE = 8
CONNECT_TIMEOUT_S = 10

_INSERT = (
    "INSERT INTO events (game_id, seq, type, payload, recorded_at, hash, prev_hash, command_id, position, chain) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_LAST = "SELECT seq, hash FROM events WHERE game_id = %s ORDER BY seq DESC LIMIT 1"
_LAST_TYPE = "SELECT seq, hash, type FROM events WHERE game_id = %s ORDER BY seq DESC LIMIT 1"
_BY_COMMAND = "SELECT 1 FROM events WHERE game_id = %s AND command_id = %s LIMIT 1"
_LOCK_POSITION = "SELECT last FROM event_position FOR UPDATE"
_SET_POSITION = "UPDATE event_position SET last = %s"
_NOTIFY = "SELECT pg_notify(%s, %s)"
_RECORD_COLUMNS = "game_id, seq, type, recorded_at, hash, prev_hash, command_id, chain, payload"
_GAMES_SELECT = f"SELECT {', '.join(projection.COLUMNS)} FROM games"
_GAMES_UPSERT = (
    f"INSERT INTO games ({', '.join(projection.COLUMNS)}) VALUES ({', '.join('%s' for _ in projection.COLUMNS)}) "
    f"ON CONFLICT (game_id) DO UPDATE SET {', '.join(f'{c} = EXCLUDED.{c}' for c in projection.COLUMNS[1:])}"
)


def is_url(target: object) -> bool:
    """True for a ``postgresql://`` (or ``postgres://``) URL."""
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def redact(url: str) -> str:
    """The URL without its password (for messages: a password is never printed)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def _driver():
    try:
        import psycopg
        import psycopg_pool
    except ImportError:
        raise StoreError("a postgresql:// store needs psycopg 3 and psycopg-pool: pip install 'tonk[postgres]'") from None
    return psycopg, psycopg_pool


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class PostgresEventStore(EventStore):
    """An open PostgreSQL store.  Use :meth:`open`; close it, or use it as a context manager."""

    def __init__(self, pool: Any, url: str, read_only: bool = False):
        self._pool = pool
        self.url = url
        self.path = redact(url)  # what messages name (the SQLite store names its file)
        self.read_only = read_only
        self._listener: "psycopg.Connection | None" = None
        self._psycopg = _driver()[0]
        self._pinned = threading.local()  # the connection of this thread's snapshot, if any
        self._cursor_names = itertools.count(1)

    @property
    def db(self):
        """The SQLite store's sqlite-utils database; a PostgreSQL store has none."""
        raise StoreError(f"{self.path} is a PostgreSQL store: it has no SQLite database")

    # --- opening --------------------------------------------------------------------
    @classmethod
    def open(cls, url: str, create: bool = True, *, read_only: bool = False, **_ignored: Any) -> "PostgresEventStore":  # type: ignore[override]
        """Open the store at ``url``, creating its tables (``create=True``) in a database
        that holds none yet.  A database holding another application's ``events``, or a
        newer schema, is refused with :class:`StoreError` and left untouched.
        ``read_only``: an existing store, read in read-only transactions, never migrated
        (an older schema reads too)."""
        psycopg, psycopg_pool = _driver()
        where = redact(url)
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
                names = applied(conn.cursor())
                if names is None and (not create or read_only):
                    raise StoreError(f"no tonk store at {where}")
                if names is not None:
                    check_known(names, where)
                if not read_only and (names is None or len(names) < SCHEMA_VERSION):
                    migrate(conn, where)
        except psycopg.Error as exc:
            raise StoreError(f"cannot open {where}: {_first_line(exc)}") from None

        def configure(conn: Any) -> None:
            if read_only:
                conn.execute("SET default_transaction_read_only = on")

        pool = psycopg_pool.ConnectionPool(
            url, min_size=1, max_size=POOL_SIZE, kwargs={"autocommit": True}, configure=configure, open=False, name="tonk"
        )
        try:
            pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        except psycopg_pool.PoolTimeout:
            pool.close()
            raise StoreError(f"cannot open {where}: no connection within {CONNECT_TIMEOUT_S} s") from None
        return cls(pool, url, read_only)

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        self._pool.close()

    def __repr__(self) -> str:
        return f"PostgresEventStore({self.path!r})"

    # --- connections and transactions -----------------------------------------------
    @contextmanager
    def _connection(self) -> Iterator["psycopg.Connection"]:
        """A connection for one read: this thread's snapshot's, or one from the pool."""
        pinned = getattr(self._pinned, "conn", None)
        if pinned is not None:
            with self._reading():
                yield pinned
            return
        with self._reading(), self._pool.connection() as conn:
            yield conn

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Read in one transaction: every read of this thread inside sees the store as of
        one moment (REPEATABLE READ on one pinned connection)."""
        if getattr(self._pinned, "conn", None) is not None:
            yield
            return
        with self._reading(), self._pool.connection() as conn:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                self._pinned.conn = conn
                try:
                    yield
                finally:
                    self._pinned.conn = None

    @contextmanager
    def _write(self) -> Iterator["psycopg.Connection"]:  # type: ignore[override]  # each back end's transaction hands out its own connection
        """One write transaction holding the store's append lock (the position counter)."""
        if self.read_only:
            raise StoreError(f"{self.path} is open for reading only: nothing can be written")
        with self._locked() as (conn, _):
            yield conn

    @contextmanager
    def _locked(self) -> Iterator[tuple["psycopg.Connection", int]]:
        """:meth:`_write`, also giving the last position handed out (read with the lock)."""
        psycopg = self._psycopg
        if self.read_only:
            raise StoreError(f"{self.path} is open for reading only: nothing can be written")
        try:
            with self._pool.connection() as conn, conn.transaction():
                yield conn, conn.execute(_LOCK_POSITION).fetchone()[0]
        except psycopg.Error as exc:
            raise StoreError(f"{self.path}: the write failed and was rolled back: nothing of this write is stored ({_first_line(exc)})") from None

    @contextmanager
    def statements(self) -> Iterator[Statements]:
        """Reads of the side tables (the evidence log), ``?`` parameters."""
        with self._connection() as conn:
            yield PostgresStatements(conn)

    @contextmanager
    def statements_write(self) -> Iterator[Statements]:
        """One write transaction on the side tables holding the append lock (the position
        counter): no append lands until it ends."""
        with self._write() as conn:
            yield PostgresStatements(conn)

    @contextmanager
    def _reading(self) -> Iterator[None]:
        try:
            yield
        except self._psycopg.Error as exc:
            raise StoreError(f"{self.path}: cannot read the store ({_first_line(exc)})") from None

    # --- writing --------------------------------------------------------------------
    def append(self, game_id: str, events: Sequence[Event], expected_version: int, command_id: str | None = None) -> int:
        """See :meth:`EventStore.append`: the same contract, on PostgreSQL."""
        events, encoded, cmd = checked_append(game_id, events, expected_version, command_id)
        with self._locked() as (conn, position):
            cur = conn.cursor()
            if cmd and cur.execute(_BY_COMMAND, (game_id, cmd)).fetchone():
                return cur.execute(_LAST, (game_id,)).fetchone()[0]
            last = cur.execute(_LAST_TYPE, (game_id,)).fetchone()
            actual, rows, at = rows_after(game_id, events, encoded, cmd, expected_version, last, lambda: position)
            if not rows:
                return actual
            seq, position = actual + len(rows), position + len(rows)
            found = None if actual == 0 else cur.execute(_GAMES_SELECT + " WHERE game_id = %s", (game_id,)).fetchone()
            with conn.pipeline():  # the writes go out together: one round trip, not one each
                cur.executemany(_INSERT, rows)
                self._project(cur, game_id, events, at, found)
                cur.execute(_SET_POSITION, (position,))
                cur.execute(_NOTIFY, (NOTIFY_CHANNEL, str(position)))
            return seq

    def _insert_records(  # type: ignore[override]
        self, conn: "psycopg.Connection", game_id: str, records: Sequence[Record], events: Sequence[Event]
    ) -> None:
        """Write already verified records of a game absent from the store (import), inside
        a transaction of :meth:`_write`."""
        cur = conn.cursor()
        if cur.execute(_LAST, (game_id,)).fetchone():
            raise StoreError(f"game {game_id} was stored by another writer during the import")
        start = cur.execute("SELECT last FROM event_position").fetchone()[0]
        cur.executemany(
            _INSERT,
            [
                (r.game_id, r.seq, r.type, bytes(r.payload).decode("utf-8"), r.recorded_at, r.hash, r.prev_hash, r.command_id, start + i, r.chain)
                for i, r in enumerate(records, 1)
            ],
        )
        self._project(cur, game_id, events, [r.recorded_at for r in records], None)
        cur.execute(_SET_POSITION, (start + len(records),))
        cur.execute(_NOTIFY, (NOTIFY_CHANNEL, str(start + len(records))))

    def _project(self, cur, game_id: str, events: Sequence[Event], recorded_at, found: tuple | None) -> None:
        """:func:`projection.update` on PostgreSQL: the same fold, this back end's SQL
        (``found``: the game's row before the append, ``None`` for a new game)."""
        summary = projection.GameSummary.from_row(found) if found else projection.GameSummary(game_id)
        if isinstance(recorded_at, str):
            summary.apply_many(list(events), recorded_at)
        else:
            for e, at in zip(events, recorded_at):
                summary.apply(e, at)
        cur.execute(_GAMES_UPSERT, summary.row())

    # --- reading --------------------------------------------------------------------
    def version(self, game_id: str) -> int:
        with self._connection() as conn:
            return conn.execute("SELECT max(seq) FROM events WHERE game_id = %s", (game_id,)).fetchone()[0] or 0

    def read(self, game_id: str) -> list[Event]:
        with self._connection() as conn:
            rows = conn.execute("SELECT seq, payload FROM events WHERE game_id = %s ORDER BY seq", (game_id,)).fetchall()
        if not rows:
            raise UnknownGame(game_id)
        return _decode_rows(game_id, rows)

    @contextmanager
    def _scan(self, sql: str, args: tuple = ()) -> Iterator[Any]:
        """A server-side cursor over ``sql`` (rows fetched in batches, not all at once)."""
        with self._connection() as conn, conn.transaction():
            with conn.cursor(name=f"tonk_scan_{next(self._cursor_names)}") as cur:
                cur.itersize = 2000
                cur.execute(sql, args)
                yield cur

    def iter_events(self, game_id: str) -> Iterator[tuple[int, Event]]:
        if not self.version(game_id):
            raise UnknownGame(game_id)
        return self._iter_events(game_id)

    def _iter_events(self, game_id: str) -> Iterator[tuple[int, Event]]:
        dec: Decoder | None = None
        with self._scan("SELECT seq, payload FROM events WHERE game_id = %s ORDER BY seq", (game_id,)) as cur:
            for seq, payload in cur:
                try:
                    if dec is None:
                        event, dec = first_event(payload)
                    else:
                        event = dec(payload)
                except (msgspec.DecodeError, msgspec.ValidationError, StoreError) as exc:
                    raise decode_error(game_id, seq, exc) from None
                yield seq, event

    def game_ids(self) -> list[str]:
        with self._connection() as conn:
            return [r[0] for r in conn.execute("SELECT DISTINCT game_id FROM events ORDER BY game_id")]

    def game_count(self) -> int:
        with self._connection() as conn:
            return conn.execute("SELECT count(DISTINCT game_id) FROM events").fetchone()[0]

    def iter_games(self) -> Iterator[tuple[str, list[Event]]]:
        current: str | None = None
        rows: list[tuple[int, str]] = []
        with self._scan("SELECT game_id, seq, payload FROM events ORDER BY game_id, seq") as cur:
            for game_id, seq, payload in cur:
                if game_id != current:
                    if rows:
                        yield current, _decode_rows(current, rows)
                    current, rows = game_id, []
                rows.append((seq, payload))
        if rows:
            yield current, _decode_rows(current, rows)

    def iter_verified_games(self, game_ids: Sequence[str] | None = None):
        """See :meth:`EventStore.iter_verified_games`: the same one-pass scan (shared code)."""
        sql = "SELECT game_id, seq, type, payload, hash, prev_hash, chain, recorded_at, command_id FROM events"
        if game_ids is None:
            with self._scan(sql + " ORDER BY game_id, seq") as cur:
                yield from self._verified(_payload_bytes(cur))
            return
        for gid in game_ids:
            found = False
            with self._scan(sql + " WHERE game_id = %s ORDER BY seq", (gid,)) as cur:
                for game in self._verified(_payload_bytes(cur)):
                    found = True
                    yield game
            if not found:
                raise UnknownGame(gid)

    def records(self, game_id: str) -> Iterator[Record]:
        if not self.version(game_id):
            raise UnknownGame(game_id)
        return self._records_of(game_id)

    def _records_of(self, game_id: str) -> Iterator[Record]:
        with self._scan(f"SELECT {_RECORD_COLUMNS} FROM events WHERE game_id = %s ORDER BY seq", (game_id,)) as cur:
            for row in cur:
                yield _record(row)

    def last_hash(self, game_id: str) -> str | None:
        with self._connection() as conn:
            row = conn.execute(_LAST, (game_id,)).fetchone()
        return row[1] if row else None

    def hashes_after(self, game_id: str, seq: int) -> list[str]:
        with self._connection() as conn:
            return [r[0] for r in conn.execute("SELECT hash FROM events WHERE game_id = %s AND seq > %s ORDER BY seq", (game_id, seq))]

    def games(self, player: str | None = None, variant: str | None = None) -> list[dict[str, Any]]:
        sql = _GAMES_SELECT
        where, args = [], []
        if player is not None:
            where.append("players::jsonb ? %s")
            args.append(player)
        if variant is not None:
            where.append("variants::jsonb ? %s")
            args.append(variant)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY started_at, game_id"
        with self._connection() as conn:
            return [projection.row_to_dict(r) for r in conn.execute(sql, args)]

    # --- the global order (subscribers) ----------------------------------------------
    def last_position(self) -> int:
        with self._connection() as conn:
            return conn.execute("SELECT coalesce(max(position), 0) FROM events").fetchone()[0]

    def read_all(self, after: int = 0, limit: int = READ_ALL_LIMIT) -> list[Positioned]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT position, game_id, seq, payload FROM events WHERE position > %s ORDER BY position LIMIT %s", (after, limit)
            ).fetchall()

            def first_payload(game_id: str) -> str:
                return conn.execute("SELECT payload FROM events WHERE game_id = %s AND seq = 1", (game_id,)).fetchone()[0]

            feed = FeedDecoder(first_payload)
            return [feed.decode(*row) for row in rows]

    def wait_for_append(self, timeout: float) -> bool:
        """Wait for a ``NOTIFY`` of a new append, at most ``timeout`` seconds; True when one
        came.  A hint only: a notification sent while the listener was (re)connecting is
        lost, so callers read the global order after every wait, notified or not."""
        psycopg = self._psycopg
        try:
            if self._listener is None or self._listener.closed:
                self._listener = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
                self._listener.execute(f"LISTEN {NOTIFY_CHANNEL}")
            return any(True for _ in self._listener.notifies(timeout=timeout, stop_after=1))
        except psycopg.Error:
            if self._listener is not None:
                self._listener.close()
            self._listener = None
            return False

    def checked_games(self, player: str | None = None, variant: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
        with self.snapshot(), self._connection() as conn:
            return projection.derived_rows(conn, player, variant)

    def backup(self, dest: Any) -> None:
        """A new SQLite file ``dest`` holding every game, the evidence log and the served
        tables' records (:func:`~.copy.backup_to_file`)."""
        from .copy import backup_to_file

        backup_to_file(self, dest)

    # --- integrity ------------------------------------------------------------------
    def projection_findings(self) -> list[projection.ProjectionFinding]:
        with self.snapshot(), self._connection() as conn:
            return projection.findings(conn)

    def trigger_problems(self) -> list[str]:
        """The append-only triggers that are missing, disabled or not calling tonk's refusal."""
        with self._connection() as conn:
            found = dict(
                conn.execute(
                    "SELECT t.tgname, t.tgenabled <> 'D' AND p.proname = 'tonk_events_append_only' FROM pg_trigger t "
                    "JOIN pg_proc p ON p.oid = t.tgfoid WHERE t.tgrelid = 'events'::regclass AND NOT t.tgisinternal"
                ).fetchall()
            )
        problems = []
        for name in ("events_no_update", "events_no_truncate"):
            if name not in found:
                problems.append(f"the append-only trigger {name} is missing: events can be changed in place")
            elif not found[name]:
                problems.append(f"the append-only trigger {name} is disabled or not the one tonk created")
        return problems

    def verify(self, game_id: str | None = None) -> list[ChainFinding]:
        sql = f"SELECT {CHECK_COLUMNS} FROM events"
        if game_id is None:
            with self._scan(sql + " ORDER BY game_id, seq") as cur:
                return list(check_chain(cur))
        with self._connection() as conn:
            rows = conn.execute(sql + " WHERE game_id = %s ORDER BY seq", (game_id,)).fetchall()
        if not rows:
            raise UnknownGame(game_id)
        return list(check_chain(rows))

    def rebuild_projection(self) -> None:
        with self._write() as conn:
            cur = conn.cursor()
            cur.execute("DELETE FROM games")
            summary: projection.GameSummary | None = None
            dec: Decoder = decode
            done: list[projection.GameSummary] = []
            with conn.cursor(name="tonk_rebuild") as scan:
                scan.execute("SELECT game_id, seq, payload, recorded_at FROM events ORDER BY game_id, seq")
                for game_id, seq, payload, at in scan:
                    try:
                        if summary is None or game_id != summary.game_id:
                            if summary is not None:
                                done.append(summary)
                            summary = projection.GameSummary(game_id)
                            event, dec = first_event(payload)
                        else:
                            event = dec(payload)
                    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                        raise decode_error(game_id, seq, exc) from None
                    summary.apply(event, at)
                    if len(done) >= 500:
                        cur.executemany(_GAMES_UPSERT, [s.row() for s in done])
                        done = []
            if summary is not None:
                done.append(summary)
            if done:
                cur.executemany(_GAMES_UPSERT, [s.row() for s in done])


def _payload_bytes(rows: Iterator[tuple]) -> Iterator[tuple]:
    """Scan rows with the payload as the bytes that were hashed (text comes over the wire
    as it is, where a ``bytea`` column would come hex-encoded: twice the bytes to parse)."""
    for game_id, seq, type_, payload, hash_, prev_hash, chain, recorded_at, command_id in rows:
        yield game_id, seq, type_, payload.encode("utf-8"), hash_, prev_hash, chain, recorded_at, command_id
