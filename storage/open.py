"""Opening a store: the one place that picks the back end from ``--db`` / ``TONK_DB``.

>>> open_store("tonk.db")                                  # doctest: +SKIP
>>> open_store("postgresql://tonk@db.example/tonk")        # doctest: +SKIP
>>> open_store(":memory:")                                 # doctest: +SKIP

A ``postgresql://`` (or ``postgres://``) URL opens the PostgreSQL store
(:mod:`.postgres`, which needs the ``postgres`` extra); ``:memory:`` a new, empty
in-memory store (:mod:`.memory`), gone when it is dropped; anything else is the
path of a SQLite file (:mod:`.sqlite`).  All three keep one contract (:mod:`.base`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .memory import TARGET as MEMORY

if TYPE_CHECKING:
    from .base import EventStore


def is_postgres(target: str | Path) -> bool:
    """True when ``target`` names a PostgreSQL store (a URL), not a SQLite file."""
    from .postgres import is_url

    return is_url(target)


def is_memory(target: str | Path) -> bool:
    """True when ``target`` asks for a new in-memory store (``:memory:``)."""
    return isinstance(target, str) and target == MEMORY


def open_store(
    target: str | Path,
    create: bool = True,
    *,
    read_only: bool = False,
    durable: bool = True,
    integrity_check: bool = True,
    bulk: bool = False,
) -> "EventStore":
    """The store ``target`` names.  ``create``: make the store when it does not exist yet
    (else :class:`~tonk.storage.errors.StoreError`); ``read_only``: open an existing store
    for reading only (nothing can be written through it); ``durable``: each commit waits
    for the disk (else a later ``sync_wal()`` makes it durable: SQLite's
    :meth:`~.sqlite.SqliteEventStore.open_file`, PostgreSQL's
    :meth:`~.postgres.PostgresEventStore.open_url`); ``integrity_check`` and ``bulk`` are
    the SQLite store's, ignored by the others.  The in-memory store ignores all three."""
    if is_postgres(target):
        from .postgres import PostgresEventStore

        return PostgresEventStore.open_url(str(target), create=create and not read_only, read_only=read_only, durable=durable)
    if is_memory(target):
        from .memory import MemoryEventStore

        return MemoryEventStore.open_memory(None, create=create, read_only=read_only)
    from .sqlite import SqliteEventStore

    return SqliteEventStore.open_file(target, create=create, read_only=read_only, durable=durable, integrity_check=integrity_check, bulk=bulk)


def describe(target: str | Path) -> str:
    """How messages name the store: the file's path, or the URL without its password."""
    if is_postgres(target):
        from .postgres import redact

        return redact(str(target))
    return str(target)


def store_exists(target: str | Path) -> bool:
    """Whether ``target`` may hold a store: a SQLite file that exists, or any PostgreSQL URL
    (whether it holds a tonk store is for :func:`open_store` with ``create=False`` to say).
    A new in-memory store holds nothing: it does not exist before it is opened."""
    return is_postgres(target) or (not is_memory(target) and Path(target).exists())
