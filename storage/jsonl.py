"""JSONL export and import of recorded games (format described in docs/event-format.md).

An export is one header line ``{"format":"tonk-events","format_version":N}``
then one line per stored event, games one after the other, each game's events
in seq order::

    {"game_id":…,"seq":1,"type":"game_started","recorded_at":…,"hash":…,"prev_hash":…,"command_id":"","chain":2,"payload":{…}}

``payload`` holds the event's canonical bytes verbatim, so the hash chain can
be checked on import and an export → import → export round trip is
byte-identical.  ``chain`` is the event's chain version (:mod:`.chain`); an
event of version 1 is written without it, as tonk wrote it before version 2,
and a line without it is read as version 1.

Import validates the whole file before writing anything (format, types, seq
continuity, hash chain, canonical bytes, and — when the caller passes a
``rules_check`` (the CLI's strict default passes one built on
:func:`tonk.core.audit.audit_events`) — the rules), then writes every new
game in one transaction.  A refused file raises :class:`ImportRefused` naming
the line and the reason, and the store is left as it was.  A game already
stored with the same events is skipped; with other events it is refused.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, Protocol

import msgspec

from ..core.errors import TonkError
from ..core.events import EVENT_TYPES, FORMAT_VERSION, Event, GameStarted, decode, encode, event_type
from ..core.names import BadName, check_game_id, check_name
from ..core.safe_json import UnsafeJSON, check_depth_bytes
from .append_rules import storable
from .chain import GENESIS, break_message, link_break
from .codec import Decoder, first_event
from .errors import ImportRefused, StoreError, UnknownGame
from .base import EventStore, Record

FORMAT_NAME = "tonk-events"


class RulesFinding(Protocol):
    """What a rules check reports of a game's first illegal event (``core.audit.Finding`` fits)."""

    seq: int
    hand_no: int
    rule: str
    message: str


#: The rules check of a strict import: a game's events in, its first finding (or ``None``)
#: out; raises a :class:`~tonk.core.errors.TonkError` when the game cannot be checked (its
#: rules are not installed).  Passed in by the caller, so storage imports no rules.
RulesCheck = Callable[[list[Event]], "RulesFinding | None"]


class GameMark(msgspec.Struct, frozen=True):
    """What the header says of one exported game: how many events and the last one's hash,
    so that a file whose game was cut short (its last events or hands removed) is refused."""

    game_id: str
    events: int
    last_hash: str


class Header(msgspec.Struct, frozen=True, omit_defaults=True):
    format: str
    format_version: int
    #: every game of the file, in file order; ``None`` in files of tonk before the marks
    games: list[GameMark] | None = None


class _LineV1(msgspec.Struct, kw_only=True):
    """An export line of an event of chain version 1: a :class:`Record` without ``chain``,
    as tonk wrote it before version 2 (so an old file round-trips byte for byte)."""

    game_id: str
    seq: int
    type: str
    recorded_at: str
    hash: str
    prev_hash: str
    command_id: str
    payload: msgspec.Raw


_encoder = msgspec.json.Encoder()
_header_decoder = msgspec.json.Decoder(Header)
_line_decoder = msgspec.json.Decoder(Record)


# --- export ---------------------------------------------------------------------------------
def header_line(marks: list[GameMark] | None = None) -> bytes:
    return _encoder.encode(Header(FORMAT_NAME, FORMAT_VERSION, marks)) + b"\n"


class Writable(Protocol):
    """Where an export goes: a binary file, or anything that takes its bytes."""

    def write(self, data: bytes, /) -> int: ...


def export_games(store: EventStore, game_ids: Iterable[str] | None, out: Writable) -> tuple[int, int]:
    """Write the games (all, by id, when ``game_ids`` is None) as JSONL to ``out``: the
    header with each game's event count and last hash, then the events, all read in one
    snapshot of the store.  Every id is checked before anything is written.  Returns
    (games, events)."""
    with store.snapshot():
        ids = store.game_ids() if game_ids is None else list(dict.fromkeys(game_ids))
        marks = []
        for gid in ids:
            version = store.version(gid)
            if not version:
                raise UnknownGame(gid)
            marks.append(GameMark(gid, version, store.last_hash(gid) or ""))
        out.write(header_line(marks))
        events = 0
        for gid in ids:
            for rec in store.records(gid):
                out.write(_line(rec))
                events += 1
    return len(ids), events


