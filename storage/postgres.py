"""The PostgreSQL back end of the store contract (:mod:`.base`), for several service nodes
sharing one database.

>>> store = PostgresEventStore.open_url("postgresql://tonk@db.example/tonk")   # doctest: +SKIP
>>> store.append(game.game_id, game.events, expected_version=0)            # doctest: +SKIP

Driver: psycopg 3 with psycopg-pool (the ``postgres`` extra), imported when a
store is opened, so the core install does not need them.  The store holds a
small connection pool; every operation borrows a connection (a streaming read
holds one until it is exhausted or closed), so a store may be shared by the
threads of a service.

It is a sibling of the SQLite and in-memory stores under the contract
(:class:`~.base.EventStore`), which holds what does not speak SQL (the rules of
what may be appended, the one-pass verified scan audit uses, decoding through
the format's upcast, the games projection's fold); this module supplies the
rows and the write transaction, with the statements the SQLite store runs too
(:mod:`.statements`, the dialect adapter).  The same contract test suite runs
against all three (``tests/storage/contract/``).

Appends are serialised by the one-row ``event_position`` counter, locked first
in the append's transaction: the expected-version and command-id checks then
see every append committed before, exactly as under SQLite's write lock, and
positions are handed out in commit order (no reader of the global order skips
an event that committed late).  Each append sends ``NOTIFY tonk_events`` (the
new last position) on commit: a wake-up hint for followers, never the truth.
An append takes two round trips (:class:`PostgresTransaction`), so the lock is
held for little more than that.

``durable=False`` (what ``tonk serve`` opens) commits with ``synchronous_commit``
off on the store's own connections: the commit, and the lock, do not wait for the
WAL flush; :meth:`PostgresEventStore.sync_wal` makes every commit made before it
durable, with one flush for all of them (the service's group commit).
"""

from __future__ import annotations

import itertools
import logging
import secrets
import threading
import time
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence
from urllib.parse import unquote

from . import statements as q
from ..core.events import Event
from .append_rules import EventRow, LastRow, checked_append, storable
from .base import ChainRow, EventStore, ProjectionRow, RecordRow
from .errors import StoreError, StoreUnavailable
from .evidence_log import EvidenceTables, SqlEvidenceTables
from .feed import READ_ALL_LIMIT, FeedDecoder, Positioned, window
from .keys import SECRET_PARAMETERS, server_key_path
from .postgres_append import KnownGames, one_trip
from .postgres_locked import LOCK_POSITION, LockedWrites
from .postgres_schema import NOTIFY_CHANNEL, SCHEMA_VERSION, applied, check_known, migrate
from .seats import SeatTables, SqlSeatTables
from .statements import POSTGRES, PostgresStatements, Statements

if TYPE_CHECKING:
    import psycopg

URL_SCHEMES = ("postgresql://", "postgres://")
POOL_SIZE = 8
#: how long the follower's wait lets NOTIFYs gather after the first before it reads them
NOTES_PAUSE_S = 0.01
#: games whose decoders the global order's reader keeps (then it starts afresh)
FEED_DECODERS = 10_000
CONNECT_TIMEOUT_S = 10

_INSERT = POSTGRES.sql(q.INSERT_EVENT)
_LAST_ROW = POSTGRES.sql(q.LAST_ROW)
_BY_COMMAND = POSTGRES.sql(q.BY_COMMAND)
_GAME_ROW = POSTGRES.sql(q.GAME_ROW)
_GAMES_UPSERT = POSTGRES.games_write
_LOCK_POSITION = LOCK_POSITION
_SET_POSITION = "UPDATE event_position SET last = %s"
_NOTIFY = "SELECT pg_notify(%s, %s)"
_POSITIONS = "SELECT position, game_id, seq FROM events WHERE position > %s ORDER BY position LIMIT %s"
#: a write whose synchronous commit flushes the WAL up to it: one row per server process
_FLUSH = "INSERT INTO tonk_flush (slot, n) VALUES (pg_backend_pid(), 1) ON CONFLICT (slot) DO UPDATE SET n = tonk_flush.n + 1"


