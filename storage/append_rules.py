"""The rules of an append, the same on every back end: what may be appended, after how
many events, and the chained rows it stores.

A store calls :func:`checked_append` before it takes its write lock (the arguments
alone), then :func:`rows_after` with the game's last stored row, read under the lock.
"""

from __future__ import annotations

import time
from typing import Callable, Iterable

from ..core.events import EVENT_TYPES, FORMAT_VERSION, Event, GameStarted, encode, event_type
from .chain import CHAIN_VERSION, GENESIS, chain_links
from .errors import ConcurrencyError, StoreError

#: one stored row as an append writes it: game_id, seq, type, payload, recorded_at, hash,
#: prev_hash, command_id, position, chain
EventRow = tuple[str, int, str, str, str, str, str, str, int, int]
#: a game's last stored row as the rules need it: seq, hash, type
LastRow = tuple[int, str, str]

#: each event class's tag (EVENT_TYPES inverted): what the type column holds
_TAG: dict[type, str] = {cls: name for name, cls in EVENT_TYPES.items()}


#: the whole second :func:`now` last wrote and its text up to the seconds: formatted once a second
_second: tuple[int, str] = (-1, "")


def now() -> str:
    """The time recorded with an append: UTC, ISO 8601 with microseconds
    (:data:`~.chain.AT_FORMAT`: the same text as ``datetime.now(timezone.utc).strftime(AT_FORMAT)``,
    which also takes the system clock's microseconds rounded down), its date and time of day
    formatted once a second."""
    global _second, _recent
    micros = time.time_ns() // 1000
    sec, us = divmod(micros, 1_000_000)
    last, text = _second
    if sec != last:
        t = time.gmtime(sec)
        text = f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"
        _second = (sec, text)
    at = f"{text}.{us:06d}Z"
    _recent = (at, micros)
    return at


#: the text :func:`now` last gave and its microseconds after 1970-01-01T00:00:00Z
_recent: tuple[str, int] = ("", 0)


def recent_micros(text: str) -> int | None:
    """The microseconds after 1970-01-01T00:00:00Z of ``text`` when it is the text :func:`now`
    gave last (what a store that keeps times as numbers stores for it, not parsed again), else None."""
    at, micros = _recent
    return micros if text == at else None


def checked_append(
    game_id: object, events: Iterable[Event], expected_version: object, command_id: object
) -> tuple[list[Event], list[tuple[str, bytes]], str]:
    """The arguments of an append checked: the events, each event's tag and canonical
    bytes, and the command id as text (``""`` for none)."""
    if not isinstance(game_id, str) or not game_id:
        raise StoreError("a game id must be non-empty text")
    if not storable(game_id):
        raise StoreError(f"a game id must be text without NUL (U+0000), not {game_id!r}")
    if isinstance(expected_version, bool) or not isinstance(expected_version, int) or expected_version < 0:
        raise StoreError(f"game {game_id}: expected_version must be a whole number >= 0, not {expected_version!r}")
    events = list(events)
    cmd = command_id or ""
    if not isinstance(cmd, str) or not _is_utf8(cmd) or not storable(cmd):
        raise StoreError(f"game {game_id}: a command id must be text (UTF-8) without NUL (U+0000), not {cmd!r}")
    tag = _TAG.get
    encoded = []
    for i, e in enumerate(events):
        name = tag(type(e))
        if name is None:
            raise StoreError(f"game {game_id}: item {i} of the append is not an event ({type(e).__name__})")
        encoded.append((name, encode(e)))
    return events, encoded, cmd


def rows_after(
    game_id: str,
    events: list[Event],
    encoded: list[tuple[str, bytes]],
    cmd: str,
    expected_version: int,
    last: LastRow | None,
    last_position: Callable[[], int],
) -> tuple[int, list[EventRow], str]:
    """The rules of an append given the game's last stored row ``last`` (None for a new
    game): the expected version (:class:`ConcurrencyError`), how a game starts, nothing
    after its end, and the chained rows to insert (positions after ``last_position()``,
    asked only when there are rows).  Returns the game's version before the append,
    the rows and their time."""
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


def storable(text: str) -> bool:
    """Whether every back end keeps ``text`` as it is: no NUL (U+0000), which PostgreSQL's
    text type refuses.  An id holding one is refused on append and import everywhere, and
    asked for it names no game (no store holds one)."""
    return "\x00" not in text


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