def _line(rec: Record) -> bytes:
    if rec.chain == 1:
        old = _LineV1(
            game_id=rec.game_id,
            seq=rec.seq,
            type=rec.type,
            recorded_at=rec.recorded_at,
            hash=rec.hash,
            prev_hash=rec.prev_hash,
            command_id=rec.command_id,
            payload=rec.payload,
        )
        return _encoder.encode(old) + b"\n"
    return _encoder.encode(rec) + b"\n"


# --- import ---------------------------------------------------------------------------------
@dataclass
class ImportResult:
    """What an import does: ``imported`` new games (``events`` events) and ``present``
    games already stored with the same events (skipped).  :func:`check_file` fills it
    in; :func:`write_checked` writes it."""

    path: Path
    imported: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    events: int = 0
    digest: bytes = b""
    #: what the caller should tell the user (an old file without the per-game marks)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"file": str(self.path), "imported": self.imported, "present": self.present, "games": len(self.imported), "events": self.events}


@dataclass
class _Game:
    game_id: str
    first_line: int
    records: list[Record] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    decoder: Decoder | None = None

    def line_of(self, seq: int) -> int:
        return self.first_line + min(max(seq, 1), len(self.records)) - 1


def _lines(f: BinaryIO, digest: "hashlib._Hash") -> Iterator[tuple[int, bytes]]:
    for n, line in enumerate(f, 1):
        digest.update(line)
        yield n, line


def _games(f: BinaryIO, source: str, digest: "hashlib._Hash", warnings: list[str] | None = None) -> Iterator[_Game]:
    """Parse and check the file line by line, yielding each game once its lines are read
    (format, types, seq, chain, payloads and the header's marks checked; rules not yet)."""
    lines = _lines(f, digest)
    first = next(lines, None)
    if first is None:
        raise ImportRefused(source, 0, f"the file is empty (a {FORMAT_NAME} file starts with its header line)")
    header = _check_header(source, first[1])
    marks = _marks(source, header, warnings)
    game: _Game | None = None
    seen: set[str] = set()
    for n, raw in lines:
        rec = _parse_line(source, n, raw)
        if game is None or rec.game_id != game.game_id:
            if game is not None:
                _check_mark(source, game, marks)
                yield game
            if rec.game_id in seen:
                raise ImportRefused(source, n, f"game {rec.game_id} appears again after other games (a game's events must be contiguous)")
            seen.add(rec.game_id)
            game = _Game(rec.game_id, n)
        _check_link(source, n, game, rec)
    if game is not None:
        _check_mark(source, game, marks)
        yield game
    if marks:
        missing = next(iter(marks))
        raise ImportRefused(source, 1, f"game {missing} is in the header ({marks[missing].events} events) but has no events in the file: the file was cut short")


def _marks(source: str, header: Header, warnings: list[str] | None) -> dict[str, GameMark] | None:
    """The header's marks by game id (consumed as the games are read); ``None`` for an old
    file without them, which is accepted with a warning."""
    if header.games is None:
        if warnings is not None:
            warnings.append(
                f"{source}: the header has no per-game event counts and last hashes (an export of an older tonk): "
                "a game cut short at its end cannot be detected; re-export it with this tonk to anchor it"
            )
        return None
    marks: dict[str, GameMark] = {}
    for m in header.games:
        if m.game_id in marks:
            raise ImportRefused(source, 1, f"game {m.game_id} is listed twice in the header")
        marks[m.game_id] = m
    return marks


def _check_mark(source: str, game: _Game, marks: dict[str, GameMark] | None) -> None:
    if marks is None:
        return
    mark = marks.pop(game.game_id, None)
    if mark is None:
        raise ImportRefused(source, game.first_line, f"game {game.game_id} is not in the header's list of games")
    last = game.records[-1]
    if mark.events != len(game.records) or mark.last_hash != last.hash:
        raise ImportRefused(
            source,
            game.first_line,
            f"game {game.game_id} does not match the header: it says {mark.events} events ending in hash {mark.last_hash}, "
            f"the file has {len(game.records)} ending in {last.hash} (the game was cut short or changed)",
        )


