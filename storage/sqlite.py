"""The SQLite back end of the store contract (:mod:`.base`): one file, append-only,
hash-chained, with optimistic concurrency.

>>> store = SqliteEventStore.open_file("tonk.db")           # doctest: +SKIP
>>> store.append(game.game_id, game.events, expected_version=0)   # doctest: +SKIP

Schema and migrations go through sqlite-utils (:mod:`.schema`); the hot paths
(append, read) use the same connection's plain ``sqlite3`` API, one
``executemany`` per append inside one ``BEGIN IMMEDIATE`` transaction.

Durability: WAL mode with ``synchronous=FULL`` by default, so a committed
append survives a power cut; ``durable=False`` uses ``synchronous=NORMAL``
(still never corrupt, and safe against a crashed process, but the last commits
may be lost on a power cut).
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import quote

from sqlite_utils import Database

from . import sqlite_layout as lean
from . import statements as q
from .append_rules import EventRow, LastRow
from .base import ChainRow, EventStore, ProjectionRow, RecordRow
from .errors import StoreError, StoreUnavailable
from .evidence_log import EvidenceTables, SqlEvidenceTables
from .keys import key_path
from .schema import BULK_CHECKPOINT_BYTES, BULK_PAGE_SIZE, PAGE_SIZE, SCHEMA_VERSION, inspect_file, is_lean, migrate, trigger_problems
from .seats import SeatTables, SqlSeatTables
from .statements import SQLITE, SqliteStatements, Statements

BUSY_TIMEOUT_MS = 30_000


class BatchLost(StoreError):
    """A batch of deferred appends (:meth:`SqliteEventStore.defer_commits`) was rolled back
    whole: its ``COMMIT`` failed, or SQLite rolled the transaction back after an error.
    Nothing of it is stored; ``games`` are the games its appends wrote to."""

    def __init__(self, message: str, games: frozenset[str]):
        super().__init__(message)
        self.games = games


class KnownRows:
    """What this connection read or wrote under its write lock, kept from one write transaction
    to the next while no other connection commits in between: the position of the last event,
    and of each game its last row (seq, hash, type), its ``games`` row and (lean layout) its
    number.  Each write transaction reads ``PRAGMA data_version`` under the lock first (it
    changes when another connection has committed since this one's last transaction, never for
    this one's own commits): changed, everything is forgotten; a transaction that fails forgets
    everything too.  An append then reads only whether its command id is recorded, and not even
    that for a game whose first rows this connection wrote: every command id of such a game is
    known (:attr:`commands`, up to :data:`COMMAND_IDS` of them; past that, asked again)."""

    #: the most command ids kept of one game (a longer game's are read from the store again)
    COMMAND_IDS = 4096
    #: the most games known at once (past that, everything known is forgotten and read again)
    GAMES = 4096

    def __init__(self) -> None:
        self.mark: int | None = None
        self.position: int | None = None
        self.games: dict[str, tuple[LastRow | None, tuple[Any, ...] | None, int | None]] = {}
        # game id -> every command id of the game (its first rows were written here, and only
        # this connection has written since: the games' rows say which ids are recorded)
        self.commands: dict[str, set[str]] = {}

    def forget(self) -> None:
        self.mark = self.position = None
        self.games = {}
        self.commands = {}

    def recorded(self, game_id: str, command_id: str) -> bool | None:
        """Whether ``command_id`` is recorded for the game, when every id of it is known; else None."""
        ids = self.commands.get(game_id)
        return None if ids is None else command_id in ids

    def inserted(self, rows: list[EventRow]) -> None:
        """One game's rows were inserted in this transaction: their command ids are recorded."""
        game_id = rows[0][0]
        ids = self.commands.get(game_id)
        if ids is None:
            if rows[0][1] != 1:
                return  # a game with rows before these: its other ids are not known here
            if len(self.commands) >= self.GAMES:
                self.commands = {}
            ids = self.commands[game_id] = set()
        ids.update(r[7] for r in rows if r[7])
        if len(ids) > self.COMMAND_IDS:
            del self.commands[game_id]

    def begin(self, conn: sqlite3.Connection) -> None:
        """Called first in each write transaction, under the lock."""
        mark = int(conn.execute("PRAGMA data_version").fetchone()[0])
        if mark != self.mark:
            self.forget()
            self.mark = mark

    def game(self, game_id: str) -> tuple[LastRow | None, tuple[Any, ...] | None, int | None]:
        return self.games.get(game_id) or (None, None, None)

    def note(self, game_id: str, last: LastRow | None = None, row: tuple[Any, ...] | None = None, number: int | None = None) -> None:
        """What is known now of ``game_id`` (``None``: what was known stays)."""
        if len(self.games) >= self.GAMES and game_id not in self.games:
            self.games = {}
            self.commands = {}
        had = self.game(game_id)
        self.games[game_id] = (last or had[0], row or had[1], number or had[2])


class SqliteTransaction:
    """One write transaction on the store's connection (:class:`~.base.Transaction`), with
    what the connection knows already (:class:`KnownRows`)."""

    def __init__(self, conn: sqlite3.Connection, known: KnownRows | None = None):
        self._conn = conn
        self._known = known if known is not None else KnownRows()
        self.written: list[str] = []  # the games inserted into, in order

    def command_seen(self, game_id: str, command_id: str) -> bool:
        known = self._known.recorded(game_id, command_id)
        if known is not None:
            return known
        return self._conn.execute(self._q_by_command, (game_id, command_id)).fetchone() is not None

    _q_by_command = q.BY_COMMAND

    def last(self, game_id: str) -> LastRow | None:
        known = self._known.game(game_id)[0]
        if known is not None:
            return known
        row = self._conn.execute(q.LAST_ROW, (game_id,)).fetchone()
        found = (row[0], row[1], row[2]) if row else None
        if found is not None:
            self._known.note(game_id, last=found)
        return found

    def last_position(self) -> int:
        known = self._known.position
        if known is None:
            known = self._known.position = int(self._conn.execute(self._q_last_position).fetchone()[0])
        return known

    _q_last_position = q.LAST_POSITION

    def game_row(self, game_id: str) -> tuple[Any, ...] | None:
        known = self._known.game(game_id)[1]
        if known is not None:
            return known
        row = self._conn.execute(q.GAME_ROW, (game_id,)).fetchone()
        found = tuple(row) if row else None
        if found is not None:
            self._known.note(game_id, row=found)
        return found

    def insert(self, rows: list[EventRow], game_row: tuple[Any, ...]) -> None:
        self._conn.executemany(q.INSERT_EVENT, rows)
        self._conn.execute(SQLITE.games_write, game_row)
        self._inserted(rows, game_row)

    def _inserted(self, rows: list[EventRow], game_row: tuple[Any, ...], number: int | None = None) -> None:
        last = rows[-1]
        self.written.append(last[0])
        self._known.note(last[0], last=(last[1], last[5], last[2]), row=tuple(game_row), number=number)
        self._known.inserted(rows)
        self._known.position = last[8]

    def scan(self) -> Iterable[ProjectionRow]:
        return self._conn.cursor().execute(q.SCAN)

    def replace_games(self, rows: Iterable[tuple[Any, ...]]) -> None:
        self._known.forget()
        self._conn.execute("DELETE FROM games")
        self._conn.executemany(SQLITE.games_write, rows)


class LeanTransaction(SqliteTransaction):
    """A write transaction on a store of the lean layout (:mod:`.sqlite_layout`)."""

    _q_last_position = lean.LAST_POSITION
    _q_by_command = lean.BY_COMMAND

    def last(self, game_id: str) -> LastRow | None:
        known = self._known.game(game_id)[0]
        if known is not None:
            return known
        row = self._conn.execute(lean.LAST_ROW, (game_id,)).fetchone()
        if not row:
            return None
        found = (row[0], lean.hash_text(row[1]), row[2])
        self._known.note(game_id, last=found)
        return found

    def insert(self, rows: list[EventRow], game_row: tuple[Any, ...]) -> None:
        conn = self._conn
        game_id, first_seq = rows[0][0], rows[0][1]
        game = self._known.game(game_id)[2]
        if game is None:
            found = conn.execute(lean.GAME_NUMBER, (game_id,)).fetchone()
            game = int(found[0] if found else conn.execute(lean.NEW_GAME_NUMBER, (game_id,)).lastrowid or 0)
        prev: str | None = None
        if first_seq > 1:
            prev = self.last(game_id)[1]  # type: ignore[index]
        conn.executemany(lean.INSERT_ROW, lean.lean_rows(game, rows, prev))
        conn.execute(lean.GAMES_WRITE, game_row)
        self._inserted(rows, game_row, game)

    def scan(self) -> Iterable[ProjectionRow]:
        return lean.scan_rows(self._conn.cursor().execute(lean.SELECT_CHAIN.format(payload=lean.PAYLOAD) + " ORDER BY k.game_id, r.seq"))

    def replace_games(self, rows: Iterable[tuple[Any, ...]]) -> None:
        self._known.forget()
        self._conn.execute("DELETE FROM games")
        self._conn.executemany(lean.GAMES_WRITE, rows)


class SqliteEventStore(EventStore):
    """An open SQLite store.  Use :meth:`open_file` (or :meth:`EventStore.open`); close it,
    or use it as a context manager."""

    def __init__(self, db: Database, path: Path):
        self.db = db
        self._path = path
        self._conn: sqlite3.Connection = db.conn
        self._wal_fd: int | None = None
        self._checkpointer: sqlite3.Connection | None = None  # checkpoint()'s own connection
        self._known = KnownRows()  # what the append's transactions know already (its text)
        # deferred commits (defer_commits): asked whether a batch may open; the open batch's
        # games (None: no batch open); the games of a batch lost since the last commit_deferred
        self._defer: Callable[[], bool] | None = None
        self._batch: set[str] | None = None
        self._lost: set[str] | None = None
        #: fsync the WAL in :meth:`close` (a store opened ``bulk``)
        self._sync_on_close = False
        # a store of an older schema opened read only has no chain column: its rows are all version 1
        try:
            columns = {r[1] for r in self._conn.execute("PRAGMA table_info(events)")}
        except sqlite3.DatabaseError as exc:
            db.close()
            raise StoreUnavailable(f"{path}: cannot read the store ({exc})") from None
        self._chain = "chain" if "chain" in columns or not columns else "1"
        #: the events in the lean layout of schema 5 (else schema 4's table, or older, read only)
        self._lean = is_lean(self._conn)
        #: the plain reads that differ only in their SQL, for this store's layout
        self._q: ModuleType = lean if self._lean else q
        if self._lean:
            lean.register_functions(self._conn)

    # --- opening --------------------------------------------------------------------
    @classmethod
    def open_file(
        cls,
        path: str | Path,
        create: bool = True,
        *,
        durable: bool = True,
        integrity_check: bool = True,
        read_only: bool = False,
        bulk: bool = False,
    ) -> "SqliteEventStore":
        """Open the store at ``path``, creating it (``create=True``) if the file is missing.

        ``bulk``: for a writer of many whole games (``tonk simulate``), whose record is on disk
        when :meth:`close` returns, not after each commit: a new store gets
        :data:`~.schema.BULK_PAGE_SIZE` pages (an existing one keeps its own), commits are
        not each fsynced (``synchronous=NORMAL``: a killed process loses nothing committed, a
        power cut only the last commits, and the store stays consistent), the WAL grows to
        :data:`~.schema.BULK_CHECKPOINT_BYTES` before it is copied into the file, and
        :meth:`close` fsyncs the WAL first (:meth:`sync_wal`).  ``durable`` is then ignored.

        A file that is not a tonk store, has a newer schema or is corrupt is refused
        with :class:`StoreError` and left untouched (it is inspected read-only first;
        ``integrity_check`` runs SQLite's ``quick_check`` on it).  ``read_only`` opens an
        existing store for reading only (:meth:`open_read_only`)."""
        if read_only:
            return cls.open_read_only(path, integrity_check=integrity_check)
        path = Path(path)
        if path.exists():
            version = inspect_file(path, integrity=integrity_check)
            if version is None and not create:
                raise StoreError(f"{path} is empty, not a tonk store")
        elif not create:
            raise StoreError(f"no tonk store at {path}")
        else:
            version = None
            if not path.parent.is_dir():
                raise StoreError(f"cannot create {path}: directory {path.parent} does not exist")
        try:
            db = Database(path, execute_plugins=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {path}: {exc}") from None
        try:
            conn = db.conn
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if version is None:
                conn.execute(f"PRAGMA page_size = {BULK_PAGE_SIZE if bulk else PAGE_SIZE}")  # a new store (ignored once the file has pages)
            _enable_wal(conn, path)
            conn.execute(f"PRAGMA synchronous = {'FULL' if durable and not bulk else 'NORMAL'}")
            if bulk:
                page = conn.execute("PRAGMA page_size").fetchone()[0]
                conn.execute(f"PRAGMA wal_autocheckpoint = {BULK_CHECKPOINT_BYTES // page}")
            if version != SCHEMA_VERSION:
                migrate(db, path)
        except sqlite3.Error as exc:
            db.close()
            raise StoreError(f"cannot open {path}: {exc}") from None
        except BaseException:
            db.close()
            raise
        store = cls(db, path)
        store._sync_on_close = bulk
        return store

    @classmethod
    def open_read_only(cls, path: str | Path, *, integrity_check: bool = True) -> "SqliteEventStore":
        """Open an existing store for reading only: it works in a read-only directory or on
        read-only media, and writes nothing, not even the WAL's ``-wal``/``-shm`` files.

        SQLite's ``mode=ro`` is used when the store's ``-wal`` and ``-shm`` files are there
        (another process may have it open: its committed appends are seen); when they are
        not (no process has it open), or cannot be used, the file is opened ``immutable``,
        which reads the file alone and creates nothing beside it.  Writing through the
        store raises :class:`StoreError`."""
        path = Path(path)
        if not path.exists():
            raise StoreError(f"no tonk store at {path}")
        version = inspect_file(path, integrity=integrity_check)
        if version is None:
            raise StoreError(f"{path} is empty, not a tonk store")
        # an older schema reads as well: every version holds the events and games tables

        base = "file:" + quote(str(path.resolve()))
        sides = all(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-shm"))
        conn = None
        error: sqlite3.Error | None = None
        for uri in ([base + "?mode=ro"] if sides else []) + [base + "?mode=ro&immutable=1"]:
            try:
                conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                break
            except sqlite3.Error as exc:
                if conn is not None:
                    conn.close()
                conn = None
                error = exc
        if conn is None:
            raise StoreError(f"cannot open {path} for reading: {error}")
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        return cls(Database(conn, execute_plugins=False), path)

    @property
    def path(self) -> Path:
        return self._path

    def close(self) -> None:
        try:
            self._end_batch()
        except StoreError:
            pass  # nothing of it is stored, and nobody was told it was (defer_commits)
        if self._sync_on_close:
            self._sync_on_close = False
            try:
                self.sync_wal()
            except BaseException:
                self._close()
                raise
        self._close()

    def _close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None
        if self._wal_fd is not None:
            os.close(self._wal_fd)
            self._wal_fd = None
        self.db.close()

    def sync_wal(self) -> None:
        """fsync the ``-wal`` file: every commit made so far on this connection is then on
        disk (for a store opened with ``durable=False``, whose commits do not wait for the
        disk; the service's group commit, :mod:`tonk.service.group_sync`).  Safe to call from
        another thread than the one writing."""
        if self._wal_fd is None:
            try:
                self._wal_fd = os.open(f"{self._path}-wal", os.O_RDONLY)
            except FileNotFoundError:  # no WAL yet: nothing was committed through one
                return
            folder = os.open(os.path.dirname(os.path.abspath(self._path)), os.O_RDONLY)
            try:
                os.fsync(folder)  # the -wal file's name too, once
            finally:
                os.close(folder)
        os.fsync(self._wal_fd)

    def checkpoint_apart(self) -> None:
        """Commits on this connection no longer copy the WAL into the file themselves (SQLite's
        automatic checkpoint, which runs inside the commit that passes its threshold and
        waits for two fsyncs there): :meth:`checkpoint`, called from another thread, does."""
        with self._reading():
            self._conn.execute("PRAGMA wal_autocheckpoint = 0")

    def checkpoint(self) -> tuple[int, int]:
        """Copy into the file what the WAL holds, as far as no reader still needs it (SQLite's
        PASSIVE checkpoint: it never waits for a writer or a reader, nor holds one up), on a
        connection of its own: safe to call from another thread than the writer's, one call
        at a time.  SQLite syncs the WAL before it copies and the file before the WAL is
        reused, so a commit on disk stays on disk.  Returns the WAL's frames and the frames
        copied so far."""
        conn = self._checkpointer
        if conn is None:
            conn = self._checkpointer = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
        with self._reading():
            _, frames, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(frames), int(copied)

    def default_key_path(self) -> Path:
        return key_path(self.path)

    # --- transactions ---------------------------------------------------------------
    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction holding the database's write lock from the start (an open
        batch of deferred appends is committed first: :meth:`defer_commits`)."""
        conn = self._conn
        self._end_batch()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreUnavailable(f"{self.path}: cannot start a write ({exc})") from None
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreUnavailable(f"{self.path}: the write failed and was rolled back: nothing of this write is stored ({exc})") from None
            raise

    @contextmanager
    def _transaction(self) -> Iterator[SqliteTransaction]:
        known = self._known
        try:
            with self._write() as conn:
                known.begin(conn)
                yield LeanTransaction(conn, known) if self._lean else SqliteTransaction(conn, known)
        except BaseException:
            known.forget()  # rolled back (or not known to have committed): read again next time
            raise

    # --- deferred commits (the service's group commit) ----------------------------------
    def defer_commits(self, opening: Callable[[], bool] | None) -> None:
        """Let appends share one transaction: while ``opening`` is set, an append that finds no
        batch open asks ``opening()``; if it answers true, a write transaction is begun and left
        open, and this append and the next ones run in it, each inside a savepoint of its own (an
        append that fails rolls back itself only).  The caller commits the batch with
        :meth:`commit_deferred` (the service, once per turn of its event loop, before it draws
        the fsync ticket that releases the batch's answers); any other write, and
        :meth:`close`, commit it first.  ``None``: every append commits itself again.

        Until the batch commits, what its appends wrote is seen by this connection only, and
        may still be lost whole (:class:`BatchLost`): a caller answers nothing of it before."""
        self._defer = opening

    def commit_deferred(self) -> None:
        """Commit the open batch of appends (nothing when none is open).  :class:`BatchLost`
        when it, or a batch committed since the last call, was rolled back instead."""
        try:
            self._end_batch()
        except BatchLost as exc:
            lost, self._lost = self._lost, None
            raise BatchLost(str(exc), frozenset(lost or ()) | exc.games) from None
        lost, self._lost = self._lost, None
        if lost is not None:
            raise BatchLost(f"{self.path}: a batch of appends was rolled back: nothing of it is stored", frozenset(lost))

    def _end_batch(self) -> None:
        games, self._batch = self._batch, None
        if games is None:
            return
        conn = self._conn
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._lose(games)
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise BatchLost(f"{self.path}: the commit of a batch of appends failed and was rolled back: nothing of it is stored ({exc})", frozenset(games)) from None

    def _lose(self, games: set[str]) -> None:
        self._known.forget()
        self._lost = (self._lost or set()) | games

    @contextmanager
    def _append_transaction(self) -> Iterator[SqliteTransaction]:
        if self._batch is None and (self._defer is None or not self._defer()):
            with self._transaction() as tx:
                yield tx
            return
        conn = self._conn
        known = self._known
        if self._batch is None:
            try:
                conn.execute("BEGIN IMMEDIATE")
                known.begin(conn)
            except sqlite3.Error as exc:
                known.forget()
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise StoreUnavailable(f"{self.path}: cannot start a write ({exc})") from None
            self._batch = set()
        batch = self._batch
        try:
            conn.execute("SAVEPOINT tonk_append")
            tx = LeanTransaction(conn, known) if self._lean else SqliteTransaction(conn, known)
            yield tx
            conn.execute("RELEASE tonk_append")
        except BaseException as exc:
            known.forget()
            try:
                conn.execute("ROLLBACK TO tonk_append")
                conn.execute("RELEASE tonk_append")
            except sqlite3.Error:  # the transaction itself is gone (SQLite rolls back on some errors)
                self._batch = None
                self._lose(batch)
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreUnavailable(f"{self.path}: the write failed and was rolled back: nothing of this write is stored ({exc})") from None
            raise
        else:
            batch.update(tx.written)

    @contextmanager
    def _reading(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot read the store ({_read_problem(exc)})") from None

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        conn = self._conn
        if conn.in_transaction:
            yield
            return
        with self._reading():
            conn.execute("BEGIN")
        try:
            yield
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")

    # --- the side tables ------------------------------------------------------------
    @contextmanager
    def statements(self) -> Iterator[Statements]:
        """Reads of the store's side tables in the dialect adapter; in a
        :meth:`statements_write`, the write's own connection."""
        with self._reading():
            yield SqliteStatements(self._conn)

    @contextmanager
    def statements_write(self) -> Iterator[Statements]:
        """One write transaction on the side tables, holding the store's write lock (no
        append lands until it ends)."""
        with self._write() as conn:
            yield SqliteStatements(conn)

    @contextmanager
    def evidence(self, *, write: bool = False) -> Iterator[EvidenceTables]:
        with self.statements_write() if write else self.statements() as sql:
            yield SqlEvidenceTables(sql)

    def seat_tables(self) -> SeatTables:
        return SqlSeatTables(self.statements, self.statements_write)

    # --- reading --------------------------------------------------------------------
    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: it changes when another connection (another
        process) commits to the file, never for this connection's own commits."""
        if self._batch is not None and self._known.mark is not None:
            return self._known.mark  # read under the write lock this batch holds: no other commit since
        with self._reading():
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def version(self, game_id: str) -> int:
        with self._reading():
            return int(self._conn.execute(self._q.VERSION, (game_id,)).fetchone()[0])

    def game_ids(self) -> list[str]:
        with self._reading():
            return [r[0] for r in self._conn.execute(self._q.GAME_IDS)]

    def game_count(self) -> int:
        with self._reading():
            return int(self._conn.execute(self._q.GAME_COUNT).fetchone()[0])

    def last_position(self) -> int:
        with self._reading():
            return int(self._conn.execute(self._q.LAST_POSITION).fetchone()[0])

    def wait_for_append(self, timeout: float) -> bool:
        """SQLite has no notification: a short sleep (at most ``timeout`` seconds), and
        False (no hint came)."""
        time.sleep(min(timeout, self.APPEND_POLL))
        return False

    #: seconds a follower of the global order waits between two reads (no hint comes on SQLite)
    APPEND_POLL = 0.05

    def _payloads(self, game_id: str) -> Iterator[tuple[int, str | bytes]]:
        return self._conn.execute(self._q.PAYLOADS, (game_id,))

    def _all_payloads(self) -> Iterator[tuple[str, int, str | bytes]]:
        return self._conn.execute(self._q.ALL_PAYLOADS)

    def _chain_rows(self, game_id: str | None) -> Iterator[ChainRow]:
        if self._lean:
            return self._lean_rows(game_id)  # with None for what the previous row gives (base.ChainRow)
        sql = q.CHAIN_ROWS.format(payload="CAST(payload AS BLOB)", chain=self._chain)
        if game_id is None:
            return self._conn.execute(sql + " ORDER BY game_id, seq")
        return self._conn.execute(sql + " WHERE game_id = ? ORDER BY seq", (game_id,))

    def _lean_rows(self, game_id: str | None, payload: str = lean.PAYLOAD_BYTES) -> sqlite3.Cursor:
        sql = lean.SELECT_CHAIN.format(payload=payload)
        if game_id is None:
            return self._conn.execute(sql + " ORDER BY k.game_id, r.seq")
        return self._conn.execute(sql + " WHERE k.game_id = ? ORDER BY r.seq", (game_id,))

    def _record_rows(self, game_id: str) -> Iterator[RecordRow]:
        if self._lean:
            return lean.record_rows(self._lean_rows(game_id, lean.PAYLOAD))
        return self._conn.execute(q.RECORD_ROWS.format(chain=self._chain), (game_id,))

    def _feed_rows(self, after: int, limit: int) -> list[tuple[int, str, int, str | bytes]]:
        return self._conn.execute(self._q.FEED_ROWS, (after, limit)).fetchall()

    def _first_payload(self, game_id: str) -> str | bytes:
        if self._lean:
            return self._conn.execute(lean.FIRST_PAYLOAD, (game_id,)).fetchone()[0]
        return str(self._conn.execute(q.FIRST_PAYLOAD, (game_id,)).fetchone()[0])

    def hash_rows(self, game_id: str, after: int = 0) -> list[tuple[int, str, str]]:
        with self._reading():
            if self._lean:
                return [(s, t, lean.hash_text(h)) for s, t, h in self._conn.execute(lean.HASH_ROWS, (game_id, after))]
            return self._conn.execute(q.HASH_ROWS, (game_id, after)).fetchall()

    def _game_rows(self, player: str | None = None, variant: str | None = None) -> list[tuple[Any, ...]]:
        sql, args = q.games_query(SQLITE, player, variant)
        return self._conn.execute(sql, args).fetchall()

    def _projection_sources(self) -> tuple[Iterable[tuple[str, int, int]], Iterable[tuple[str, int, str, str | bytes, str]]]:
        if self._lean:
            return self._conn.execute(lean.GAME_COUNTS).fetchall(), lean.folded_rows(self._conn.execute(lean.FOLDED_ROWS))
        return self._conn.execute(q.GAME_COUNTS).fetchall(), self._conn.execute(q.FOLDED_ROWS)

    def trigger_problems(self) -> list[str]:
        """The append-only triggers that are missing or changed."""
        with self._reading():
            return trigger_problems(self._conn)

    # --- copying --------------------------------------------------------------------
    def backup(self, dest: str | Path) -> None:
        """Copy the store, committed WAL content included, to a new file ``dest`` through
        SQLite's online backup API (a consistent snapshot, even while others append).
        The copy is written beside ``dest`` and renamed into place; an existing ``dest``
        is refused."""
        dest, tmp = backup_paths(dest)
        try:
            target = sqlite3.connect(tmp)
            try:
                with self._reading():
                    self._conn.backup(target)
                target.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            finally:
                target.close()
            os.replace(tmp, dest)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot back up to {dest}: {exc}") from None
        except OSError as exc:
            raise StoreError(f"cannot back up to {dest}: {exc.strerror or exc}") from None
        finally:
            for leftover in (tmp, Path(f"{tmp}-journal")):
                if leftover.exists():
                    leftover.unlink()


def backup_paths(dest: str | Path) -> tuple[Path, Path]:
    """``(dest, tmp)`` for a backup: the new file, and where it is written first (beside it,
    renamed into place when whole).  :class:`StoreError` when ``dest`` exists or its
    directory does not."""
    import secrets

    dest = Path(dest)
    if dest.exists():
        raise StoreError(f"cannot back up to {dest}: it exists (choose a new file)")
    directory = dest.parent if str(dest.parent) else Path(".")
    if not directory.is_dir():
        raise StoreError(f"cannot back up to {dest}: directory {directory} does not exist")
    return dest, directory / f".{dest.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"



def _enable_wal(conn: sqlite3.Connection, path: Path) -> None:
    """Switch a new store to WAL.  The switch needs an exclusive lock, for which SQLite
    does not wait when another process is opening the same new file; so retry."""
    for attempt in range(300):
        try:
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            if mode != "wal":
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode != "wal":
                raise StoreError(f"{path}: cannot use WAL mode here (journal mode stays {mode!r})")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            time.sleep(0.01 * min(attempt + 1, 10))
    raise StoreError(f"{path}: another process keeps the new store locked; try again")


def _read_problem(exc: sqlite3.DatabaseError) -> str:
    """What a failed read says: SQLite's message, except that a stored text that is not UTF-8
    is named as such (sqlite3's message quotes the statement's SQL and the raw bytes)."""
    if str(exc).startswith("Could not decode to UTF-8"):
        return "a stored event's text is not UTF-8: the store was changed or is corrupt; tonk verify names the event"
    return str(exc)
