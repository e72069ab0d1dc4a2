"""Errors of the event store.  Every one is a :class:`~tonk.core.errors.TonkError`, so the
CLI prints it as one ``error:`` line without a traceback."""

from __future__ import annotations

from ..core.errors import TonkError
from ..core.names import quoted


class StoreError(TonkError):
    """The store cannot do what was asked: a file that is not a tonk store, a newer
    schema, a corrupt file, a refused write.  The message names the file or game."""


class StoreUnavailable(StoreError):
    """The store's file or server failed a read or a write that was well formed (a disk
    error, a database that does not answer or refuses the session): no fault of what was
    asked.  A write that fails so is rolled back whole.  The message names the store (a
    service answers it without the name: the store's path or URL is the operator's)."""


class ConcurrencyError(StoreError):
    """An append lost the race: ``expected`` events were assumed stored, ``actual`` are.
    Nothing was written."""

    def __init__(self, game_id: str, expected: int, actual: int):
        why = "another writer appended first" if actual > expected else "the expected version is ahead of the store"
        super().__init__(
            f"game {game_id}: expected version {expected} but the store holds {actual} events ({why}); nothing was written"
        )
        self.game_id = game_id
        self.expected = expected
        self.actual = actual


class UnknownGame(StoreError):
    """No event of this game is stored."""

    def __init__(self, game_id: str):
        super().__init__(f"no game {quoted(game_id)} in the store")
        self.game_id = game_id


class ImportRefused(StoreError):
    """A JSONL file that cannot be imported; nothing was written.  ``line`` is 1-based
    (0 when the problem is not tied to one line)."""

    def __init__(self, source: str, line: int, reason: str):
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: {reason}; nothing was imported")
        self.source = source
        self.line = line
        self.reason = reason
