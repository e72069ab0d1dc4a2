"""The hash chain that makes a game's log tamper-evident.

Each stored event carries a ``hash``, lowercase hex sha256, that links it to the
previous event of the same game (``prev_hash``; for the first event
:data:`GENESIS`, 64 zeros).  What a link hashes is set by the row's *chain
version* (the ``chain`` column, and the ``chain`` field of an export line,
1 when absent):

* version 1 (stores and exports of tonk before chain version 2):
  ``sha256(prev_hash || payload)``;
* version 2 (every append since): ``sha256(prev_hash || payload || "\\n" || meta)``
  where ``meta`` is the JSON array ``[recorded_at, command_id]``: UTF-8, no
  whitespace, only ``"``, ``\\`` and U+0000..U+001F escaped (``\\b \\f \\n \\r \\t``
  short, the others ``\\u00xx``), as Python's
  ``json.dumps([recorded_at, command_id], ensure_ascii=False, separators=(",", ":"))``.

``prev_hash`` is hashed as its 64 ASCII characters and ``payload`` as the event's
canonical bytes (``tonk.core.events.encode``; a single JSON object without a
newline, so the ``"\\n"`` ends it unambiguously).  Editing, inserting, removing or
reordering any event — or, in version 2, its recorded time or command id — breaks
the chain from that point on.  Changing a row's version changes the hash it must
have, which breaks the link to the next event like any other edit.

Everything about hashing lives here; the stores (SQLite, PostgreSQL) and the import
call these functions with the row's columns.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from hashlib import sha256
from typing import Iterable, Iterator, NamedTuple

import msgspec

GENESIS = "0" * 64

#: the chain version every append writes
CHAIN_VERSION = 2
#: the chain versions this tonk reads and verifies
CHAIN_VERSIONS = (1, 2)
#: the columns of a row that :func:`check_chain` checks, in its order (the same in every store)
CHECK_COLUMNS = "game_id, seq, type, payload, hash, prev_hash, chain, recorded_at, command_id"

_meta = msgspec.json.Encoder().encode


#: the text form of a recorded time (what :func:`~.append_rules.now` writes)
AT_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
EPOCH = datetime(1970, 1, 1)


def at_text(us: int) -> str:
    """The recorded time ``us`` microseconds after 1970-01-01T00:00:00Z, as tonk writes it
    (a store may keep a time as its microseconds: :mod:`.sqlite_layout`)."""
    return (EPOCH + timedelta(microseconds=us)).strftime(AT_FORMAT)


class UnknownChainVersion(ValueError):
    """A row whose chain version this tonk does not know (it cannot check the link)."""

    def __init__(self, chain: object):
        super().__init__(f"chain version {chain!r} is not one this tonk knows ({', '.join(map(str, CHAIN_VERSIONS))})")
        self.chain = chain


def link_suffix(chain: int, recorded_at: str, command_id: str) -> bytes:
    """The bytes a link of chain version ``chain`` hashes after the payload: none in
    version 1; ``"\\n"`` and the JSON array ``[recorded_at, command_id]`` in version 2.
    :class:`UnknownChainVersion` for any other version."""
    if chain == 2:
        return b"\n" + _meta((recorded_at, command_id))
    if chain == 1:
        return b""
    raise UnknownChainVersion(chain)


def link_hash(prev_hash: str, payload: bytes, chain: int, recorded_at: str, command_id: str) -> str:
    """The hash of the event whose canonical bytes are ``payload``, recorded at
    ``recorded_at`` by command ``command_id`` in chain version ``chain``, following
    ``prev_hash``.  :class:`UnknownChainVersion` for a version this tonk does not know."""
    if chain == 2:
        return sha256(prev_hash.encode("ascii") + payload + b"\n" + _meta((recorded_at, command_id))).hexdigest()
    return sha256(prev_hash.encode("ascii") + payload + link_suffix(chain, recorded_at, command_id)).hexdigest()


def link_digest(prev: bytes, payload: bytes, suffix: bytes) -> bytes:
    """:func:`link_hash` for the verified scan, as the 32 bytes of the digest (compared with a
    hash stored as its bytes without turning either into hex): ``prev`` is the previous hash
    as the ASCII bytes of its hex and ``suffix`` what :func:`link_suffix` gives for the row's
    chain version, time and command id (the scan makes it again only when one of them
    changes: the events of one append share it)."""
    return sha256(prev + payload + suffix).digest()


def chain_links(prev_hash: str, payloads: Iterable[bytes], recorded_at: str, command_id: str) -> list[tuple[str, str]]:
    """``(prev_hash, hash)`` of each of ``payloads`` appended in order after ``prev_hash``,
    all recorded at ``recorded_at`` by ``command_id``, in chain version :data:`CHAIN_VERSION`
    (the write path: what an append stores with each event, with ``chain`` = :data:`CHAIN_VERSION`)."""
    out = []
    suffix = link_suffix(CHAIN_VERSION, recorded_at, command_id)
    prev_b = prev_hash.encode("ascii")
    for data in payloads:
        h = sha256(prev_b + data + suffix).hexdigest()
        out.append((prev_hash, h))
        prev_hash, prev_b = h, h.encode("ascii")
    return out


class LinkBreak(NamedTuple):
    """Why one event does not continue its game's chain: ``kind`` is ``seq`` (a gap),
    ``prev`` (``prev_hash`` is not the previous event's hash), ``version`` (a chain
    version this tonk does not know) or ``hash`` (the event does not hash to the stored
    hash)."""

    kind: str
    expected: str
    found: str


def link_break(
    want_seq: int,
    last_hash: str,
    seq: int,
    prev_hash: str,
    payload: bytes,
    hash_: str,
    chain: int,
    recorded_at: str,
    command_id: str,
) -> LinkBreak | None:
    """Check that an event (``seq``, ``prev_hash``, ``payload``, ``hash_``, with its chain
    version, recorded time and command id) continues a chain whose next seq is
    ``want_seq`` and last hash ``last_hash``; ``None`` if it does."""
    if seq != want_seq:
        return LinkBreak("seq", str(want_seq), str(seq))
    if prev_hash != last_hash:
        return LinkBreak("prev", last_hash, prev_hash)
    try:
        computed = link_hash(prev_hash, payload, chain, recorded_at, command_id)
    except UnknownChainVersion:
        return LinkBreak("version", " or ".join(map(str, CHAIN_VERSIONS)), str(chain))
    if computed != hash_:
        return LinkBreak("hash", computed, hash_)
    return None


def break_message(broken: LinkBreak, want_seq: int, chain: int) -> str:
    """What a broken link means, in words (the message of a :class:`ChainFinding`)."""
    if broken.kind == "seq":
        return f"sequence gap: seq {want_seq} is missing"
    if broken.kind == "prev":
        what = "the genesis value" if want_seq == 1 else f"the hash of seq {want_seq - 1}"
        return f"prev_hash is not {what}: the chain is broken before this event"
    if broken.kind == "version":
        return f"chain version {broken.found} is not one this tonk knows ({broken.expected}): the link cannot be checked"
    if chain == 1:
        return "the payload does not hash to the stored hash: the event was changed"
    return "the payload, recorded_at and command_id do not hash to the stored hash: the event was changed"


class ChainFinding(msgspec.Struct, frozen=True):
    """The first broken link of a game: where, what was expected and what was found."""

    game_id: str
    seq: int
    expected: str
    found: str
    message: str


class _Head(msgspec.Struct):
    type: str = ""
    game_id: str | None = None


_head = msgspec.json.Decoder(_Head)


def _check_row(
    game_id: str,
    seq: int,
    want_seq: int,
    type_: str,
    payload: str | bytes,
    hash_: str,
    prev_hash: str,
    chain: int,
    recorded_at: str,
    command_id: str,
    last_hash: str,
) -> ChainFinding | None:
    data = payload if isinstance(payload, bytes) else payload.encode("utf-8")
    broken = link_break(want_seq, last_hash, seq, prev_hash, data, hash_, chain, recorded_at, command_id)
    if broken is not None:
        return ChainFinding(game_id, seq, broken.expected, broken.found, break_message(broken, want_seq, chain))
    try:
        head = _head.decode(data)
    except msgspec.DecodeError as exc:
        return ChainFinding(game_id, seq, "a JSON object", (payload if isinstance(payload, str) else payload.decode("utf-8", "replace"))[:60], f"the payload is not JSON: {exc}")
    if head.type != type_:
        return ChainFinding(game_id, seq, head.type, type_, "the type column does not match the payload's type")
    if seq == 1 and (head.type != "game_started" or head.game_id != game_id):
        return ChainFinding(
            game_id, seq, f"game_started of {game_id}", f"{head.type} of {head.game_id}", "a game's first event must be its own game_started"
        )
    return None


def check_chain(
    rows: Iterable[tuple[str, int, str, str | bytes, str | bytes, str | None, int, str | int | None, str | None]],
) -> Iterator[ChainFinding]:
    """Check rows ``(game_id, seq, type, payload, hash, prev_hash, chain, recorded_at,
    command_id)`` (:data:`CHECK_COLUMNS`) ordered by game and seq; yield the first broken
    link of each game (what follows a break rests on it).

    A store may leave out what the previous row gives and keep values in a smaller form
    (the SQLite store's lean layout, :mod:`.sqlite_layout`): ``prev_hash`` None is the hash
    of the game's previous row (:data:`GENESIS` for its first), ``recorded_at`` or
    ``command_id`` None the previous row's (``""`` for a game's first row); a ``hash`` of
    bytes is its hex text, a ``recorded_at`` number its :func:`at_text`."""
    current = None
    want_seq = 1
    last_hash = GENESIS
    broken = False
    row_hash = GENESIS
    at = cmd = ""
    for game_id, seq, type_, payload, stored_hash, stored_prev, chain, stored_at, stored_cmd in rows:
        if game_id != current:
            current, want_seq, last_hash, broken = game_id, 1, GENESIS, False
            row_hash, at, cmd = GENESIS, "", ""
        hash_ = stored_hash.hex() if isinstance(stored_hash, bytes) else stored_hash
        prev_hash = row_hash if stored_prev is None else stored_prev
        if stored_at is not None:
            at = at_text(stored_at) if isinstance(stored_at, int) else stored_at
        if stored_cmd is not None:
            cmd = stored_cmd
        row_hash = hash_
        if broken:
            continue
        finding = _check_row(game_id, seq, want_seq, type_, payload, hash_, prev_hash, chain, at, cmd, last_hash)
        if finding is not None:
            broken = True
            yield finding
            continue
        want_seq = seq + 1
        last_hash = hash_
