"""Opening a store: the one place that picks the back end from ``--db`` / ``TONK_DB``.

>>> open_store("tonk.db")                                  # doctest: +SKIP
>>> open_store("postgresql://tonk@db.example/tonk")        # doctest: +SKIP

A ``postgresql://`` (or ``postgres://``) URL opens the PostgreSQL store
(:mod:`.postgres`, which needs the ``postgres`` extra); anything else is the
path of a SQLite file.  Both stores keep one contract.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .store import EventStore


def is_postgres(target: str | Path) -> bool:
    """True when ``target`` names a PostgreSQL store (a URL), not a SQLite file."""
    from .postgres import is_url

    return is_url(target)


def open_store(target: str | Path, create: bool = True, *, read_only: bool = False, **options: Any) -> EventStore:
    """The store ``target`` names.  ``create``: make the store when it does not exist yet
    (else :class:`~tonk.storage.errors.StoreError`); ``read_only``: open an existing store
    for reading only (nothing can be written through it); other options go to the SQLite
    store (``durable``, ``integrity_check``) and are ignored by PostgreSQL."""
    if is_postgres(target):
        from .postgres import PostgresEventStore

        return PostgresEventStore.open(str(target), create=create and not read_only, read_only=read_only)
    return EventStore.open(target, create=create, read_only=read_only, **options)


def describe(target: str | Path) -> str:
    """How messages name the store: the file's path, or the URL without its password."""
    if is_postgres(target):
        from .postgres import redact

        return redact(str(target))
    return str(target)


def store_exists(target: str | Path) -> bool:
    """Whether ``target`` may hold a store: a SQLite file that exists, or any PostgreSQL URL
    (whether it holds a tonk store is for :func:`open_store` with ``create=False`` to say)."""
    return is_postgres(target) or Path(target).exists()
