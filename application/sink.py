"""Where the application layer writes events: anything that appends a game's events
at an expected version (:class:`tonk.storage.EventStore` is one)."""

from __future__ import annotations

from typing import Protocol, Sequence

from ..core.events import Event


class EventSink(Protocol):
    def append(self, game_id: str, events: Sequence[Event], expected_version: int) -> int: ...

    def read(self, game_id: str) -> list[Event]: ...

    def close(self) -> None: ...
