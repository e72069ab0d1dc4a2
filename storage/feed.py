"""The store's global reading order: every event of every game, by ``position``.

Both back ends give each appended event a ``position`` (1, 2, 3, ...) in the
order the appends commit, with no gaps: an append takes the store's write lock
first (SQLite's ``BEGIN IMMEDIATE``; PostgreSQL's one-row position counter,
locked at the start of the append's transaction), so a reader that has seen
position ``p`` has seen every position below it, and a follower that asks for
``read_all(after=p)`` again never skips an event that committed late.

:func:`follow` is the subscriber's loop: read what is new, yield it, wait for a
hint (``store.wait_for_append``: a PostgreSQL ``NOTIFY``, or a short sleep on
SQLite) and read again.  The hint only shortens the wait; the positions are
the truth, so a lost notification costs at most one poll interval.
"""

from __future__ import annotations

from typing import Callable, Iterator, NamedTuple

import msgspec

from ..core.events import Event
from .codec import Decoder, decode_error, first_event
from .errors import StoreError

READ_ALL_LIMIT = 1000
#: the last position a store can hold (SQLite's and PostgreSQL's 64-bit integers)
LAST_POSSIBLE = 2**63 - 1


def window(after: int, limit: int) -> tuple[int, int]:
    """The bounds of a read of the global order (``read_all``, ``appended_after``), taken the
    same way by every back end: whole numbers (else :class:`StoreError`, and for a negative
    ``limit``); an ``after`` below 0 reads from the first position, and bounds past the last
    position a store can hold are that position (SQLite could not take them)."""
    for name, value in (("after", after), ("limit", limit)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise StoreError(f"{name} must be a whole number, not {value!r}")
    if limit < 0:
        raise StoreError(f"limit must be a whole number >= 0, not {limit}")
    return min(max(after, 0), LAST_POSSIBLE), min(limit, LAST_POSSIBLE)


class Positioned(NamedTuple):
    """One event in the global order: its position, its game and seq, and the event."""

    position: int
    game_id: str
    seq: int
    event: Event


class FeedDecoder:
    """Decodes rows of the global order, each game through its own format's decoder
    (picked from its ``game_started``; ``first_payload(game_id)`` fetches that one
    when the game began before the rows at hand)."""

    def __init__(self, first_payload: Callable[[str], str | bytes]):
        self._first_payload = first_payload
        self._decoders: dict[str, Decoder] = {}

    def games(self) -> int:
        """How many games' decoders are kept."""
        return len(self._decoders)

    def decode(self, position: int, game_id: str, seq: int, payload: str | bytes) -> Positioned:
        try:
            dec = self._decoders.get(game_id)
            if dec is None:
                if seq == 1:
                    event, dec = first_event(payload)
                    self._decoders[game_id] = dec
                    return Positioned(position, game_id, seq, event)
                _, dec = first_event(self._first_payload(game_id))
                self._decoders[game_id] = dec
            return Positioned(position, game_id, seq, dec(payload))
        except (msgspec.DecodeError, msgspec.ValidationError, StoreError) as exc:
            raise decode_error(game_id, seq, exc) from None


def follow(store, after: int = 0, *, poll: float = 0.5, stop: Callable[[], bool] = lambda: False) -> Iterator[Positioned]:
    """Every event after position ``after``, as it is appended, until ``stop()`` is true
    (checked between reads).  Each position is yielded exactly once, in order."""
    while not stop():
        batch = store.read_all(after)
        for item in batch:
            yield item
        if batch:
            after = batch[-1].position
            if len(batch) >= READ_ALL_LIMIT:
                continue
        store.wait_for_append(poll)
