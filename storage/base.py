"""The store contract: an append-only, hash-chained log of games, whatever holds it.

:class:`EventStore` holds everything that does not speak SQL: the append rules
(:mod:`.append_rules`: the expected version, how a game starts, nothing after its
end, the chain links of :mod:`.chain`), decoding through the format's upcast
(:mod:`.codec`), the one-pass verified scan, the chain check, the import of
verified records and the ``games`` projection's fold (:mod:`.projection`).  A back
end supplies rows and one write transaction (:class:`Transaction`); three do,
as siblings: :class:`~.sqlite.SqliteEventStore` (a file), :class:`~.postgres.PostgresEventStore`
(a server) and :class:`~.memory.MemoryEventStore` (Python lists, for tests and
throwaway simulations).  The same contract suite runs on each
(``tests/storage/contract/``).

>>> store = EventStore.open("tonk.db")                      # doctest: +SKIP
>>> store.append(game.game_id, game.events, expected_version=0)   # doctest: +SKIP
"""

from __future__ import annotations

import itertools
import threading
import weakref
from binascii import hexlify
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ContextManager, Iterable, Iterator, NamedTuple, Protocol, Sequence

import msgspec

from ..core.events import EVENT_TYPES, Event, GameStarted, decode
from . import projection
from .append_rules import EventRow, LastRow, checked_append, rows_after
from .chain import GENESIS, ChainFinding, UnknownChainVersion, at_text, check_chain, link_digest, link_suffix
from .codec import Decoder, decode_error, decode_rows, first_event
from .errors import StoreError, UnknownGame
from .evidence_log import EvidenceTables
from .feed import READ_ALL_LIMIT, FeedDecoder, Positioned, window
from .seats import SeatTables

#: a row of the chain check: game_id, seq, type, payload (the bytes hashed), hash, prev_hash,
#: chain, recorded_at, command_id (:data:`~.chain.CHECK_COLUMNS`); a back end may give None
#: for prev_hash (the game's previous row's hash), recorded_at and command_id (the previous
#: row's; ``""`` for a game's first row), the hash as its bytes and the time as its
#: microseconds: see :func:`~.chain.check_chain`
ChainRow = tuple[str, int, str, bytes, "str | bytes", "str | None", int, "str | int | None", "str | None"]
#: a row of the projection's scan: game_id, seq, payload, recorded_at
ProjectionRow = tuple[str, int, "str | bytes", str]


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

    def row(self, position: int) -> EventRow:
        """The record as a stored row at ``position``."""
        return (
            self.game_id, self.seq, self.type, bytes(self.payload).decode("utf-8"), self.recorded_at,
            self.hash, self.prev_hash, self.command_id, position, self.chain,
        )


#: a stored row in the order of :class:`Record`'s fields: game_id, seq, type, recorded_at,
#: hash, prev_hash, command_id, chain, payload (text or bytes)
RecordRow = tuple[str, int, str, str, str, str, str, int, "str | bytes"]


def record_of(row: RecordRow) -> Record:
    gid, seq, type_, at, h, prev, cmd, chain, payload = row
    data = payload if isinstance(payload, bytes) else payload.encode("utf-8")
    return Record(game_id=gid, seq=seq, type=type_, recorded_at=at, hash=h, prev_hash=prev, command_id=cmd, chain=chain, payload=msgspec.Raw(data))


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


