"""How the SQLite store lays its events out on disk since schema version 5 (the lean layout),
and how each stored value is brought back to exactly what was recorded.

The events live in ``event_rows``, a ``WITHOUT ROWID`` table keyed ``(game, seq)`` (the row
is stored once, in its key's b-tree), with the game as a small integer (``game_numbers``
maps it to the game id) and each value in its smallest exact form:

* ``hash``: the 32 bytes of the lowercase hex sha256 (a value that is not 64 lowercase hex
  digits is kept as its text);
* ``prev_hash``: NULL when it is the hash of the game's previous row (``GENESIS`` for the
  first), which every append and import stores; any other value is kept as its text;
* ``recorded_at``: the microseconds since 1970-01-01T00:00:00Z when the text is exactly
  what :func:`at_text` makes of them (every time tonk records), else the text; NULL when
  it is the previous row's (the other events of one append), except on the events the
  ``games`` projection reads (:data:`TIMED`);
* ``command_id``: NULL when it is the previous row's (the other events of one append) and
  not ``''`` (which costs no more than NULL), so the index of command ids takes one entry
  per append;
* ``payload``: the canonical event bytes as text, or, when large, compressed (a blob,
  :mod:`.payload_zip`: its exact bytes come back);
* ``position``: the rowid (rows are stored in their global order, once);
* ``type``, ``chain``: as before.

So every column of schema 4 comes back byte for byte (:func:`chain_rows`, :func:`record_rows`,
the ``events`` view), and the chain (:mod:`.chain`, versions 1 and 2) is checked on exactly
the values it was computed on.  The ``events`` view shows the rows in schema 4's columns for
plain SQL; writing through it goes to ``event_rows`` (where the append-only triggers refuse it).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Iterable, Iterator

from . import payload_zip
from .append_rules import recent_micros
from .chain import EPOCH, GENESIS, at_text
from .projection import COLUMNS

#: the events whose time the ``games`` projection reads keep it even when the previous row has
#: the same (so that it is read without walking back)
TIMED = frozenset({"game_started", "hand_ended", "game_ended"})
TIMED_SQL = "('game_started', 'hand_ended', 'game_ended')"
_US = timedelta(microseconds=1)
#: the times kept as integers: 1970-01-01 up to (not including) the year 10000
_AT_MAX = (datetime(9999, 12, 31, 23, 59, 59, 999999) - EPOCH) // _US


def at_value(text: str) -> int | str:
    """What ``recorded_at`` stores for ``text``: its microseconds when :func:`at_text` gives
    the very same text back, else the text."""
    micros = recent_micros(text)  # the time an append has just recorded: its number is known
    if micros is not None and 0 <= micros <= _AT_MAX:
        return micros
    if len(text) != 27 or text[-1] != "Z":
        return text
    try:
        us = (datetime.fromisoformat(text[:-1]) - EPOCH) // _US
    except ValueError:
        return text
    if 0 <= us <= _AT_MAX and at_text(us) == text:
        return us
    return text


def hash_value(text: str) -> bytes | str:
    """What ``hash`` stores for ``text``: its 32 bytes when it is 64 lowercase hex digits,
    else the text."""
    if len(text) == 64:
        try:
            raw = bytes.fromhex(text)
        except ValueError:
            return text
        if raw.hex() == text:
            return raw
    return text


def pack_text(payload: str) -> bytes | str:
    """What ``payload`` stores for the payload ``payload`` (:func:`.payload_zip.pack`)."""
    return payload if len(payload) < _SMALL or (len(payload) < _MIN and payload.isascii()) else payload_zip.pack(payload.encode("utf-8"))


def hash_text(value: bytes | str) -> str:
    return value.hex() if type(value) is bytes else value  # type: ignore[return-value]


def lean_rows(game: int, rows: list[tuple[Any, ...]], prev_of_first: str | None) -> list[tuple[Any, ...]]:
    """The values :data:`INSERT_ROW` binds for one game's rows in schema 4's columns (game_id,
    seq, type, payload, recorded_at, hash, prev_hash, command_id, position, chain), appended in
    order after the game's stored row whose hash is ``prev_of_first`` (None for a game with none).

    The hashes are those an append computed or an import checked against the computed ones
    (lowercase hex, kept as their bytes); the migration of older rows goes through
    :data:`FROM_SCHEMA_4`, which keeps any other value as text.  A NULL (the previous row's
    value) is bound as :data:`NO_AT` or :data:`SAME`, and a blob as a ``bytearray``: Python's
    sqlite3 binds ints, text and bytearrays directly, but sends None and bytes through its
    adaptation protocol first (about a fifth of an insert's cost, measured)."""
    out: list[tuple[Any, ...]] = []
    append = out.append
    fromhex = bytearray.fromhex
    pack = payload_zip.pack
    timed = TIMED
    prev_hash = GENESIS if prev_of_first is None else prev_of_first
    last_at: str | None = None
    last_cmd: str | None = None
    at_v: int | str = NO_AT
    stored_at: int | str
    for _, seq, type_, payload, at, h, p, cmd, position, chain in rows:
        if at != last_at:
            last_at = at
            at_v = at_value(at)
            stored_at = at_v
        else:
            stored_at = at_v if type_ in timed else NO_AT
        if len(payload) >= _SMALL and (len(payload) >= _MIN or not payload.isascii()):
            packed = pack(payload.encode("utf-8"))
            if type(packed) is bytes:
                payload = bytearray(packed)
        append((game, seq, type_, payload, stored_at, fromhex(h), SAME if p == prev_hash else p, SAME if cmd == last_cmd and cmd else cmd, position, chain))
        prev_hash, last_cmd = h, cmd
    return out


def _at(value: int | str) -> str:
    return at_text(value) if type(value) is int else value  # type: ignore[return-value]


def folded_rows(rows: Iterable[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """Rows of :data:`FOLDED_ROWS` with their recorded time as text."""
    for game_id, seq, type_, payload, at in rows:
        yield game_id, seq, type_, payload, _at(at) if at is not None else ""


def chain_rows(rows: Iterable[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """Rows of :data:`SELECT_CHAIN` (ordered by game and seq) with every value as recorded:
    what a row leaves to the previous one filled in (as :func:`~.chain.check_chain` reads them)."""
    current = None
    last = GENESIS
    at = cmd = ""
    for game_id, seq, type_, payload, h, p, chain, at_v, cmd_v in rows:
        if game_id != current:
            current, last, at, cmd = game_id, GENESIS, "", ""
        if type(h) is bytes:
            h = h.hex()
        if at_v is not None:
            at = _at(at_v)
        if cmd_v is not None:
            cmd = cmd_v
        yield game_id, seq, type_, payload, h, last if p is None else p, chain, at, cmd
        last = h


def record_rows(rows: Iterable[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """Rows of :data:`SELECT_CHAIN` in the order of :class:`~.base.Record`'s fields."""
    for game_id, seq, type_, payload, h, p, chain, at, cmd in chain_rows(rows):
        yield game_id, seq, type_, at, h, p, cmd, chain, payload


def scan_rows(rows: Iterable[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """Rows of :data:`SELECT_CHAIN` as the projection's scan (game_id, seq, payload, recorded_at)."""
    for game_id, seq, _, payload, _, _, _, at, _ in chain_rows(rows):
        yield game_id, seq, payload, at


#: a payload shorter than this (in characters) is shorter than payload_zip.MIN_SIZE bytes
_SMALL = payload_zip.MIN_SIZE // 4
#: an ASCII payload shorter than this (in characters) is too: neither is compressed
#: (payload_zip.pack would keep it as text)
_MIN = payload_zip.MIN_SIZE


def register_functions(conn: Any) -> None:
    """The SQL functions the lean layout's statements call, on ``conn``: ``tonk_unpack``
    (:func:`.payload_zip.unpack`)."""
    conn.create_function("tonk_unpack", 1, payload_zip.unpack, deterministic=True)


# --- the statements on the lean layout -------------------------------------------------------
#: a stored payload as the payload's text (or, when compressed, its bytes)
PAYLOAD = "CASE WHEN typeof(r.payload) = 'blob' THEN tonk_unpack(r.payload) ELSE r.payload END"
#: a stored payload as the payload's bytes
PAYLOAD_BYTES = "CASE WHEN typeof(r.payload) = 'blob' THEN tonk_unpack(r.payload) ELSE CAST(r.payload AS BLOB) END"
_GAME = "(SELECT game FROM game_numbers WHERE game_id = ?)"
GAME_NUMBER = "SELECT game FROM game_numbers WHERE game_id = ?"
NEW_GAME_NUMBER = "INSERT INTO game_numbers (game_id) VALUES (?)"
#: what :func:`lean_rows` binds for a NULL ``recorded_at`` (a stored time is >= 0 µs, or text)
NO_AT = -1
#: what :func:`lean_rows` binds for a NULL ``prev_hash`` or ``command_id`` (stored ones are text)
SAME = 0
#: one row of :func:`lean_rows` (whose :data:`NO_AT` and :data:`SAME` become NULL)
INSERT_ROW = (
    "INSERT INTO event_rows (game, seq, type, payload, recorded_at, hash, prev_hash, command_id, position, chain) "
    f"VALUES (?, ?, ?, ?, nullif(?, {NO_AT}), ?, nullif(?, {SAME}), nullif(?, {SAME}), ?, ?)"
)
LAST_ROW = f"SELECT seq, hash, type FROM event_rows WHERE game = {_GAME} ORDER BY seq DESC LIMIT 1"
BY_COMMAND = f"SELECT 1 FROM event_rows WHERE game = {_GAME} AND command_id = ? AND command_id <> '' LIMIT 1"
LAST_POSITION = "SELECT coalesce(max(position), 0) FROM event_rows"
VERSION = f"SELECT coalesce(max(seq), 0) FROM event_rows WHERE game = {_GAME}"
PAYLOADS = f"SELECT r.seq, {PAYLOAD} FROM event_rows AS r WHERE r.game = {_GAME} ORDER BY r.seq"
ALL_PAYLOADS = f"SELECT k.game_id, r.seq, {PAYLOAD} FROM game_numbers AS k JOIN event_rows AS r ON r.game = k.game ORDER BY k.game_id, r.seq"
FIRST_PAYLOAD = f"SELECT {PAYLOAD} FROM event_rows AS r WHERE r.game = {_GAME} AND r.seq = 1"
FEED_ROWS = (
    f"SELECT r.position, k.game_id, r.seq, {PAYLOAD} FROM event_rows AS r JOIN game_numbers AS k ON k.game = r.game "
    "WHERE r.position > ? ORDER BY r.position LIMIT ?"
)
HASH_ROWS = f"SELECT seq, type, hash FROM event_rows WHERE game = {_GAME} AND seq > ? ORDER BY seq"
_HAS_ROWS = "EXISTS (SELECT 1 FROM event_rows AS r WHERE r.game = k.game)"
GAME_IDS = f"SELECT game_id FROM game_numbers AS k WHERE {_HAS_ROWS} ORDER BY game_id"
GAME_COUNT = f"SELECT count(*) FROM game_numbers AS k WHERE {_HAS_ROWS}"
#: a stored hash as its text
HASH = "CASE WHEN typeof({v}) = 'blob' THEN lower(hex({v})) ELSE {v} END"
#: a stored time as its text (NULL stays NULL: the previous row's); the same text as :func:`at_text`
AT = (
    "CASE WHEN typeof({v}) = 'integer' "
    "THEN strftime('%Y-%m-%dT%H:%M:%S', {v} / 1000000, 'unixepoch') || printf('.%06dZ', {v} % 1000000) ELSE {v} END"
)
#: ``{payload}``: the payload as the bytes hashed; then ``WHERE`` and ``ORDER BY`` follow.  The
#: rows of the chain check as :func:`~.chain.check_chain` reads them (None: the previous row's;
#: a hash as its bytes, a time as its microseconds)
SELECT_CHAIN = (
    "SELECT k.game_id, r.seq, r.type, {payload}, r.hash, r.prev_hash, r.chain, r.recorded_at, r.command_id "
    "FROM game_numbers AS k JOIN event_rows AS r ON r.game = k.game"
)
GAME_COUNTS = (
    "SELECT k.game_id, count(*), sum(CASE WHEN r.type = 'hand_dealt' THEN 1 ELSE 0 END) "
    "FROM game_numbers AS k JOIN event_rows AS r ON r.game = k.game GROUP BY k.game_id"
)
#: a row's recorded time: its own, or the nearest earlier row's of the game that has one
_RECORDED_AT = (
    "coalesce(r.recorded_at, (SELECT p.recorded_at FROM event_rows AS p WHERE p.game = r.game AND p.seq < r.seq "
    "AND p.recorded_at IS NOT NULL ORDER BY p.seq DESC LIMIT 1))"
)
FOLDED_ROWS = (
    f"SELECT k.game_id, r.seq, r.type, {PAYLOAD}, {_RECORDED_AT} FROM game_numbers AS k JOIN event_rows AS r ON r.game = k.game "
    "WHERE r.type IN ('game_started', 'hand_ended', 'game_ended') ORDER BY k.game_id, r.seq"
)


# --- the schema (migration 0005) --------------------------------------------------------------
TABLES = (
    """
    CREATE TABLE game_numbers (
        game    INTEGER PRIMARY KEY,
        game_id TEXT    NOT NULL UNIQUE
    ) STRICT
    """,
    """
    CREATE TABLE event_rows (
        position    INTEGER PRIMARY KEY,
        game        INTEGER NOT NULL,
        seq         INTEGER NOT NULL CHECK (seq >= 1),
        type        TEXT    NOT NULL,
        payload     ANY     NOT NULL,
        recorded_at ANY,
        hash        ANY     NOT NULL,
        prev_hash   TEXT,
        command_id  TEXT,
        chain       INTEGER NOT NULL
    ) STRICT
    """,
    "CREATE UNIQUE INDEX event_rows_key ON event_rows (game, seq)",
    "CREATE INDEX events_command ON event_rows (game, command_id) WHERE command_id <> ''",
    "CREATE TRIGGER events_position BEFORE INSERT ON event_rows WHEN NEW.position < 1 "
    "BEGIN SELECT RAISE(ABORT, 'an event needs its global position'); END",
)
#: schema 4's rows in the lean layout, in the order of their positions (``tonk_at`` is
#: :func:`at_value`, ``tonk_hash`` :func:`hash_value`, ``tonk_pack`` :func:`pack_text`): the same values as :func:`lean_rows`
FROM_SCHEMA_4 = f"""
    INSERT INTO event_rows (position, game, seq, type, payload, recorded_at, hash, prev_hash, command_id, chain)
    SELECT e.position, n.game, e.seq, e.type, tonk_pack(e.payload),
           CASE WHEN e.recorded_at IS lag(e.recorded_at) OVER w AND e.type NOT IN {TIMED_SQL} THEN NULL ELSE tonk_at(e.recorded_at) END,
           tonk_hash(e.hash),
           CASE WHEN e.prev_hash IS coalesce(lag(e.hash) OVER w, '{GENESIS}') THEN NULL ELSE e.prev_hash END,
           CASE WHEN e.command_id IS lag(e.command_id) OVER w AND e.command_id <> '' THEN NULL ELSE e.command_id END,
           e.chain
    FROM events AS e JOIN game_numbers AS n ON n.game_id = e.game_id
    WINDOW w AS (PARTITION BY e.game_id ORDER BY e.seq)
    ORDER BY e.position
"""
#: the ``games`` projection as a rowid table (schema 4's is ``WITHOUT ROWID``, whose rows
#: overflow small pages), written in place (:data:`GAMES_WRITE`)
GAMES = """
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
    ) STRICT
"""
GAMES_WRITE = (
    f"INSERT INTO games ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)}) "
    f"ON CONFLICT (game_id) DO UPDATE SET {', '.join(f'{c} = excluded.{c}' for c in COLUMNS[1:])}"
)

_HEX = "CASE WHEN typeof({v}) = 'blob' THEN lower(hex({v})) ELSE {v} END"
_PREVIOUS = "(SELECT {what} FROM event_rows AS p WHERE p.game = r.game AND p.seq < r.seq{cond} ORDER BY p.seq DESC LIMIT 1)"
#: schema 4's ``events`` table as a view of the lean rows, every value as recorded
VIEW = f"""
    CREATE VIEW events (game_id, seq, type, payload, recorded_at, hash, prev_hash, command_id, position, chain) AS
    SELECT game_id, seq, type, payload,
           CASE WHEN typeof(at) = 'integer'
                THEN strftime('%Y-%m-%dT%H:%M:%S', at / 1000000, 'unixepoch') || printf('.%06dZ', at % 1000000)
                ELSE at END,
           hash, prev_hash, command_id, position, chain
    FROM (
        SELECT k.game_id, r.seq, r.type, r.payload, {_RECORDED_AT} AS at,
               {_HEX.format(v="r.hash")} AS hash,
               coalesce(r.prev_hash, {_PREVIOUS.format(what=_HEX.format(v="p.hash"), cond="")}, '{GENESIS}') AS prev_hash,
               coalesce(r.command_id, {_PREVIOUS.format(what="p.command_id", cond=" AND p.command_id IS NOT NULL")}, '') AS command_id,
               r.position, r.chain
        FROM event_rows AS r JOIN game_numbers AS k ON k.game = r.game
    )
"""
_OLD = "(SELECT game FROM game_numbers WHERE game_id = OLD.game_id)"
#: a row's successor keeps the values it took from the row (frozen as text in it; rewritten
#: as an insert, which the append-only triggers do not stop, as schema 4's table would have
#: kept them when only its DELETE trigger was dropped)
_FREEZE_NEXT = f"""
        INSERT OR REPLACE INTO event_rows (position, game, seq, type, payload, recorded_at, hash, prev_hash, command_id, chain)
        SELECT position, game, seq, type, payload, coalesce(recorded_at, OLD.recorded_at), hash, coalesce(prev_hash, OLD.hash),
               coalesce(command_id, OLD.command_id), chain
        FROM event_rows WHERE game = {_OLD} AND seq = (SELECT min(seq) FROM event_rows WHERE game = {_OLD} AND seq > OLD.seq)
            AND (recorded_at IS NULL OR prev_hash IS NULL OR command_id IS NULL);"""
#: writing through the view changes the lean rows (refused by their append-only triggers), as
#: it changed schema 4's table: a changed row keeps its values as text, its successor too
VIEW_TRIGGERS = (
    f"""
    CREATE TRIGGER events_view_update INSTEAD OF UPDATE ON events BEGIN
        INSERT OR IGNORE INTO game_numbers (game_id) VALUES (NEW.game_id);{_FREEZE_NEXT}
        UPDATE event_rows SET game = (SELECT game FROM game_numbers WHERE game_id = NEW.game_id),
            seq = NEW.seq, type = NEW.type, payload = NEW.payload, position = NEW.position, chain = NEW.chain,
            recorded_at = NEW.recorded_at, hash = NEW.hash, prev_hash = NEW.prev_hash, command_id = NEW.command_id
        WHERE game = {_OLD} AND seq = OLD.seq;
    END
    """,
    f"""
    CREATE TRIGGER events_view_delete INSTEAD OF DELETE ON events BEGIN
        DELETE FROM event_rows WHERE game = {_OLD} AND seq = OLD.seq;{_FREEZE_NEXT}
    END
    """,
    """
    CREATE TRIGGER events_view_insert INSTEAD OF INSERT ON events BEGIN
        INSERT OR IGNORE INTO game_numbers (game_id) VALUES (NEW.game_id);
        INSERT INTO event_rows (game, seq, type, payload, recorded_at, hash, prev_hash, command_id, position, chain)
        VALUES ((SELECT game FROM game_numbers WHERE game_id = NEW.game_id), NEW.seq, NEW.type, NEW.payload,
                NEW.recorded_at, NEW.hash, NEW.prev_hash, coalesce(NEW.command_id, ''), coalesce(NEW.position, 0), coalesce(NEW.chain, 1));
    END
    """,
)