def _check_header(source: str, raw: bytes) -> Header:
    _within_limits(source, 1, raw)
    try:
        header = _header_decoder.decode(raw)
    except msgspec.DecodeError as exc:
        raise ImportRefused(
            source, 1, f'the first line must be the header {{"format": "{FORMAT_NAME}", "format_version": N}} ({exc})'
        ) from None
    if header.format != FORMAT_NAME:
        raise ImportRefused(source, 1, f"format {header.format!r} is not {FORMAT_NAME!r}")
    if header.format_version > FORMAT_VERSION:
        raise ImportRefused(source, 1, f"format version {header.format_version} is newer than this tonk's ({FORMAT_VERSION})")
    if header.format_version < 1:
        raise ImportRefused(source, 1, f"format version {header.format_version} does not exist")
    return header


def _parse_line(source: str, n: int, raw: bytes) -> Record:
    if not raw.strip():
        raise ImportRefused(source, n, "empty line")
    _within_limits(source, n, raw)
    try:
        line = _line_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        raise ImportRefused(source, n, f"not an event record: {exc}") from None
    except msgspec.DecodeError as exc:
        raise ImportRefused(source, n, f"invalid JSON: {exc}") from None
    if line.type not in EVENT_TYPES:
        raise ImportRefused(source, n, f"unknown event type {line.type!r}")
    if not line.game_id:
        raise ImportRefused(source, n, "empty game_id")
    _valid_names(source, n, line.game_id)
    if not storable(line.command_id):
        raise ImportRefused(source, n, f"command_id {line.command_id!r} holds NUL (U+0000), which no store keeps")
    try:
        datetime.fromisoformat(line.recorded_at)
    except ValueError:
        raise ImportRefused(source, n, f"recorded_at {line.recorded_at!r} is not an ISO 8601 time") from None
    return line


def _within_limits(source: str, n: int, raw: bytes) -> None:
    """The line's JSON nests no deeper than the shared limit (tonk.core.safe_json)."""
    try:
        check_depth_bytes(raw)
    except UnsafeJSON as exc:
        raise ImportRefused(source, n, exc.message) from None


def _valid_names(source: str, n: int, game_id: str, players: tuple[str, ...] = ()) -> None:
    """The game id has the engine's format and every player name the one name rule (tonk.core.names)."""
    try:
        check_game_id(game_id)
        for p in players:
            check_name(p, "player name")
    except BadName as exc:
        raise ImportRefused(source, n, str(exc)) from None


def _check_link(source: str, n: int, game: _Game, rec: Record) -> None:
    gid = game.game_id
    want = len(game.records) + 1
    prev = game.records[-1].hash if game.records else GENESIS
    data = bytes(rec.payload)
    broken = link_break(want, prev, rec.seq, rec.prev_hash, data, rec.hash, rec.chain, rec.recorded_at, rec.command_id)
    if broken is not None:
        if broken.kind == "seq":
            raise ImportRefused(source, n, f"seq gap in game {gid}: expected seq {want}, found {rec.seq}")
        if broken.kind == "prev":
            what = "the genesis value" if want == 1 else f"the hash of seq {want - 1}"
            raise ImportRefused(source, n, f"broken chain in game {gid} at seq {want}: prev_hash {rec.prev_hash} is not {what} ({prev})")
        if broken.kind == "version":
            raise ImportRefused(source, n, f"game {gid} seq {want}: {break_message(broken, want, rec.chain)}")
        what = "the payload" if rec.chain == 1 else "the payload, recorded_at and command_id"
        raise ImportRefused(
            source, n, f"broken chain in game {gid} at seq {want}: {what} hash to {broken.expected} (chain version {rec.chain}), the line says {rec.hash}"
        )
    try:
        if want == 1 or game.decoder is None:
            event, game.decoder = first_event(data)
        else:
            event = game.decoder(data)
    except (msgspec.DecodeError, msgspec.ValidationError, StoreError) as exc:
        raise ImportRefused(source, n, f"the payload is not a valid {rec.type} event: {exc}") from None
    tag = event_type(event)
    if tag != rec.type:
        raise ImportRefused(source, n, f"the line says type {rec.type} but the payload is {tag}")
    if want == 1:
        if not isinstance(event, GameStarted) or event.game_id != gid:
            raise ImportRefused(source, n, f"game {gid} must start with its own game_started")
        _valid_names(source, n, gid, event.players)
    elif isinstance(event, GameStarted):
        raise ImportRefused(source, n, f"a second game_started in game {gid}")
    elif game.records and game.records[-1].type == "game_ended":
        raise ImportRefused(source, n, f"{rec.type} after the game_ended of game {gid} (seq {want - 1}): an ended game takes no more events")
    if game.decoder is decode and encode(event) != data:  # older formats keep the bytes they were hashed with
        raise ImportRefused(source, n, "the payload is not in canonical form (msgspec re-encoding gives other bytes)")
    game.records.append(rec)
    game.events.append(event)