class PostgresTransaction:
    """One write transaction holding the append lock (:class:`~.base.Transaction`), in as few
    round trips as the reads allow: the first read of a game sends ``BEGIN``, the lock (the
    position counter) and every read an append of that game makes (command id seen, last row,
    ``games`` row) in one pipeline; the writes wait and go out with ``COMMIT`` in one more.
    READ COMMITTED: each read is a statement after the lock's, so it sees every append
    committed before the lock was granted."""

    def __init__(self, conn: Any, note: str = ""):
        self._conn = conn
        self._note = note  # what follows the position in the NOTIFY payload: the store's own mark
        self._position: int | None = None  # read with the lock; advanced by each insert
        self._read: dict[str, tuple[bool | None, LastRow | None, tuple[Any, ...] | None, str]] = {}
        self._writes: list[tuple[str, Any, bool]] = []  # (sql, args, many) not yet sent
        self.inserted: list[list[EventRow]] = []  # the rows of each insert, in order
        self.games_rows: list[tuple[Any, ...]] = []  # the games row written with each insert

    # --- the lock and the reads, in one pipeline ------------------------------------------
    def _fetch(self, game_id: str | None, command_id: str = "") -> None:
        conn = self._conn
        lock = seen = last = game = None
        with conn.pipeline():
            self._flush()
            if self._position is None:
                conn.execute("BEGIN")
                lock = conn.execute(_LOCK_POSITION)
            if game_id is not None:
                seen = conn.execute(_BY_COMMAND, (game_id, command_id)) if command_id else None
                last = conn.execute(_LAST_ROW, (game_id,))
                game = conn.execute(_GAME_ROW, (game_id,))
        if lock is not None:
            self._position = lock.fetchone()[0]
        if game_id is not None and last is not None and game is not None:
            row = last.fetchone()
            grow = game.fetchone()
            self._read[game_id] = (
                None if seen is None else seen.fetchone() is not None,
                (row[0], row[1], row[2]) if row else None,
                tuple(grow) if grow else None,
                command_id,
            )

    def _game(self, game_id: str, command_id: str = ""):
        got = self._read.get(game_id)
        if got is None or (command_id and got[3] != command_id):
            self._fetch(game_id, command_id)
            got = self._read[game_id]
        return got

    def begin(self) -> None:
        if self._position is None:
            self._fetch(None)

    def command_seen(self, game_id: str, command_id: str) -> bool:
        return bool(self._game(game_id, command_id)[0])

    def last(self, game_id: str) -> LastRow | None:
        return self._game(game_id)[1]

    def last_position(self) -> int:
        self.begin()
        assert self._position is not None
        return self._position

    def game_row(self, game_id: str) -> tuple[Any, ...] | None:
        return self._game(game_id)[2]

    # --- the writes: sent with the next read, or with COMMIT ----------------------------------
    def insert(self, rows: list[EventRow], game_row: tuple[Any, ...]) -> None:
        self.begin()
        assert self._position is not None
        self._position += len(rows)
        self._read.pop(rows[0][0] if rows else game_row[0], None)  # what a read of this game saw is old now
        self._writes += [(_INSERT, rows, True), (_GAMES_UPSERT, game_row, False)]
        self.inserted.append(rows)
        self.games_rows.append(game_row)

    def _flush(self) -> None:
        """Send the waiting writes (inside a pipeline), the counter and the hint after them."""
        if not self._writes:
            return
        cur = self._conn.cursor()
        for sql, args, many in self._writes:
            if many:
                cur.executemany(sql, args)
            else:
                cur.execute(sql, args)
        cur.execute(_SET_POSITION, (self._position,))
        cur.execute(_NOTIFY, (NOTIFY_CHANNEL, f"{self._position}{self._note}"))
        self._writes = []

    def commit(self) -> None:
        if self._position is None:
            return  # nothing was asked: no transaction began
        with self._conn.pipeline():
            self._flush()
            self._conn.execute("COMMIT")

    def rollback(self) -> None:
        self._writes = []
        if self._position is not None or self._conn.info.transaction_status != 0:  # 0: idle
            self._conn.execute("ROLLBACK")

    def scan(self) -> Iterable[ProjectionRow]:
        self.begin()
        with self._conn.cursor(name="tonk_rebuild") as scan:
            scan.execute(q.SCAN)
            yield from scan

    def replace_games(self, rows: Iterable[tuple[Any, ...]]) -> None:
        self.begin()
        with self._conn.pipeline():
            self._flush()
        cur = self._conn.cursor()
        cur.execute("DELETE FROM games")
        batch: list[tuple[Any, ...]] = []
        for row in rows:
            batch.append(row)
            if len(batch) >= 500:
                cur.executemany(_GAMES_UPSERT, batch)
                batch = []
        if batch:
            cur.executemany(_GAMES_UPSERT, batch)


