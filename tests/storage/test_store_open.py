"""Opening: files that are not tonk stores, newer schemas and corrupt files are refused, untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tonk.storage import EventStore, StoreError


def refused(path: Path, digest, match: str, **kw) -> None:
    before = digest(path)
    with pytest.raises(StoreError, match=match):
        EventStore.open(path, **kw)
    assert digest(path) == before
    assert not Path(str(path) + "-wal").exists()


def test_missing_file_with_create_false_is_refused_and_not_created(tmp_path):
    path = tmp_path / "missing.db"
    with pytest.raises(StoreError, match="no tonk store at .*missing.db"):
        EventStore.open(path, create=False)
    assert not path.exists()


def test_missing_directory_is_a_clear_error(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        EventStore.open(tmp_path / "no" / "such" / "dir.db")


def test_text_file_is_refused_unchanged(tmp_path, digest):
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 10)
    refused(path, digest, r"not a tonk store \(not a SQLite database\)")


def test_other_sqlite_database_is_refused_unchanged(tmp_path, digest):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO customers (name) VALUES ('ann')")
    conn.commit()
    conn.close()
    refused(path, digest, r"SQLite database but not a tonk store \(tables: customers\)")
    refused(path, digest, "not a tonk store", create=False)


def test_newer_schema_is_refused_unchanged(db, digest, record, games):
    record(db, games[:1])
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 7")
    conn.close()
    refused(db, digest, "schema version 7, newer than this tonk's")


def test_unknown_migration_is_refused_unchanged(db, digest, record, games):
    record(db, games[:1])
    conn = sqlite3.connect(db)
    conn.execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('tonk', '0002_from_the_future', '2030-01-01')"
    )
    conn.commit()
    conn.close()
    refused(db, digest, "migrations this tonk does not know.*0002_from_the_future")


@pytest.mark.parametrize("where", ["header", "data"])
def test_corrupt_file_is_refused_unchanged(db, digest, record, games, where):
    record(db, games)
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) > 4 * page
    if where == "header":
        data[16:24] = b"\xff" * 8  # page size and format bytes
    else:
        for start in range(page, len(data), page):  # every b-tree page header after the first
            data[start : start + 12] = b"\xee" * 12
    db.write_bytes(bytes(data))
    refused(db, digest, "corrupt|not a tonk store")


def test_truncated_file_is_refused_unchanged(db, digest, record, games):
    record(db, games)
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    refused(db, digest, "corrupt")


def test_empty_file_is_initialised_only_when_creating(tmp_path):
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    with pytest.raises(StoreError, match="empty, not a tonk store"):
        EventStore.open(path, create=False)
    assert path.read_bytes() == b""
    with EventStore.open(path) as store:
        assert store.game_ids() == []
    with EventStore.open(path, create=False) as store:
        assert store.game_ids() == []


def test_directory_is_refused(tmp_path):
    with pytest.raises(StoreError, match="is a directory"):
        EventStore.open(tmp_path)


def test_context_manager_closes(db):
    with EventStore.open(db) as store:
        pass
    with pytest.raises(sqlite3.ProgrammingError):
        store.db.conn.execute("SELECT 1")
