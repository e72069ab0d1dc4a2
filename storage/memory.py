"""The in-memory back end of the store contract (:mod:`.base`): Python lists, for tests and
throwaway simulations (``--db :memory:``); gone when the process ends.

>>> store = MemoryEventStore.open_memory()                 # doctest: +SKIP

A :class:`MemoryDatabase` is what a SQL database is to its stores: the rows (events in
position order, the ``games`` projection, the evidence and served tables), shared by
every store opened on it, in one process.  One lock serialises the writes (the append
lock) and the snapshots; a write transaction keeps an undo log, so a refused write
leaves nothing behind.  Rows are tuples in the SQL stores' column order, replaced never.
"""

from __future__ import annotations

import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .append_rules import EventRow, LastRow
from .base import ChainRow, EventStore, ProjectionRow, RecordRow
from .errors import StoreError
from .evidence_log import COLUMNS as EVIDENCE_COLUMNS
from .evidence_log import EvidenceTables
from .memory_tables import MemoryEvidenceTables, MemorySeatTables
from .seats import SeatTables

TARGET = ":memory:"


class MemoryDatabase:
    """The rows of an in-memory store (see the module's doc)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.appended = threading.Condition(self.lock)
        self.created = False
        self.events: list[EventRow] = []  # position order: the row at index i has position i + 1
        self.by_game: dict[str, list[EventRow]] = {}
        self.games: dict[str, tuple[Any, ...]] = {}
        self.tables: dict[str, list[tuple[Any, ...]]] = {name: [] for name in EVIDENCE_COLUMNS}
        self.served: dict[str, list[Any]] = {}  # game_id -> [settings, closed], in creation order
        self.tokens: dict[tuple[str, str], str] = {}
        self._key_dir: tempfile.TemporaryDirectory[str] | None = None

    def key_dir(self) -> Path:
        """A private directory for the store's signing key, removed with the database."""
        if self._key_dir is None:
            self._key_dir = tempfile.TemporaryDirectory(prefix="tonk-memory-")
        return Path(self._key_dir.name)

    @contextmanager
    def write(self) -> Iterator[list[Callable[[], None]]]:
        """Hold the lock; undo what was done (the callables given, newest first) if it fails."""
        with self.lock:
            undo: list[Callable[[], None]] = []
            try:
                yield undo
            except BaseException:
                for step in reversed(undo):
                    step()
                raise


class MemoryTransaction:
    """One write transaction (:class:`~.base.Transaction`) on the database, under its lock."""

    def __init__(self, db: MemoryDatabase, undo: list[Callable[[], None]]):
        self._db = db
        self._undo = undo

    def command_seen(self, game_id: str, command_id: str) -> bool:
        return any(r[7] == command_id for r in self._db.by_game.get(game_id, ()))

    def last(self, game_id: str) -> LastRow | None:
        rows = self._db.by_game.get(game_id)
        return (rows[-1][1], rows[-1][5], rows[-1][2]) if rows else None

    def last_position(self) -> int:
        return len(self._db.events)

    def game_row(self, game_id: str) -> tuple[Any, ...] | None:
        return self._db.games.get(game_id)

    def insert(self, rows: list[EventRow], game_row: tuple[Any, ...]) -> None:
        db, gid = self._db, game_row[0]
        events, game = len(db.events), db.by_game.setdefault(gid, [])
        held, before = len(game), db.games.get(gid)

        def undo() -> None:
            del db.events[events:], game[held:]
            if not game:
                db.by_game.pop(gid, None)
            if before is None:
                db.games.pop(gid, None)
            else:
                db.games[gid] = before

        self._undo.append(undo)
        db.events.extend(rows)
        game.extend(rows)
        db.games[gid] = game_row
        db.appended.notify_all()

    def scan(self) -> Iterable[ProjectionRow]:
        return [(r[0], r[1], r[3], r[4]) for gid in sorted(self._db.by_game) for r in self._db.by_game[gid]]

    def replace_games(self, rows: Iterable[tuple[Any, ...]]) -> None:
        db, before = self._db, self._db.games
        self._undo.append(lambda: setattr(db, "games", before))
        db.games = {row[0]: row for row in rows}