# psycopg warns through logging when a pipeline a refused write aborted is left ('error
# ignored terminating <psycopg.Pipeline (host=... user=...)>'); the store reports the refusal
# itself (StoreError).  A handler of its own keeps that warning off a command's stderr (where
# logging, with no handler configured, printed it before the store's one error line); a
# program that gives logging a root handler still gets it.
logging.getLogger("psycopg").addHandler(logging.NullHandler())


def is_url(target: object) -> bool:
    """True for a ``postgresql://`` (or ``postgres://``) URL."""
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def _split(url: str) -> tuple[str, str, str, str | None, str]:
    """``url`` taken apart as text, as ``urlsplit`` would but never refusing one (an unclosed
    ``[`` of an IPv6 host) and keeping an empty host's ``//``: the scheme with its ``://``,
    the host part (``user:password@host:port``), the path, the query (None without a ``?``)
    and the rest (``#...``)."""
    scheme, sep, rest = url.partition("://")
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    netloc, tail = rest[:end], rest[end:]
    path, mark, after = tail.partition("?")
    if not mark:
        path, hash_, fragment = tail.partition("#")
        return scheme + sep, netloc, path, None, hash_ + fragment
    query, hash_, fragment = after.partition("#")
    return scheme + sep, netloc, path, query, hash_ + fragment


def _query_items(query: str) -> list[tuple[str, str, str]]:
    return [item.partition("=") for item in query.split("&")]


def redact(url: str) -> str:
    """The URL without its password, in the user part or the query (for messages: a password
    is never printed); the rest as given."""
    scheme, netloc, path, query, rest = _split(url)
    user, at, host = netloc.rpartition("@")
    if at and ":" in user:
        netloc = f"{user.partition(':')[0]}:***@{host}"
    if query is not None:
        path += "?" + "&".join(
            f"{name}=***" if name.lower() in SECRET_PARAMETERS else f"{name}{eq}{value}" for name, eq, value in _query_items(query)
        )
    return scheme + netloc + path + rest


