"""The event store: an append-only, hash-chained SQLite log of games, with a ``games``
projection and JSONL export/import.

>>> from tonk.storage import EventStore
>>> with EventStore.open("tonk.db") as store:               # doctest: +SKIP
...     store.append(game.game_id, game.events, expected_version=0)
"""

from .chain import GENESIS, ChainFinding, link_hash
from .errors import ConcurrencyError, ImportRefused, StoreError, UnknownGame
from .schema import SCHEMA_VERSION
from .store import EventStore, Record, VerifiedGame

__all__ = [
    "EventStore",
    "Record",
    "VerifiedGame",
    "StoreError",
    "ConcurrencyError",
    "UnknownGame",
    "ImportRefused",
    "ChainFinding",
    "GENESIS",
    "link_hash",
    "SCHEMA_VERSION",
]