class Transaction(Protocol):
    """One write transaction of a back end, holding its write lock from the start (no
    other append commits in between): what the append and import rules read and write."""

    def command_seen(self, game_id: str, command_id: str) -> bool:
        """Whether the game has an event appended with ``command_id``."""
        ...

    def last(self, game_id: str) -> LastRow | None:
        """The game's last stored row (seq, hash, type), or None for a game with none."""
        ...

    def last_position(self) -> int:
        """The position of the last event stored (0 when none)."""
        ...

    def game_row(self, game_id: str) -> tuple[Any, ...] | None:
        """The game's row of the ``games`` projection (:data:`~.projection.COLUMNS`), or None."""
        ...

    def insert(self, rows: list[EventRow], game_row: tuple[Any, ...]) -> None:
        """Store the rows of one game (positions after :meth:`last_position`) and its new
        projection row."""
        ...

    def scan(self) -> Iterable[ProjectionRow]:
        """Every event as (game_id, seq, payload, recorded_at), by game and seq."""
        ...

    def replace_games(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Empty the ``games`` projection and fill it with ``rows``."""
        ...


#: the same decoding as ``tonk.core.events.decode`` for today's format (which has nothing to upcast)
_EVENT_DECODER = msgspec.json.Decoder(Event)
#: each event class's type name: EVENT_TYPES inverted (one name per class, tested), so the
#: scan compares the type column with the decoded event's name (a lookup keyed by the class
#: instead of hashing the column's fresh string)
_TYPE_NAME_OF = {cls: name for name, cls in EVENT_TYPES.items()}
_GENESIS_B = GENESIS.encode("ascii")
#: no suffix made yet (in the verified scan): unequal to every chain version
_NO_SUFFIX = object()
#: per thread, its last append's rows once committed: (its store, game id, first seq, hashes),
#: for :meth:`EventStore.hashes_after` asked right after it (taken by the first call that follows)
_JUST_APPENDED = threading.local()


class EventStore(ABC):
    """An open store, on any back end.  Open one with :meth:`open` (the back end follows
    from the target); close it, or use it as a context manager."""

    @classmethod
    def open(
        cls, target: str | Path, create: bool = True, *, read_only: bool = False, durable: bool = True, integrity_check: bool = True
    ) -> "EventStore":
        """The store ``target`` names (:func:`~.open.open_store`): a SQLite file, a
        ``postgresql://`` URL or ``:memory:``."""
        from .open import open_store

        return open_store(target, create, read_only=read_only, durable=durable, integrity_check=integrity_check)

    def __enter__(self) -> "EventStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"

    # --- what a back end supplies ------------------------------------------------------
    @property
    @abstractmethod
    def path(self) -> str | Path:
        """What messages name: the file, the URL without its password, or ``:memory:``."""

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def _transaction(self) -> ContextManager[Transaction]:
        """One write transaction (:class:`StoreError` on a store open for reading only)."""

    @abstractmethod
    def _reading(self) -> ContextManager[None]:
        """Turns the back end's errors raised inside into :class:`StoreError`."""

    @abstractmethod
    def snapshot(self) -> ContextManager[None]:
        """Read in one transaction: every read inside sees the store as of one moment
        (an export's header and its events agree even while others append)."""

    @abstractmethod
    def version(self, game_id: str) -> int:
        """The number of events stored for the game (0 for a game never appended to)."""

    @abstractmethod
    def game_ids(self) -> list[str]:
        """The ids of the games with events, in order."""

    @abstractmethod
    def game_count(self) -> int:
        """The number of games with events in the store."""

    @abstractmethod
    def last_position(self) -> int:
        """The position of the last event appended to the store (0 when empty)."""

    @abstractmethod
    def wait_for_append(self, timeout: float) -> bool:
        """Wait a little before the next :meth:`read_all`, at most ``timeout`` seconds; True
        when a hint of a new append came (a hint only: callers read after every wait)."""

    @abstractmethod
    def _payloads(self, game_id: str) -> Iterator[tuple[int, str | bytes]]:
        """The game's (seq, payload) in order, streamed (called inside :meth:`_reading`)."""

    @abstractmethod
    def _all_payloads(self) -> Iterator[tuple[str, int, str | bytes]]:
        """Every (game_id, seq, payload), by game and seq."""

    @abstractmethod
    def _chain_rows(self, game_id: str | None) -> Iterator[ChainRow]:
        """The rows of the chain check, of one game or (None) every game, by game and seq."""

    @abstractmethod
    def _record_rows(self, game_id: str) -> Iterator[RecordRow]:
        """The game's rows as stored, in order, streamed (called inside :meth:`_reading`)."""

    @abstractmethod
    def _feed_rows(self, after: int, limit: int) -> list[tuple[int, str, int, str | bytes]]:
        """Up to ``limit`` (position, game_id, seq, payload) after position ``after``, in order."""

    @abstractmethod
    def _first_payload(self, game_id: str) -> str | bytes:
        """The payload of the game's first event (it exists)."""

    @abstractmethod
    def hash_rows(self, game_id: str, after: int = 0) -> list[tuple[int, str, str]]:
        """(seq, type, hash) of the game's events after seq ``after``, in order."""

    @abstractmethod
    def _game_rows(self, player: str | None = None, variant: str | None = None) -> list[tuple[Any, ...]]:
        """Rows of the ``games`` projection as stored, by start time and id, optionally only
        games with ``player`` seated or house-rule ``variant`` pinned."""

    @abstractmethod
    def _projection_sources(self) -> tuple[Iterable[tuple[str, int, int]], Iterable[tuple[str, int, str, str | bytes, str]]]:
        """What :func:`~.projection.derive` reads: (game_id, events, hands dealt) of every
        game, and (game_id, seq, type, payload, recorded_at) of every game_started,
        hand_ended and game_ended by game and seq."""

    @abstractmethod
    def trigger_problems(self) -> list[str]:
        """The append-only guards that are missing or changed (none for a store that keeps
        its rows out of reach of anything but itself)."""

    @abstractmethod
    def evidence(self, *, write: bool = False) -> ContextManager[EvidenceTables]:
        """The evidence tables (:mod:`.evidence_log`); ``write``: in one write transaction
        holding the store's append lock (no append lands until it ends)."""

    @abstractmethod
    def seat_tables(self) -> SeatTables:
        """The served tables' records (:mod:`.seats`)."""

    @abstractmethod
    def backup(self, dest: str | Path) -> None:
        """A new SQLite file ``dest`` holding everything the store holds; an existing
        ``dest`` is refused."""

    @abstractmethod
    def default_key_path(self) -> Path:
        """Where the store's signing key lives unless ``TONK_KEY_FILE`` says (:mod:`.keys`)."""

    # --- writing --------------------------------------------------------------------
    def append(self, game_id: str, events: Sequence[Event], expected_version: int, command_id: str | None = None) -> int:
        """Append ``events`` after ``expected_version`` events of the game, in one transaction.

        Returns the new version.  If another writer got there first, raises
        :class:`ConcurrencyError` and writes nothing.  If ``command_id`` was already
        recorded for the game, the append is a no-op returning the current version."""
        checked, encoded, cmd = checked_append(game_id, events, expected_version, command_id)
        _JUST_APPENDED.rows = None
        with self._append_transaction() as tx:
            if cmd and tx.command_seen(game_id, cmd):
                found = tx.last(game_id)
                return found[0] if found else 0
            actual, rows, at = rows_after(game_id, checked, encoded, cmd, expected_version, tx.last(game_id), tx.last_position)
            if not rows:
                return actual
            stored = tx.game_row(game_id) if actual else None
            summary = projection.GameSummary.from_row(stored) if stored else projection.GameSummary(game_id)
            summary.apply_many(checked, at)
            tx.insert(rows, summary.row())
        _JUST_APPENDED.rows = (weakref.ref(self), game_id, rows[0][1], [r[5] for r in rows])  # committed (or, deferred, in the open batch)
        return actual + len(rows)

    def _append_transaction(self) -> ContextManager[Transaction]:
        """The transaction of one :meth:`append`: its own (a back end that defers commits
        gives a part of a larger one that it commits later, :meth:`.sqlite.SqliteEventStore.defer_commits`)."""
        return self._transaction()

    def import_games(self, games: Iterable[tuple[str, Sequence[Record], Sequence[Event]]]) -> None:
        """Write already verified records of games absent from the store (an import), all
        in one transaction: each game's records as they are (hashes, times, command ids)
        and its projection row.  :class:`StoreError` if one of them got events meanwhile."""
        with self._transaction() as tx:
            for game_id, records, events in games:
                if tx.last(game_id) is not None:
                    raise StoreError(f"game {game_id} was stored by another writer during the import")
                start = tx.last_position()
                summary = projection.GameSummary(game_id)
                for e, r in zip(events, records):
                    summary.apply(e, r.recorded_at)
                tx.insert([r.row(start + i) for i, r in enumerate(records, 1)], summary.row())

    def rebuild_projection(self) -> None:
        """Recompute the ``games`` table from the events alone."""
        with self._transaction() as tx:
            tx.replace_games(s.row() for s in projection.fold_games(tx.scan()))

    # --- reading --------------------------------------------------------------------
    def read(self, game_id: str) -> list[Event]:
        """All the game's events in order; :class:`UnknownGame` if it has none."""
        with self._reading():
            rows = list(self._payloads(game_id))
        if not rows:
            raise UnknownGame(game_id)
        return decode_rows(game_id, rows)

    def iter_events(self, game_id: str) -> Iterator[tuple[int, Event]]:
        """Stream the game's events as ``(seq, event)``; :class:`UnknownGame` if it has none."""
        with self._reading():
            rows = self._payloads(game_id)
            first = next(rows, None)
        if first is None:
            raise UnknownGame(game_id)
        return self._decoded(game_id, first, rows)

    def _decoded(self, game_id: str, first: tuple[int, str | bytes], rows: Iterator[tuple[int, str | bytes]]) -> Iterator[tuple[int, Event]]:
        seq, payload = first
        try:
            event, dec = first_event(payload)
        except (msgspec.DecodeError, msgspec.ValidationError, StoreError) as exc:
            raise decode_error(game_id, seq, exc) from None
        yield seq, event
        with self._reading():
            for seq, payload in rows:
                try:
                    event = dec(payload)
                except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                    raise decode_error(game_id, seq, exc) from None
                yield seq, event

    def iter_games(self) -> Iterator[tuple[str, list[Event]]]:
        """Stream every game (ordered by id) with its events; one game in memory at a time."""
        current = ""
        rows: list[tuple[int, str | bytes]] = []
        with self._reading():
            for game_id, seq, payload in self._all_payloads():
                if game_id != current:
                    if rows:
                        yield current, decode_rows(current, rows)
                    current, rows = game_id, []
                rows.append((seq, payload))
        if rows:
            yield current, decode_rows(current, rows)

    def records(self, game_id: str) -> Iterator[Record]:
        """The game's rows as stored (for export); :class:`UnknownGame` if it has none."""
        with self._reading():
            rows = self._record_rows(game_id)
            first = next(rows, None)
        if first is None:
            raise UnknownGame(game_id)
        return self._records(first, rows)

    def _records(self, first: RecordRow, rows: Iterator[RecordRow]) -> Iterator[Record]:
        yield record_of(first)
        with self._reading():
            for row in rows:
                yield record_of(row)

    def last_hash(self, game_id: str) -> str | None:
        rows = self.hash_rows(game_id, max(self.version(game_id) - 1, 0))
        return rows[-1][2] if rows else None

    def appended(self, game_id: str, version: int) -> bool:
        """Whether this thread's last append to this store stored the rows of ``game_id`` up
        to ``version`` (not the no-op answer to a command id already recorded, which gives a
        version too, nor a refused append), and no :meth:`hashes_after` has been asked since."""
        just = getattr(_JUST_APPENDED, "rows", None)
        return just is not None and just[0]() is self and just[1] == game_id and just[2] + len(just[3]) - 1 == version

    def hashes_after(self, game_id: str, seq: int) -> list[str]:
        """The chain hashes of the game's events after ``seq``, in order (what a cached fold
        that holds the first ``seq`` needs after an append).  Asked first thing after this
        thread's append to this store stored the game's rows from ``seq + 1`` on, the hashes
        that append computed and stored, not read back (what a served table asks after each
        command; a row, once stored, never changes)."""
        just, _JUST_APPENDED.rows = getattr(_JUST_APPENDED, "rows", None), None
        if just is not None and just[0]() is self and just[1] == game_id and just[2] == seq + 1:
            return just[3]
        return [h for _, _, h in self.hash_rows(game_id, seq)]

    # --- the global order (subscribers) ----------------------------------------------
    def read_all(self, after: int = 0, limit: int = READ_ALL_LIMIT) -> list[Positioned]:
        """Up to ``limit`` events of every game with a position above ``after``, in
        position order (the order their appends committed; see :mod:`.feed`)."""
        after, limit = window(after, limit)
        with self._reading():
            rows = self._feed_rows(after, limit)
            feed = FeedDecoder(self._first_payload)
            return [feed.decode(*row) for row in rows]

    def appended_after(self, after: int = 0, limit: int = READ_ALL_LIMIT) -> list[tuple[int, str, int]]:
        """``(position, game id, seq)`` of what :meth:`read_all` reads, without decoding a
        payload (a follower that only needs to know which games grew)."""
        after, limit = window(after, limit)
        with self._reading():
            return [(row[0], row[1], row[2]) for row in self._feed_rows(after, limit)]

    # --- the games projection -----------------------------------------------------------
    def games(self, player: str | None = None, variant: str | None = None) -> list[dict[str, Any]]:
        """Rows of the ``games`` projection, oldest first, optionally only games with
        ``player`` seated or house-rule ``variant`` pinned."""
        with self._reading():
            return [projection.row_to_dict(r) for r in self._game_rows(player, variant)]

    def checked_games(self, player: str | None = None, variant: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
        """The rows of :meth:`games` as the events give them (never a row the events do not
        support), and the ids of games whose stored row disagrees (``tonk verify`` names how)."""
        with self._reading(), self.snapshot():
            return projection.derived_rows(self._game_rows(), projection.derive(*self._projection_sources()), player, variant)

    def projection_findings(self) -> list[projection.ProjectionFinding]:
        """Every difference between the ``games`` projection and the events."""
        with self._reading(), self.snapshot():
            return projection.findings(self._game_rows(), projection.derive(*self._projection_sources()))

    # --- integrity ------------------------------------------------------------------
    def verify(self, game_id: str | None = None) -> list[ChainFinding]:
        """Recompute the hash chain and check seq continuity: the first broken link of
        each game (all games, or one)."""
        with self._reading():
            rows = self._chain_rows(game_id)
            if game_id is None:
                return list(check_chain(rows))
            first = next(rows, None)
            if first is None:
                raise UnknownGame(game_id)
            return list(check_chain(itertools.chain((first,), rows)))

    def iter_verified_games(self, game_ids: Sequence[str] | None = None) -> Iterator[VerifiedGame]:
        """Every game (ordered by id; or the games ``game_ids``, in that order) read once:
        the hash chain and sequence checked and the events decoded in the same pass.

        Yields one :class:`VerifiedGame` per game, one game in memory at a time.  A game
        whose chain holds (and whose payloads all decode) costs one scan of its rows;
        a game with any broken link or undecodable payload is read again through
        :meth:`verify` and :meth:`iter_events`, so its ``chain`` findings are exactly
        what :meth:`verify` reports and ``decode_error`` what :meth:`iter_events` raises
        (``events`` then holds the events decoded before it).  :class:`UnknownGame` for a
        named game with no events."""
        if game_ids is None:
            yield from self._verified(None)
            return
        for gid in game_ids:
            found = False
            for game in self._verified(gid):
                found = True
                yield game
            if not found:
                raise UnknownGame(gid)

    def _verified(self, only: str | None) -> Iterator[VerifiedGame]:
        current: str | None = None
        events: list[Event] = []
        append = events.append
        dec: Decoder = decode
        ok = True
        want = 1
        #: the game's last hash so far, as the ASCII bytes of its hex (what the next link hashes)
        last_b = _GENESIS_B
        type_name = _TYPE_NAME_OF.get
        at = cmd = ""  # the row's recorded time and command id (a stored None: the previous row's)
        # what a link hashes after its payload (chain.link_suffix), made again only when a row's
        # chain version, time or command id is not the previous row's (the rows of one append
        # share them); ``suffix_chain``, ``suffix_at``, ``suffix_cmd``: what it was made for
        suffix = b""
        suffix_chain: object = _NO_SUFFIX
        suffix_at = suffix_cmd = ""
        # the last stored time in microseconds and its text (the rows of one append share it)
        at_us: int | None = None
        at_us_text = ""
        with self._reading():
            for game_id, seq, type_, data, stored_hash, prev_hash, chain, stored_at, stored_cmd in self._chain_rows(only):
                if game_id != current:
                    if current is not None:
                        yield self._finish_verified(current, events, ok, want - 1)
                    current, events, ok, want = game_id, [], True, 1
                    append = events.append
                    at = cmd = ""
                    suffix_chain = _NO_SUFFIX
                elif not ok:
                    continue
                # None: the value of the game's previous row; bytes and numbers: see ChainRow
                if stored_at is not None:
                    if type(stored_at) is int:
                        if stored_at != at_us:
                            at_us, at_us_text = stored_at, at_text(stored_at)
                        at = at_us_text
                    else:
                        at = at_text(stored_at) if isinstance(stored_at, int) else stored_at
                if stored_cmd is not None:
                    cmd = stored_cmd
                if chain != suffix_chain or at != suffix_at or cmd != suffix_cmd:
                    try:
                        suffix = link_suffix(chain, at, cmd)
                    except UnknownChainVersion:
                        ok = False
                        continue
                    suffix_chain, suffix_at, suffix_cmd = chain, at, cmd
                if want == 1:  # the game's first row: its own game_started, after the genesis value
                    hash_ = stored_hash.hex() if type(stored_hash) is bytes else stored_hash
                    if seq == 1 and (prev_hash is None or prev_hash == GENESIS) and link_digest(_GENESIS_B, data, suffix).hex() == hash_:
                        try:
                            event, dec = first_event(data)
                            if dec is decode:  # today's format: the decoder's own method, one call less per event
                                dec = _EVENT_DECODER.decode
                        except (msgspec.DecodeError, msgspec.ValidationError, StoreError, UnicodeDecodeError):
                            ok = False
                            continue
                        if type(event) is GameStarted and event.game_id == game_id and type_ == "game_started":
                            append(event)
                            want, last_b = 2, hash_.encode("ascii")
                            continue
                    ok = False
                    continue
                if seq != want or (prev_hash is not None and prev_hash != last_b.decode("ascii")):
                    ok = False
                    continue
                if type(stored_hash) is bytes:  # a hash stored as its bytes: compared as bytes
                    if link_digest(last_b, data, suffix) != stored_hash:
                        ok = False
                        continue
                    last_b = hexlify(stored_hash)
                else:
                    if link_digest(last_b, data, suffix).hex() != stored_hash:
                        ok = False
                        continue
                    last_b = stored_hash.encode("ascii")
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
        if current is not None:
            yield self._finish_verified(current, events, ok, want - 1)

    def _finish_verified(self, game_id: str, events: list[Event], ok: bool, version: int) -> VerifiedGame:
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