def _check_rules(source: str, game: _Game, rules_check: RulesCheck) -> None:
    try:
        f = rules_check(game.events)
    except TonkError as exc:
        raise ImportRefused(
            source, game.first_line, f"game {game.game_id} cannot be audited: {exc} (import with --no-strict to skip the rules check)"
        ) from None
    if f is not None:
        raise ImportRefused(
            source,
            game.line_of(f.seq),
            f"illegal play in game {game.game_id} at seq {f.seq} (hand {f.hand_no}, rule {f.rule}): {f.message}",
        )


def _against_store(store: EventStore, source: str, game: _Game, warnings: list[str]) -> bool:
    """True if the game is new to the store, False if stored with the same events (the
    same payloads; when their recorded times or command ids differ, which the hashes of
    chain version 2 cover, the store keeps its own and ``warnings`` says so)."""
    stored = store.version(game.game_id)
    if not stored:
        return True
    if stored == len(game.records) and store.last_hash(game.game_id) == game.records[-1].hash:
        return False
    if stored == len(game.records) and [bytes(r.payload) for r in store.records(game.game_id)] == [bytes(r.payload) for r in game.records]:
        warnings.append(
            f"{source}: game {game.game_id} is already in the store with the same events but other recorded times or command ids: "
            "the store keeps its own"
        )
        return False
    raise ImportRefused(
        source,
        game.first_line,
        f"game {game.game_id} is already in the store with other events (stored: {stored} events, file: {len(game.records)})",
    )


def check_file(
    path: str | Path, store: EventStore | None, *, rules_check: RulesCheck | None = None, progress: Callable[[int], None] | None = None
) -> ImportResult:
    """Validate the whole file against the store (``None``: an empty store) and, given a
    ``rules_check``, the rules.  Raises :class:`ImportRefused`; reads only.  ``progress``
    is called after each game with the number of bytes of the file read so far."""
    path = Path(path)
    source = str(path)
    result = ImportResult(path)
    digest = hashlib.sha256()
    with _open(path) as f:
        for game in _games(f, source, digest, result.warnings):
            if rules_check is not None:
                _check_rules(source, game, rules_check)
            if store is None or _against_store(store, source, game, result.warnings):
                result.imported.append(game.game_id)
                result.events += len(game.records)
            else:
                result.present.append(game.game_id)
            if progress is not None:
                progress(f.tell())
    result.digest = digest.digest()
    return result


def write_checked(store: EventStore, checked: ImportResult) -> ImportResult:
    """Write the new games of a checked file in one transaction (nothing if it changed since)."""
    if not checked.imported:
        return checked
    source = str(checked.path)
    new = set(checked.imported)
    digest = hashlib.sha256()

    def new_games(f: BinaryIO) -> Iterator[tuple[str, list[Record], list[Event]]]:
        for game in _games(f, source, digest):
            if game.game_id in new:
                yield game.game_id, game.records, game.events
        if digest.digest() != checked.digest:  # raised inside the write: nothing is written
            raise ImportRefused(source, 0, "the file changed while it was being imported")

    with _open(checked.path) as f:
        store.import_games(new_games(f))
    return checked


def import_file(store: EventStore, path: str | Path, *, rules_check: RulesCheck | None = None) -> ImportResult:
    """Validate the whole file, then write its new games in one transaction."""
    return write_checked(store, check_file(path, store, rules_check=rules_check))


def _open(path: Path) -> BinaryIO:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise ImportRefused(str(path), 0, f"cannot read the file ({exc.strerror or exc})") from None