class MemoryEventStore(EventStore):
    """An open in-memory store.  Use :meth:`open_memory` (or ``EventStore.open(":memory:")``,
    a new database each time); close it, or use it as a context manager."""

    def __init__(self, db: MemoryDatabase, read_only: bool = False):
        self.db = db
        self.read_only = read_only

    @classmethod
    def open_memory(cls, db: MemoryDatabase | None = None, create: bool = True, *, read_only: bool = False) -> "MemoryEventStore":
        """A store on ``db`` (a new database when None); ``create=False`` refuses a database
        no store was opened on with ``create``, as a missing file is refused."""
        db = db or MemoryDatabase()
        with db.lock:
            if not db.created and (not create or read_only):
                raise StoreError(f"no tonk store at {TARGET}")
            db.created = True
        return cls(db, read_only)

    @property
    def path(self) -> str:
        return TARGET

    def close(self) -> None:
        pass  # the rows stay with the database, as a file's stay when its store is closed

    def default_key_path(self) -> Path:
        return self.db.key_dir() / "store.key"

    @contextmanager
    def _transaction(self) -> Iterator[MemoryTransaction]:
        if self.read_only:
            raise StoreError(f"{TARGET} is open for reading only: nothing can be written")
        with self.db.write() as undo:
            yield MemoryTransaction(self.db, undo)

    @contextmanager
    def _reading(self) -> Iterator[None]:
        yield

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        with self.db.lock:
            yield

    @contextmanager
    def evidence(self, *, write: bool = False) -> Iterator[EvidenceTables]:
        if not write:
            with self.db.lock:
                yield MemoryEvidenceTables(self.db, [])
            return
        if self.read_only:
            raise StoreError(f"{TARGET} is open for reading only: nothing can be written")
        with self.db.write() as undo:
            yield MemoryEvidenceTables(self.db, undo)

    def seat_tables(self) -> SeatTables:
        return MemorySeatTables(self.db)

    # --- reading: copies of the rows taken under the lock -------------------------------
    def _rows(self, game_id: str) -> list[EventRow]:
        with self.db.lock:
            return list(self.db.by_game.get(game_id, ()))

    def _every_game(self) -> list[list[EventRow]]:
        with self.db.lock:
            return [list(self.db.by_game[gid]) for gid in sorted(self.db.by_game)]

    def version(self, game_id: str) -> int:
        rows = self._rows(game_id)
        return rows[-1][1] if rows else 0

    def game_ids(self) -> list[str]:
        with self.db.lock:
            return sorted(self.db.by_game)

    def game_count(self) -> int:
        return len(self.db.by_game)

    def last_position(self) -> int:
        return len(self.db.events)

    def wait_for_append(self, timeout: float) -> bool:
        with self.db.appended:
            return self.db.appended.wait(timeout)

    def _payloads(self, game_id: str) -> Iterator[tuple[int, str | bytes]]:
        return iter([(r[1], r[3]) for r in self._rows(game_id)])

    def _all_payloads(self) -> Iterator[tuple[str, int, str | bytes]]:
        return iter([(r[0], r[1], r[3]) for rows in self._every_game() for r in rows])

    def _chain_rows(self, game_id: str | None) -> Iterator[ChainRow]:
        games = self._every_game() if game_id is None else [self._rows(game_id)]
        return iter([(r[0], r[1], r[2], r[3].encode("utf-8"), r[5], r[6], r[9], r[4], r[7]) for rows in games for r in rows])

    def _record_rows(self, game_id: str) -> Iterator[RecordRow]:
        return iter([(r[0], r[1], r[2], r[4], r[5], r[6], r[7], r[9], r[3]) for r in self._rows(game_id)])

    def _feed_rows(self, after: int, limit: int) -> list[tuple[int, str, int, str | bytes]]:
        with self.db.lock:
            window = self.db.events[max(after, 0) : max(after, 0) + max(limit, 0)]
        return [(r[8], r[0], r[1], r[3]) for r in window]

    def _first_payload(self, game_id: str) -> str | bytes:
        return self._rows(game_id)[0][3]

    def hash_rows(self, game_id: str, after: int = 0) -> list[tuple[int, str, str]]:
        return [(r[1], r[2], r[5]) for r in self._rows(game_id) if r[1] > after]

    def _game_rows(self, player: str | None = None, variant: str | None = None) -> list[tuple[Any, ...]]:
        from .projection import matches, row_to_dict

        with self.db.lock:
            rows = list(self.db.games.values())
        return sorted((r for r in rows if matches(row_to_dict(r), player, variant)), key=lambda r: (r[1], r[0]))

    def _projection_sources(self) -> tuple[Iterable[tuple[str, int, int]], Iterable[tuple[str, int, str, str | bytes, str]]]:
        games = self._every_game()
        counts = [(rows[0][0], len(rows), sum(1 for r in rows if r[2] == "hand_dealt")) for rows in games]
        folded: list[tuple[str, int, str, str | bytes, str]] = [
            (r[0], r[1], r[2], r[3], r[4]) for rows in games for r in rows if r[2] in ("game_started", "hand_ended", "game_ended")
        ]
        return counts, folded

    def trigger_problems(self) -> list[str]:
        return []  # no statement reaches the rows: nothing to guard

    def backup(self, dest: str | Path) -> None:
        """A new SQLite file ``dest`` holding every game and the side tables (:func:`~.copy.backup_to_file`)."""
        from .copy import backup_to_file

        backup_to_file(self, dest)