def scrubbed(text: str, url: str) -> str:
    """``text`` (a driver's message) with every password ``url`` holds (its user part's and
    its query's, as written and percent-decoded) shown as ``***``: libpq names a value it
    cannot parse (``invalid percent-encoded token: "..."``)."""
    _, netloc, _, query, _ = _split(url)
    user = netloc.rpartition("@")[0]
    hidden = [user.partition(":")[2]] if ":" in user else []
    hidden += [value for name, _, value in _query_items(query or "") if name.lower() in SECRET_PARAMETERS]
    for secret in sorted({s for raw in hidden for s in (raw, unquote(raw)) if s}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


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
    """An open PostgreSQL store.  Use :meth:`open_url` (or :meth:`EventStore.open`); close
    it, or use it as a context manager."""

    def __init__(self, pool: Any, url: str, read_only: bool = False, durable: bool = True):
        self._pool = pool
        self.url = url
        self.durable = durable
        self._where = redact(url)  # what messages name (the SQLite store names its file)
        self.read_only = read_only
        self._listener: "psycopg.Connection[Any] | None" = None
        self._flusher: "psycopg.Connection[Any] | None" = None  # sync_wal's own (synchronous_commit on)
        self._flushing = threading.Lock()
        self._psycopg = _driver()[0]
        self._pinned = threading.local()  # the connection of this thread's snapshot, if any
        # this thread's last append, (game id, its first seq, its hashes), until its next call
        # of the store: what hashes_after answers right after it without reading them back
        self._appended = threading.local()
        self._feed = FeedDecoder(self._first_payload)  # kept: a game's format never changes
        # follows the position in the NOTIFY payload of this store's appends: its own are told apart
        self._note = f" {secrets.token_hex(8)}"
        self._known = KnownGames()  # each game's last row as this store wrote it: one-round-trip appends
        # the global order's positions after _feed_after, read ahead by wait_for_append's thread
        # for appended_after: (after, rows, whether they are all there were), and where that is
        self._ahead: tuple[int, list[tuple[int, str, int]], bool] | None = None
        self._feed_after: int | None = None
        self._cursor_names = itertools.count(1)
        self._cursors: dict[Any, Any] = {}  # connection -> its kept cursor

    # --- opening --------------------------------------------------------------------
    @classmethod
    def open_url(cls, url: str, create: bool = True, *, read_only: bool = False, durable: bool = True) -> "PostgresEventStore":
        """Open the store at ``url``, creating its tables (``create=True``) in a database
        that holds none yet.  A database holding another application's ``events``, or a
        newer schema, is refused with :class:`StoreError` and left untouched.
        ``read_only``: an existing store, read in read-only transactions, never migrated
        (an older schema reads too).  ``durable=False``: this store's commits do not wait
        for the server's WAL flush (``synchronous_commit = off`` on its connections): a
        commit is then durable once a later :meth:`sync_wal` has returned (the service's
        group commit, ``service/group_sync.py``); the server's own settings are untouched."""
        psycopg, psycopg_pool = _driver()
        where = redact(url)
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
                names = applied(conn.cursor(), where)
                if names is None and (not create or read_only):
                    raise StoreError(f"no tonk store at {where}")
                if names is not None:
                    check_known(names, where)
                if not read_only and (names is None or len(names) < SCHEMA_VERSION):
                    migrate(conn, where)
        except psycopg.Error as exc:
            raise StoreError(f"cannot open {where}: {scrubbed(_first_line(exc), url)}") from None

        def configure(conn: Any) -> None:
            if read_only:
                conn.execute("SET default_transaction_read_only = on")
            if not durable:
                conn.execute("SET synchronous_commit = off")

        pool = psycopg_pool.ConnectionPool(
            url, min_size=1, max_size=POOL_SIZE, kwargs={"autocommit": True}, configure=configure, open=False, name="tonk"
        )
        try:
            pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        except psycopg_pool.PoolTimeout:
            pool.close()
            raise StoreError(f"cannot open {where}: no connection within {CONNECT_TIMEOUT_S} s") from None
        return cls(pool, url, read_only, durable)

    @property
    def path(self) -> str:
        return self._where

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        with self._flushing:
            if self._flusher is not None:
                self._flusher.close()
                self._flusher = None
        self._pool.close()

    def default_key_path(self) -> Path:
        return server_key_path(self.url)

    # --- connections and transactions -----------------------------------------------
    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """A connection for one read: this thread's snapshot's, or one from the pool."""
        self._appended.rows = None
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
    def _transaction(self) -> Iterator[PostgresTransaction]:
        """An append's transaction (:class:`PostgresTransaction`: the lock and the reads in one
        round trip, the writes and ``COMMIT`` in another), rolled back on any error."""
        psycopg = self._psycopg
        if self.read_only:
            raise StoreError(f"{self.path} is open for reading only: nothing can be written")
        try:
            with self._pool.connection() as conn:
                tx = PostgresTransaction(conn, self._note)
                try:
                    yield tx
                except BaseException:
                    with suppress(psycopg.Error):
                        tx.rollback()
                    raise
                tx.commit()
                if len(tx.inserted) == 1 and tx.inserted[0]:
                    rows = tx.inserted[0]
                    self._known.wrote(rows, tx.games_rows[0])
                    self._appended.rows = (rows[0][0], rows[0][1], [r[5] for r in rows])
        except psycopg.Error as exc:
            raise StoreUnavailable(f"{self.path}: the write failed and was rolled back: nothing of this write is stored ({_first_line(exc)})") from None

    def append(self, game_id: str, events: Sequence[Event], expected_version: int, command_id: str | None = None) -> int:
        """As the contract's; in one round trip when this store knows the game's last row (it
        wrote it, or the game is new): :mod:`.postgres_append`.  Otherwise, or when the game
        moved on or the command id was seen meanwhile, the usual way."""
        self._appended.rows = None
        known = None
        game: object = game_id  # (checked_append names what is wrong with a game id that is not text)
        if not self.read_only and isinstance(game, str) and type(expected_version) is int:
            known = self._known.get(game, expected_version)
        if known is None:
            return super().append(game_id, events, expected_version, command_id)
        checked, encoded, cmd = checked_append(game_id, events, expected_version, command_id)
        if not checked:
            return super().append(game_id, events, expected_version, command_id)
        psycopg = self._psycopg
        try:
            with self._pool.connection() as conn:
                done = one_trip(self._cursor(conn), known, game_id, checked, encoded, cmd, expected_version, self._note)
        except psycopg.Error as exc:
            raise StoreUnavailable(f"{self.path}: the write failed and was rolled back: nothing of this write is stored ({_first_line(exc)})") from None
        if done is None:  # another writer moved the game on, or the command id was seen
            self._known.forget(game_id)
            return super().append(game_id, events, expected_version, command_id)
        _, rows, games_row = done
        self._known.wrote(rows, games_row)
        self._appended.rows = (game_id, rows[0][1], [r[5] for r in rows])
        return expected_version + len(rows)

    def rebuild_projection(self) -> None:
        self._known.forget()  # the games rows are written anew
        super().rebuild_projection()

    def sync_wal(self) -> None:
        """Return once every commit made before the call is on the server's disk, whatever
        ``synchronous_commit`` those commits ran with: one small write (its row in
        ``tonk_flush``) committed on a connection of its own with ``synchronous_commit = on``,
        whose commit waits for the WAL flush up to its own commit record, after every commit
        made before it.  One statement, one round trip; the service calls it in a worker thread
        for the commits of many tables at once (``service/group_sync.py``)."""
        psycopg = self._psycopg
        if self.read_only:
            return
        with self._flushing:
            try:
                if self._flusher is None or self._flusher.closed:
                    self._flusher = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
                    self._flusher.execute("SET synchronous_commit = on")
                self._flusher.execute(_FLUSH)
            except psycopg.Error as exc:
                if self._flusher is not None:
                    self._flusher.close()
                self._flusher = None
                raise StoreUnavailable(f"{self.path}: the WAL flush failed: commits not yet flushed may be lost ({_first_line(exc)})") from None

    @contextmanager
    def _reading(self) -> Iterator[None]:
        try:
            yield
        except self._psycopg.Error as exc:
            raise StoreUnavailable(f"{self.path}: cannot read the store ({_first_line(exc)})") from None

    # --- the side tables ------------------------------------------------------------
    @contextmanager
    def statements(self) -> Iterator[Statements]:
        """Reads of the side tables in the dialect adapter."""
        with self._connection() as conn:
            yield PostgresStatements(conn)

    @contextmanager
    def statements_write(self) -> Iterator[Statements]:
        """One write transaction on the side tables holding the append lock (the position
        counter): no append lands until it ends.  Its writes go out with its next read or
        with ``COMMIT``, in one pipeline (:mod:`.postgres_locked`)."""
        psycopg = self._psycopg
        if self.read_only:
            raise StoreError(f"{self.path} is open for reading only: nothing can be written")
        try:
            with self._pool.connection() as conn:
                sql = LockedWrites(conn)
                try:
                    yield sql
                    sql.commit()
                except BaseException:
                    with suppress(psycopg.Error):
                        sql.rollback()
                    raise
        except psycopg.Error as exc:
            raise StoreUnavailable(f"{self.path}: the write failed and was rolled back: nothing of this write is stored ({_first_line(exc)})") from None

    @contextmanager
    def evidence(self, *, write: bool = False) -> Iterator[EvidenceTables]:
        with self.statements_write() if write else self.statements() as sql:
            yield SqlEvidenceTables(sql)

    def seat_tables(self) -> SeatTables:
        return SqlSeatTables(self.statements, self.statements_write, self.read_only)

    # --- reading --------------------------------------------------------------------
    def _cursor(self, conn: Any) -> Any:
        """The connection's cursor for one-statement reads and appends, kept with it (a new
        cursor for each statement costs as much as the rest of a short read)."""
        cur = self._cursors.get(conn)
        if cur is None or cur.closed:
            if len(self._cursors) >= 2 * POOL_SIZE:  # (a cursor holds its connection: the pool's old ones go here)
                for old in [c for c in list(self._cursors) if c.closed]:
                    self._cursors.pop(old, None)
            cur = self._cursors[conn] = conn.cursor()
        return cur

    def _one(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        with self._connection() as conn:
            return self._cursor(conn).execute(POSTGRES.sql(sql), args).fetchone()[0]

    def _all(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._connection() as conn:
            return self._cursor(conn).execute(POSTGRES.sql(sql), args).fetchall()

    def _scan(self, sql: str, args: tuple[Any, ...] = ()) -> Iterator[Any]:
        """A server-side cursor over ``sql`` (rows fetched in batches, not all at once)."""
        with self._connection() as conn, conn.transaction():
            with conn.cursor(name=f"tonk_scan_{next(self._cursor_names)}") as cur:
                cur.itersize = 2000
                cur.execute(POSTGRES.sql(sql), args)
                yield from cur

    # A game id (or a name) holding NUL is never stored (append_rules.storable) and PostgreSQL
    # refuses to be asked about one: it names no game, as on the other back ends.
    def version(self, game_id: str) -> int:
        return int(self._one(q.VERSION, (game_id,))) if storable(game_id) else 0

    def game_ids(self) -> list[str]:
        return [r[0] for r in self._all(q.GAME_IDS)]

    def game_count(self) -> int:
        return int(self._one(q.GAME_COUNT))

    def last_position(self) -> int:
        return int(self._one(q.LAST_POSITION))

    def wait_for_append(self, timeout: float) -> bool:
        """Wait for a ``NOTIFY`` of another writer's append (another node's: this store's own
        appends do not wake it), at most ``timeout`` seconds; True when one came, at most
        :data:`NOTES_PAUSE_S` after it (those that come meanwhile are read with it).  A hint
        only: a notification sent while the listener was (re)connecting is lost, so callers
        read the global order after every wait, notified or not."""
        psycopg = self._psycopg
        try:
            if self._listener is None or self._listener.closed:
                self._listener = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
                self._listener.execute(f"LISTEN {NOTIFY_CHANNEL}")
            deadline = time.monotonic() + timeout
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                notes = list(self._listener.notifies(timeout=remaining, stop_after=1))
                if not notes:
                    return False
                # let the next ones gather a moment: read (or passed over) together, not each with
                # a wake-up of its own (another node's append is told at most this much later)
                time.sleep(min(NOTES_PAUSE_S, max(0.0, deadline - time.monotonic())))
                notes += self._listener.notifies(timeout=0)  # the others already here (the read below has them)
                if any(not n.payload.endswith(self._note) for n in notes):
                    self._read_ahead()
                    return True
                # only this store's own appends: its caller has them
        except psycopg.Error:
            if self._listener is not None:
                self._listener.close()
            self._listener = None
            return False

    def _read_ahead(self) -> None:
        """After another writer's append: read what :meth:`appended_after` will be asked next
        (after what it answered last), here in the waiting thread, so that the caller's next
        call, in its own thread, answers without a round trip."""
        after = self._feed_after
        if after is None:
            return
        rows = self._positions(after, READ_ALL_LIMIT)
        self._ahead = (after, rows, len(rows) < READ_ALL_LIMIT)

    def _positions(self, after: int, limit: int) -> list[tuple[int, str, int]]:
        return [(r[0], r[1], r[2]) for r in self._all(_POSITIONS, (after, limit))]

    def appended_after(self, after: int = 0, limit: int = READ_ALL_LIMIT) -> list[tuple[int, str, int]]:
        """As the contract's, without the payloads; answered from what :meth:`wait_for_append`
        read ahead when it was read after ``after`` (as of that read: a later append woke, or
        will wake, the next wait), else read now."""
        after, limit = window(after, limit)
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[0] == after:
            _, rows, whole = ahead
            if rows:
                got = rows[:limit]
                self._ahead = (got[-1][0], rows[len(got) :], whole)
                self._feed_after = got[-1][0]
                return got
            if whole:
                return []
        with self._reading():
            rows = self._positions(after, limit)
        self._feed_after = rows[-1][0] if rows else after
        return rows

    def _payloads(self, game_id: str) -> Iterator[tuple[int, str | bytes]]:
        return iter(self._all(q.PAYLOADS, (game_id,)) if storable(game_id) else [])  # one game: one query, no server-side cursor

    def _all_payloads(self) -> Iterator[tuple[str, int, str | bytes]]:
        return self._scan(q.ALL_PAYLOADS)

    def _chain_rows(self, game_id: str | None) -> Iterator[ChainRow]:
        sql = q.CHAIN_ROWS.format(payload="payload", chain="chain")
        if game_id is None:
            rows = self._scan(sql + " ORDER BY game_id, seq")
        else:
            rows = self._scan(sql + " WHERE game_id = ? ORDER BY seq", (game_id,)) if storable(game_id) else iter([])
        # the payload as the bytes that were hashed (text comes over the wire as it is, where a
        # ``bytea`` column would come hex-encoded: twice the bytes to parse)
        for gid, seq, type_, payload, hash_, prev_hash, chain, recorded_at, command_id in rows:
            yield gid, seq, type_, payload.encode("utf-8"), hash_, prev_hash, chain, recorded_at, command_id

    def _record_rows(self, game_id: str) -> Iterator[RecordRow]:
        return iter(self._all(q.RECORD_ROWS.format(chain="chain"), (game_id,)) if storable(game_id) else [])

    def _feed_rows(self, after: int, limit: int) -> list[tuple[int, str, int, str | bytes]]:
        return self._all(q.FEED_ROWS, (after, limit))

    def _first_payload(self, game_id: str) -> str | bytes:
        return str(self._one(q.FIRST_PAYLOAD, (game_id,)))

    def appended(self, game_id: str, version: int) -> bool:
        """Whether this thread's last call of the store was an append that stored the rows of
        ``game_id`` up to ``version`` (not the no-op answer to a command id already recorded,
        which gives a version too)."""
        rows = getattr(self._appended, "rows", None)
        return rows is not None and rows[0] == game_id and rows[1] + len(rows[2]) - 1 == version

    def hashes_after(self, game_id: str, seq: int) -> list[str]:
        """As the contract's; asked first thing after this thread appended to the game from
        ``seq + 1`` on (what a cached fold asks after its append), the hashes that append
        stored, without reading them back (a round trip per command saved)."""
        appended, self._appended.rows = getattr(self._appended, "rows", None), None
        if appended is not None and appended[0] == game_id and appended[1] == seq + 1:
            return appended[2]
        return super().hashes_after(game_id, seq)

    def read_all(self, after: int = 0, limit: int = READ_ALL_LIMIT) -> list[Positioned]:
        """As the contract's, decoding through one decoder per game kept from call to call
        (not a first-payload read of each game in every batch)."""
        after, limit = window(after, limit)
        with self._reading():
            rows = self._feed_rows(after, limit)
            if self._feed.games() > FEED_DECODERS:
                self._feed = FeedDecoder(self._first_payload)
            feed = self._feed
            return [feed.decode(*row) for row in rows]

    def hash_rows(self, game_id: str, after: int = 0) -> list[tuple[int, str, str]]:
        return self._all(q.HASH_ROWS, (game_id, after)) if storable(game_id) else []

    def _game_rows(self, player: str | None = None, variant: str | None = None) -> list[tuple[Any, ...]]:
        if not all(storable(name) for name in (player, variant) if name is not None):
            return []
        sql, args = q.games_query(POSTGRES, player, variant)
        with self._connection() as conn:
            return list(conn.execute(sql, args).fetchall())

    def _projection_sources(self) -> tuple[Iterable[tuple[str, int, int]], Iterable[tuple[str, int, str, str | bytes, str]]]:
        return self._all(q.GAME_COUNTS), self._all(q.FOLDED_ROWS)

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

    def backup(self, dest: str | Path) -> None:
        """A new SQLite file ``dest`` holding every game, the evidence log and the served
        tables' records (:func:`~.copy.backup_to_file`)."""
        from .copy import backup_to_file

        backup_to_file(self, dest)
