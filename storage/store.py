"""The event store: one SQLite file, append-only, hash-chained, with optimistic concurrency.

>>> store = EventStore.open("tonk.db")                      # doctest: +SKIP
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

import sqlite3
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Sequence
from urllib.parse import quote

import msgspec
from sqlite_utils import Database

from ..core.events import EVENT_TYPES, FORMAT_VERSION, Event, GameStarted, decode, encode, event_type
from . import projection
from .chain import CHAIN_VERSION, CHAIN_VERSIONS, CHECK_COLUMNS, GENESIS, ChainFinding, UnknownChainVersion, chain_links, check_chain, scan_link_hash
from .codec import Decoder, decode_error, first_event
from .errors import ConcurrencyError, StoreError, UnknownGame
from .feed import READ_ALL_LIMIT, FeedDecoder, Positioned
from .schema import SCHEMA_VERSION, inspect_file, migrate, trigger_problems
from .statements import SqliteStatements, Statements

BUSY_TIMEOUT_MS = 30_000

_INSERT = (
    "INSERT INTO events (game_id, seq, type, payload, recorded_at, hash, prev_hash, command_id, position, chain) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_LAST_POSITION = "SELECT coalesce(max(position), 0) FROM events"
_LAST = "SELECT seq, hash FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1"
_LAST_TYPE = "SELECT seq, hash, type FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1"
_BY_COMMAND = "SELECT 1 FROM events WHERE game_id = ? AND command_id = ? LIMIT 1"
_RECORD_COLUMNS = "game_id, seq, type, recorded_at, hash, prev_hash, command_id, {chain}, payload"


class Record(msgspec.Struct, frozen=True, kw_only=True):
    """One stored event as it sits in the table (and as a line of a JSONL export):
    ``payload`` holds the canonical event bytes verbatim; ``chain`` is the row's chain
    version (:mod:`.chain`), 1 when a line has none."""

    game_id: str
    seq: int
    type: str
    recorded_at: str
    hash: str
    prev_hash: str
    command_id: str = ""
    chain: int = 1
    payload: msgspec.Raw


def now() -> str:
    """The time recorded with an append: UTC, ISO 8601 with microseconds."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class EventStore:
    """An open store.  Use :meth:`open`; close it, or use it as a context manager."""

    def __init__(self, db: Database, path: Path):
        self.db = db
        self.path = path
        self._conn: sqlite3.Connection = db.conn
        # a store of an older schema opened read only has no chain column: its rows are all version 1
        try:
            columns = {r[1] for r in self._conn.execute("PRAGMA table_info(events)")}
        except sqlite3.DatabaseError as exc:
            db.close()
            raise StoreError(f"{path}: cannot read the store ({exc})") from None
        self._chain = "chain" if "chain" in columns or not columns else "1"

    # --- opening --------------------------------------------------------------------
    @classmethod
    def open(
        cls, path: str | Path, create: bool = True, *, durable: bool = True, integrity_check: bool = True, read_only: bool = False
    ) -> "EventStore":
        """Open the store at ``path``, creating it (``create=True``) if the file is missing.

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
            _enable_wal(conn, path)
            conn.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
            if version != SCHEMA_VERSION:
                migrate(db, path)
        except sqlite3.Error as exc:
            db.close()
            raise StoreError(f"cannot open {path}: {exc}") from None
        except BaseException:
            db.close()
            raise
        return cls(db, path)

    @classmethod
    def open_read_only(cls, path: str | Path, *, integrity_check: bool = True) -> "EventStore":
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

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "EventStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"EventStore({str(self.path)!r})"

    # --- transactions ---------------------------------------------------------------
    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction holding the database's write lock from the start."""
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"{self.path}: cannot start a write ({exc})") from None
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"{self.path}: the write failed and was rolled back: nothing of this write is stored ({exc})") from None
            raise

    @contextmanager
    def statements(self) -> Iterator[Statements]:
        """Reads of the store's side tables (the evidence log), ``?`` parameters; in a
        :meth:`statements_write`, the write's own connection."""
        with self._reading():
            yield SqliteStatements(self._conn)

    @contextmanager
    def statements_write(self) -> Iterator[Statements]:
        """One write transaction on the side tables, holding the store's write lock (no
        append lands until it ends)."""
        with self._write() as conn:
            yield SqliteStatements(conn)

    # --- writing --------------------------------------------------------------------
    def append(self, game_id: str, events: Sequence[Event], expected_version: int, command_id: str | None = None) -> int:
        """Append ``events`` after ``expected_version`` events of the game, in one transaction.

        Returns the new version.  If another writer got there first, raises
        :class:`ConcurrencyError` and writes nothing.  If ``command_id`` was already
        recorded for the game, the append is a no-op returning the current version."""
        events, encoded, cmd = checked_append(game_id, events, expected_version, command_id)
        with self._write() as conn:
            if cmd and conn.execute(_BY_COMMAND, (game_id, cmd)).fetchone():
                return conn.execute(_LAST, (game_id,)).fetchone()[0]
            last = conn.execute(_LAST_TYPE, (game_id,)).fetchone()
            actual, rows, at = rows_after(
                game_id, events, encoded, cmd, expected_version, last, lambda: conn.execute(_LAST_POSITION).fetchone()[0]
            )
            if not rows:
                return actual
            conn.executemany(_INSERT, rows)
            projection.update(conn, game_id, events, at, new=actual == 0)
            return actual + len(rows)

    def _insert_records(self, conn: sqlite3.Connection, game_id: str, records: Sequence[Record], events: Sequence[Event]) -> None:
        """Write already verified records of a game absent from the store (import), inside
        a transaction of :meth:`_write`."""
        if conn.execute(_LAST, (game_id,)).fetchone():
            raise StoreError(f"game {game_id} was stored by another writer during the import")
        start = conn.execute(_LAST_POSITION).fetchone()[0]
        conn.executemany(
            _INSERT,
            (
                (r.game_id, r.seq, r.type, bytes(r.payload).decode("utf-8"), r.recorded_at, r.hash, r.prev_hash, r.command_id, start + i, r.chain)
                for i, r in enumerate(records, 1)
            ),
        )
        projection.update(conn, game_id, events, [r.recorded_at for r in records], new=True)

    # --- reading --------------------------------------------------------------------
    def version(self, game_id: str) -> int:
        """The number of events stored for the game (0 for a game never appended to)."""
        with self._reading():
            return self._conn.execute("SELECT max(seq) FROM events WHERE game_id = ?", (game_id,)).fetchone()[0] or 0

    def read(self, game_id: str) -> list[Event]:
        """All the game's events in order; :class:`UnknownGame` if it has none."""
        with self._reading():
            rows = self._conn.execute("SELECT seq, payload FROM events WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        if not rows:
            raise UnknownGame(game_id)
        return _decode_rows(game_id, rows)

    def iter_events(self, game_id: str) -> Iterator[tuple[int, Event]]:
        """Stream the game's events as ``(seq, event)``; :class:`UnknownGame` if it has none."""
        with self._reading():
            cur = self._conn.execute("SELECT seq, payload FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
            row = cur.fetchone()
        if row is None:
            raise UnknownGame(game_id)
        return self._stream(game_id, row, cur)

    def _stream(self, game_id: str, row: tuple, cur: sqlite3.Cursor) -> Iterator[tuple[int, Event]]:
        seq, payload = row
        try:
            event, dec = first_event(payload)
        except (msgspec.DecodeError, msgspec.ValidationError, StoreError) as exc:
            raise decode_error(game_id, seq, exc) from None
        yield seq, event
        with self._reading():
            for seq, payload in cur:
                try:
                    event = dec(payload)
                except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                    raise decode_error(game_id, seq, exc) from None
                yield seq, event

    # --- the global order (subscribers) ----------------------------------------------
    def last_position(self) -> int:
        """The position of the last event appended to the store (0 when empty)."""
        with self._reading():
            return self._conn.execute(_LAST_POSITION).fetchone()[0]

    def read_all(self, after: int = 0, limit: int = READ_ALL_LIMIT) -> list[Positioned]:
        """Up to ``limit`` events of every game with a position above ``after``, in
        position order (the order their appends committed; see :mod:`.feed`)."""
        with self._reading():
            rows = self._conn.execute(
                "SELECT position, game_id, seq, payload FROM events WHERE position > ? ORDER BY position LIMIT ?", (after, limit)
            ).fetchall()
            feed = FeedDecoder(self._first_payload)
            return [feed.decode(*row) for row in rows]

    def _first_payload(self, game_id: str) -> str:
        return self._conn.execute("SELECT payload FROM events WHERE game_id = ? AND seq = 1", (game_id,)).fetchone()[0]

    def wait_for_append(self, timeout: float) -> bool:
        """Wait a little before the next :meth:`read_all`.  SQLite has no notification:
        a short sleep (at most ``timeout`` seconds), and False (no hint came)."""
        time.sleep(min(timeout, 0.05))
        return False

    def game_ids(self) -> list[str]:
        with self._reading():
            return [r[0] for r in self._conn.execute("SELECT DISTINCT game_id FROM events ORDER BY game_id")]

    def game_count(self) -> int:
        """The number of games with events in the store."""
        with self._reading():
            return self._conn.execute("SELECT count(DISTINCT game_id) FROM events").fetchone()[0]

    def iter_games(self) -> Iterator[tuple[str, list[Event]]]:
        """Stream every game (ordered by id) with its events; one game in memory at a time."""
        current: str | None = None
        rows: list[tuple[int, str]] = []
        with self._reading():
            cur = self._conn.execute("SELECT game_id, seq, payload FROM events ORDER BY game_id, seq")
            for game_id, seq, payload in cur:
                if game_id != current:
                    if rows:
                        yield current, _decode_rows(current, rows)
                    current, rows = game_id, []
                rows.append((seq, payload))
        if rows:
            yield current, _decode_rows(current, rows)

    def iter_verified_games(self, game_ids: Sequence[str] | None = None) -> Iterator["VerifiedGame"]:
        """Every game (ordered by id; or the games ``game_ids``, in that order) read once:
        the hash chain and sequence checked and the events decoded in the same pass.

        Yields one :class:`VerifiedGame` per game, one game in memory at a time.  A game
        whose chain holds (and whose payloads all decode) costs one scan of its rows;
        a game with any broken link or undecodable payload is read again through
        :meth:`verify` and :meth:`iter_events`, so its ``chain`` findings are exactly
        what :meth:`verify` reports and ``decode_error`` what :meth:`iter_events` raises
        (``events`` then holds the events decoded before it).  :class:`UnknownGame` for a
        named game with no events."""
        sql = f"SELECT game_id, seq, type, CAST(payload AS BLOB), hash, prev_hash, {self._chain}, recorded_at, command_id FROM events"
        with self._reading():
            if game_ids is None:
                yield from self._verified(self._conn.execute(sql + " ORDER BY game_id, seq"))
                return
        for gid in game_ids:
            with self._reading():
                cur = self._conn.execute(sql + " WHERE game_id = ? ORDER BY seq", (gid,))
            found = False
            for game in self._verified(cur):
                found = True
                yield game
            if not found:
                raise UnknownGame(gid)

    def _verified(self, cur: sqlite3.Cursor) -> Iterator["VerifiedGame"]:
        current: str | None = None
        events: list[Event] = []
        append = events.append
        dec: Decoder = decode
        ok = True
        want = 1
        last = GENESIS
        type_name = _TYPE_NAME_OF.get
        link_hash = scan_link_hash()
        with self._reading():
            for game_id, seq, type_, data, hash_, prev_hash, chain, at, cmd in cur:
                if game_id != current:
                    if current is not None:
                        yield self._finish_verified(current, events, ok, want - 1)
                    current, events, ok, want, last = game_id, [], True, 1, GENESIS
                    append = events.append
                    if seq == 1 and prev_hash == GENESIS and chain in CHAIN_VERSIONS and link_hash(GENESIS, data, chain, at, cmd) == hash_:
                        try:
                            event, dec = first_event(data)
                            if dec is decode:  # today's format: the decoder's own method, one call less per event
                                dec = _EVENT_DECODER.decode
                        except (msgspec.DecodeError, msgspec.ValidationError, StoreError, UnicodeDecodeError):
                            ok = False
                            continue
                        if type(event) is GameStarted and event.game_id == game_id and type_ == "game_started":
                            append(event)
                            want, last = 2, hash_
                            continue
                    ok = False
                    continue
                if not ok:
                    continue
                if seq != want or prev_hash != last:
                    ok = False
                    continue
                try:
                    h = link_hash(last, data, chain, at, cmd)
                except UnknownChainVersion:
                    ok = False
                    continue
                if h != hash_:
                    ok = False
                    continue
                try:
                    event = dec(data)
                except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
                    ok = False
                    continue
                if type_name(type(event)) != type_:  # i.e. type(event) is not EVENT_TYPES.get(type_)
                    ok = False  # the type column does not match the payload
                    continue
                append(event)
                want += 1
                last = h
        if current is not None:
            yield self._finish_verified(current, events, ok, want - 1)

    def _finish_verified(self, game_id: str, events: list[Event], ok: bool, version: int) -> "VerifiedGame":
        if ok:
            return VerifiedGame(game_id, events, version, [], None)
        # a broken link somewhere: the game again, through the reference paths
        chain = self.verify(game_id)
        events = []
        error: StoreError | None = None
        try:
            for _, e in self.iter_events(game_id):
                events.append(e)
        except StoreError as exc:
            error = exc
        return VerifiedGame(game_id, events, self.version(game_id), chain, error)

    def records(self, game_id: str) -> Iterator[Record]:
        """The game's rows as stored (for export); :class:`UnknownGame` if it has none."""
        with self._reading():
            cur = self._conn.execute(f"SELECT {_RECORD_COLUMNS.format(chain=self._chain)} FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
            first = cur.fetchone()
        if first is None:
            raise UnknownGame(game_id)
        return self._records(first, cur)

    def _records(self, first: tuple, cur: sqlite3.Cursor) -> Iterator[Record]:
        yield _record(first)
        with self._reading():
            for row in cur:
                yield _record(row)

    def last_hash(self, game_id: str) -> str | None:
        with self._reading():
            row = self._conn.execute(_LAST, (game_id,)).fetchone()
        return row[1] if row else None

    def hashes_after(self, game_id: str, seq: int) -> list[str]:
        """The chain hashes of the game's events after ``seq``, in order (what a cached fold
        that holds the first ``seq`` needs after an append)."""
        with self._reading():
            return [r[0] for r in self._conn.execute("SELECT hash FROM events WHERE game_id = ? AND seq > ? ORDER BY seq", (game_id, seq))]

    def games(self, player: str | None = None, variant: str | None = None) -> list[dict[str, Any]]:
        """Rows of the ``games`` projection, oldest first, optionally only games with
        ``player`` seated or house-rule ``variant`` pinned."""
        with self._reading():
            return projection.select(self._conn, player, variant)

    def checked_games(self, player: str | None = None, variant: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
        """The rows of :meth:`games` as the events give them (never a row the events do not
        support), and the ids of games whose stored row disagrees (``tonk verify`` names how)."""
        with self._reading(), self.snapshot():
            return projection.derived_rows(self._conn, player, variant)

    # --- copying --------------------------------------------------------------------
    def backup(self, dest: str | Path) -> None:
        """Copy the store, committed WAL content included, to a new file ``dest`` through
        SQLite's online backup API (a consistent snapshot, even while others append).
        The copy is written beside ``dest`` and renamed into place; an existing ``dest``
        is refused."""
        import os

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

    # --- integrity ------------------------------------------------------------------
    def projection_findings(self) -> list[projection.ProjectionFinding]:
        """Every difference between the ``games`` projection and the events."""
        with self._reading(), self.snapshot():
            return projection.findings(self._conn)

    def trigger_problems(self) -> list[str]:
        """The append-only triggers that are missing or changed."""
        with self._reading():
            return trigger_problems(self._conn)

    def verify(self, game_id: str | None = None) -> list[ChainFinding]:
        """Recompute the hash chain and check seq continuity: the first broken link of
        each game (all games, or one)."""
        sql = f"SELECT {CHECK_COLUMNS.replace('chain', self._chain)} FROM events"
        with self._reading():
            if game_id is None:
                return list(check_chain(self._conn.execute(sql + " ORDER BY game_id, seq")))
            rows = self._conn.execute(sql + " WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        if not rows:
            raise UnknownGame(game_id)
        return list(check_chain(rows))

    def rebuild_projection(self) -> None:
        """Recompute the ``games`` table from the events alone."""
        with self._write() as conn:
            conn.execute("DELETE FROM games")
            summary: projection.GameSummary | None = None
            dec: Decoder = decode
            cur = conn.cursor()
            for game_id, seq, payload, at in cur.execute("SELECT game_id, seq, payload, recorded_at FROM events ORDER BY game_id, seq"):
                try:
                    if summary is None or game_id != summary.game_id:
                        if summary is not None:
                            projection.write(conn, [summary])
                        summary = projection.GameSummary(game_id)
                        event, dec = first_event(payload)
                    else:
                        event = dec(payload)
                except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                    raise decode_error(game_id, seq, exc) from None
                summary.apply(event, at)
            if summary is not None:
                projection.write(conn, [summary])

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Read in one transaction: every read inside sees the store as of one moment
        (an export's header and its events agree even while others append)."""
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

    @contextmanager
    def _reading(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot read the store ({exc})") from None


def backup_paths(dest: str | Path) -> tuple[Path, Path]:
    """``(dest, tmp)`` for a backup: the new file, and where it is written first (beside it,
    renamed into place when whole).  :class:`StoreError` when ``dest`` exists or its
    directory does not."""
    import os
    import secrets

    dest = Path(dest)
    if dest.exists():
        raise StoreError(f"cannot back up to {dest}: it exists (choose a new file)")
    directory = dest.parent if str(dest.parent) else Path(".")
    if not directory.is_dir():
        raise StoreError(f"cannot back up to {dest}: directory {directory} does not exist")
    return dest, directory / f".{dest.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"


_EVENT_CLASSES = frozenset(EVENT_TYPES.values())
#: the same decoding as ``tonk.core.events.decode`` for today's format (which has nothing to upcast)
_EVENT_DECODER = msgspec.json.Decoder(Event)
#: each event class's type name: EVENT_TYPES inverted (one name per class, tested), so the
#: scan compares the type column with the decoded event's name (a lookup keyed by the class
#: instead of hashing the column's fresh string)
_TYPE_NAME_OF = {cls: name for name, cls in EVENT_TYPES.items()}


class VerifiedGame(NamedTuple):
    """One game from :meth:`EventStore.iter_verified_games`.

    ``events``: the decoded events (all of them when ``decode_error`` is ``None``);
    ``version``: the number of events stored (the highest seq); ``chain``: the first
    broken link of the hash chain (empty when it holds); ``decode_error``: why a
    payload could not be decoded, or ``None``."""

    game_id: str
    events: list[Event]
    version: int
    chain: list[ChainFinding]
    decode_error: StoreError | None

    @property
    def intact(self) -> bool:
        return not self.chain and self.decode_error is None


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


def _record(row: tuple) -> Record:
    gid, seq, type_, at, h, prev, cmd, chain, payload = row
    return Record(
        game_id=gid,
        seq=seq,
        type=type_,
        recorded_at=at,
        hash=h,
        prev_hash=prev,
        command_id=cmd,
        chain=chain,
        payload=msgspec.Raw(payload.encode("utf-8")),
    )



def checked_append(
    game_id: str, events: Iterable[Event], expected_version: int, command_id: str | None
) -> tuple[list[Event], list[tuple[str, bytes]], str]:
    """The arguments of an append checked (on any back end): the events, each event's tag
    and canonical bytes, and the command id as text (``""`` for none)."""
    if not isinstance(game_id, str) or not game_id:
        raise StoreError("a game id must be non-empty text")
    if isinstance(expected_version, bool) or not isinstance(expected_version, int) or expected_version < 0:
        raise StoreError(f"game {game_id}: expected_version must be a whole number >= 0, not {expected_version!r}")
    events = list(events)
    cmd = command_id or ""
    if not isinstance(cmd, str) or not _is_utf8(cmd):
        raise StoreError(f"game {game_id}: a command id must be text (UTF-8), not {cmd!r}")
    encoded = []
    for i, e in enumerate(events):
        if type(e) not in _EVENT_CLASSES:
            raise StoreError(f"game {game_id}: item {i} of the append is not an event ({type(e).__name__})")
        encoded.append((e.__struct_config__.tag, encode(e)))
    return events, encoded, cmd


def rows_after(
    game_id: str,
    events: list[Event],
    encoded: list[tuple[str, bytes]],
    cmd: str,
    expected_version: int,
    last: tuple[int, str, str] | None,
    last_position: Callable[[], int],
) -> tuple[int, list[tuple], str]:
    """The rules of an append, on any back end, given the game's last stored row ``last``
    (its seq, hash and type; None for a new game): the expected version
    (:class:`ConcurrencyError`), how a game starts, nothing after its end, and the
    chained rows to insert (positions after ``last_position()``, asked only when there
    are rows).  Returns the game's version before the append, the rows and their time."""
    actual, prev, last_type = last if last else (0, GENESIS, "")
    if actual != expected_version:
        raise ConcurrencyError(game_id, expected_version, actual)
    if not events:
        return actual, [], ""
    _check_starts(game_id, events, encoded, actual)
    _check_not_after_end(game_id, encoded, actual, last_type)
    at = now()
    links = chain_links(prev, [data for _, data in encoded], at, cmd)
    start = last_position()
    rows = [
        (game_id, actual + i, tag, data.decode("utf-8"), at, h, p, cmd, start + i, CHAIN_VERSION)
        for i, ((tag, data), (p, h)) in enumerate(zip(encoded, links), 1)
    ]
    return actual, rows, at

def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_starts(game_id: str, events: list[Event], encoded: list[tuple[str, bytes]], version: int) -> None:
    """A game starts with its own game_started and has only that one."""
    first = events[0]
    if version == 0:
        if not isinstance(first, GameStarted):
            raise StoreError(f"game {game_id}: a new game's first event must be game_started, not {event_type(first)}")
        if first.game_id != game_id:
            raise StoreError(f"game_started of game {first.game_id} cannot be appended to game {game_id}")
        if first.format_version != FORMAT_VERSION:
            raise StoreError(
                f"game {game_id}: game_started says format version {first.format_version}; this engine writes version {FORMAT_VERSION}"
            )
    for i, (tag, _) in enumerate(encoded):
        if tag == "game_started" and (version or i):
            raise StoreError(f"game {game_id}: a second game_started (at seq {version + i + 1})")


def _check_not_after_end(game_id: str, encoded: list[tuple[str, bytes]], version: int, last_type: str) -> None:
    """An ended game takes no more events: nothing after a game_ended, stored or in the append."""
    if last_type == "game_ended":
        raise StoreError(f"game {game_id} has ended (seq {version} is its game_ended): nothing can be appended after it")
    for i, (tag, _) in enumerate(encoded[:-1]):
        if tag == "game_ended":
            raise StoreError(f"game {game_id}: {encoded[i + 1][0]} at seq {version + i + 2} follows the game_ended at seq {version + i + 1}")


def _decode_rows(game_id: str, rows: list[tuple[int, str]]) -> list[Event]:
    try:
        first, dec = first_event(rows[0][1])
    except (msgspec.DecodeError, msgspec.ValidationError, StoreError) as exc:
        raise decode_error(game_id, rows[0][0], exc) from None
    try:
        out = [first]
        out.extend([dec(p) for _, p in rows[1:]])
        return out
    except (msgspec.DecodeError, msgspec.ValidationError):
        for seq, p in rows[1:]:
            try:
                dec(p)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise decode_error(game_id, seq, exc) from None
        raise
