"""The event store: an append-only, hash-chained log of games, with a ``games``
projection and JSONL export/import.  One contract (:class:`EventStore`, in
:mod:`.base`), three back ends: a SQLite file, a PostgreSQL server, or memory
(``open_store`` picks one from a path, a ``postgresql://`` URL or ``:memory:``).

>>> from tonk.storage import open_store
>>> with open_store("tonk.db") as store:                    # doctest: +SKIP
...     store.append(game.game_id, game.events, expected_version=0)
"""

from .chain import GENESIS, ChainFinding, link_hash
from .errors import ConcurrencyError, ImportRefused, StoreError, StoreUnavailable, UnknownGame
from .feed import Positioned
from .open import open_store
from .schema import SCHEMA_VERSION
from .base import EventStore, Record, VerifiedGame

__all__ = [
    "open_store",
    "EventStore",
    "Positioned",
    "Record",
    "VerifiedGame",
    "StoreError",
    "StoreUnavailable",
    "ConcurrencyError",
    "UnknownGame",
    "ImportRefused",
    "ChainFinding",
    "GENESIS",
    "link_hash",
    "SCHEMA_VERSION",
]
