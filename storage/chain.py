"""The hash chain that makes a game's log tamper-evident.

Each stored event carries ``hash = sha256(prev_hash || payload)`` as lowercase
hex, where ``prev_hash`` is the previous event's hash of the same game (as its
64 ASCII hex characters) and ``payload`` the event's canonical bytes
(``tonk.core.events.encode``).  The first event of a game links to
:data:`GENESIS`, 64 zeros.  Editing, inserting, removing or reordering any
event breaks the chain from that point on.
"""

from __future__ import annotations

from hashlib import sha256
from typing import Iterable, Iterator, NamedTuple

import msgspec

GENESIS = "0" * 64


def link_hash(prev_hash: str, payload: bytes) -> str:
    """The hash of an event whose canonical bytes are ``payload``, following ``prev_hash``."""
    return sha256(prev_hash.encode("ascii") + payload).hexdigest()


def chain_links(prev_hash: str, payloads: Iterable[bytes]) -> list[tuple[str, str]]:
    """``(prev_hash, hash)`` of each of ``payloads`` appended in order after ``prev_hash``
    (the write path: what an append stores with each event)."""
    out = []
    prev_b = prev_hash.encode("ascii")
    for data in payloads:
        h = sha256(prev_b + data).hexdigest()
        out.append((prev_hash, h))
        prev_hash, prev_b = h, h.encode("ascii")
    return out


class LinkBreak(NamedTuple):
    """Why one event does not continue its game's chain: ``kind`` is ``seq`` (a gap),
    ``prev`` (``prev_hash`` is not the previous event's hash) or ``hash`` (the payload
    does not hash to the stored hash)."""

    kind: str
    expected: str
    found: str


def link_break(want_seq: int, last_hash: str, seq: int, prev_hash: str, payload: bytes, hash_: str) -> LinkBreak | None:
    """Check that an event (``seq``, ``prev_hash``, ``payload``, ``hash_``) continues a
    chain whose next seq is ``want_seq`` and last hash ``last_hash``; ``None`` if it does."""
    if seq != want_seq:
        return LinkBreak("seq", str(want_seq), str(seq))
    if prev_hash != last_hash:
        return LinkBreak("prev", last_hash, prev_hash)
    computed = link_hash(prev_hash, payload)
    if computed != hash_:
        return LinkBreak("hash", computed, hash_)
    return None


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


def _check_row(game_id: str, seq: int, want_seq: int, type_: str, payload: str, hash_: str, prev_hash: str, last_hash: str) -> ChainFinding | None:
    data = payload.encode("utf-8")
    broken = link_break(want_seq, last_hash, seq, prev_hash, data, hash_)
    if broken is not None:
        if broken.kind == "seq":
            message = f"sequence gap: seq {want_seq} is missing"
        elif broken.kind == "prev":
            what = "the genesis value" if want_seq == 1 else f"the hash of seq {want_seq - 1}"
            message = f"prev_hash is not {what}: the chain is broken before this event"
        else:
            message = "the payload does not hash to the stored hash: the event was changed"
        return ChainFinding(game_id, seq, broken.expected, broken.found, message)
    try:
        head = _head.decode(data)
    except msgspec.DecodeError as exc:
        return ChainFinding(game_id, seq, "a JSON object", payload[:60], f"the payload is not JSON: {exc}")
    if head.type != type_:
        return ChainFinding(game_id, seq, head.type, type_, "the type column does not match the payload's type")
    if seq == 1 and (head.type != "game_started" or head.game_id != game_id):
        return ChainFinding(
            game_id, seq, f"game_started of {game_id}", f"{head.type} of {head.game_id}", "a game's first event must be its own game_started"
        )
    return None


def check_chain(rows: Iterable[tuple[str, int, str, str, str, str]]) -> Iterator[ChainFinding]:
    """Check rows ``(game_id, seq, type, payload, hash, prev_hash)`` ordered by game and seq;
    yield the first broken link of each game (what follows a break rests on it)."""
    current = None
    want_seq = 1
    last_hash = GENESIS
    broken = False
    for game_id, seq, type_, payload, hash_, prev_hash in rows:
        if game_id != current:
            current, want_seq, last_hash, broken = game_id, 1, GENESIS, False
        if broken:
            continue
        finding = _check_row(game_id, seq, want_seq, type_, payload, hash_, prev_hash, last_hash)
        if finding is not None:
            broken = True
            yield finding
            continue
        want_seq = seq + 1
        last_hash = hash_
