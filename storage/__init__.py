"""The event store: an append-only, hash-chained log of games, with a ``games``
projection and JSONL export/import; in a SQLite file, or on a PostgreSQL server
(``open_store`` picks the back end from a path or a ``postgresql://`` URL).

>>> from tonk.storage import open_store
>>> with open_store("tonk.db") as store:                    # doctest: +SKIP
...     store.append(game.game_id, game.events, expected_version=0)
"""

from .chain import GENESIS, ChainFinding, link_hash
from .errors import ConcurrencyError, ImportRefused, StoreError, UnknownGame
from .feed import Positioned
from .open import open_store
from .schema import SCHEMA_VERSION
from .store import EventStore, Record, VerifiedGame

__all__ = [
    "open_store",
    "EventStore",
    "Positioned",
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
