"""Schema 5's lean layout of the events (tonk.storage.sqlite_layout): a store made by tonk of
schema 4 opens (read only as it is; for writing, migrated) with every value of every event
exactly as recorded, and the chain verifies; the lean values are what the layout says; a
change to a lean row is found like any other."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from tonk.storage import EventStore
from tonk.storage import payload_zip
from tonk.storage.schema import SCHEMA_VERSION
from tonk.storage.sqlite_layout import TIMED, at_text, at_value, hash_value

FIXTURE = Path(__file__).parent / "fixtures" / "schema4.db"
COLUMNS = "game_id, seq, type, payload, recorded_at, hash, prev_hash, command_id, position, chain"


@pytest.fixture
def old(tmp_path: Path) -> Path:
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    return path


def table_rows(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"SELECT {COLUMNS} FROM events ORDER BY position").fetchall()
    finally:
        conn.close()


def everything(store: EventStore) -> dict:
    ids = store.game_ids()
    return {
        "records": {gid: list(store.records(gid)) for gid in ids},
        "feed": [(p.position, p.game_id, p.seq, p.event) for p in store.read_all(limit=100_000)],
        "games": store.games(),
        "events": {gid: store.read(gid) for gid in ids},
        "hashes": {gid: store.hash_rows(gid) for gid in ids},
        "versions": {gid: store.version(gid) for gid in ids},
    }


def test_the_fixture_is_a_schema_4_store_with_command_ids_and_a_game_in_play():
    conn = sqlite3.connect(f"file:{FIXTURE}?mode=ro", uri=True)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 4
    assert conn.execute("SELECT type FROM sqlite_master WHERE name = 'events'").fetchone()[0] == "table"
    assert conn.execute("SELECT count(DISTINCT game_id), count(DISTINCT command_id) FROM events").fetchone() == (3, 67)
    assert conn.execute("SELECT count(*) FROM events WHERE type = 'game_ended'").fetchone()[0] == 2
    conn.close()


def test_a_schema_4_store_migrates_with_every_value_of_every_event_as_recorded(old):
    before_rows = table_rows(old)
    with EventStore.open(old, read_only=True) as store:  # read as it is: not migrated
        assert store.verify() == [] and store.trigger_problems() == [] and store.projection_findings() == []
        before = everything(store)
    assert sqlite3.connect(old).execute("PRAGMA user_version").fetchone()[0] == 4
    with EventStore.open(old) as store:  # for writing: migrated to the lean layout
        assert store.verify() == [] and store.trigger_problems() == [] and store.projection_findings() == []
        assert everything(store) == before
        assert [bytes(r.payload) for g in before["records"].values() for r in g] == [
            r[3].encode() for r in sorted(before_rows, key=lambda r: (r[0], r[1]))
        ]
    conn = sqlite3.connect(old)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
    assert conn.execute("SELECT type FROM sqlite_master WHERE name = 'events'").fetchone()[0] == "view"
    conn.close()
    # the view shows schema 4's table, value for value (the large payloads as their compressed blobs)
    after = table_rows(old)
    assert len(after) == len(before_rows)
    for was, now in zip(before_rows, after):
        assert now[:3] + now[4:] == was[:3] + was[4:]
        assert now[3] == was[3] or payload_zip.unpack(now[3]) == was[3].encode()


def test_a_migrated_store_takes_appends_and_keeps_verifying(old, games):
    with EventStore.open(old) as store:
        top = store.last_position()
        g = games[0]
        assert store.append(g.game_id, g.events[:4], 0, command_id="c1") == 4
        assert store.append(g.game_id, g.events[4:], 4, command_id="c1") == 4  # the command is recorded: nothing new
        assert store.append(g.game_id, g.events[4:], 4, command_id="c2") == len(g.events)
        assert [p.position for p in store.read_all(after=top, limit=1000)] == list(range(top + 1, top + len(g.events) + 1))
        assert store.verify() == [] and store.read(g.game_id) == g.events
        records = list(store.records(g.game_id))
        assert [r.command_id for r in records] == ["c1"] * 4 + ["c2"] * (len(g.events) - 4)
    conn = sqlite3.connect(old)
    stored = conn.execute(
        "SELECT r.command_id FROM event_rows AS r JOIN game_numbers AS k ON k.game = r.game WHERE k.game_id = ? ORDER BY r.seq", (g.game_id,)
    ).fetchall()
    conn.close()
    assert [c for (c,) in stored] == ["c1", None, None, None, "c2"] + [None] * (len(g.events) - 5)  # once per append
    assert [r.prev_hash for r in records[1:]] == [r.hash for r in records[:-1]]


def test_the_lean_values(db, games, record, raw_conn):
    record(db, games[:2])
    conn = raw_conn(db)
    rows = conn.execute(
        "SELECT seq, typeof(hash), length(hash), prev_hash, typeof(recorded_at), command_id, typeof(payload), length(payload), type "
        "FROM event_rows WHERE game = 1 ORDER BY seq"
    ).fetchall()
    assert all(r[1:3] == ("blob", 32) for r in rows)
    assert all(r[3] is None for r in rows)  # the previous row's hash
    assert rows[0][4] == "integer"  # one append: one time, kept on the events the projection reads
    assert all(r[4] == ("integer" if r[8] in TIMED else "null") for r in rows[1:])
    assert {r[8] for r in rows if r[4] == "integer"} >= {"game_started", "hand_ended"}
    assert all(r[5] == "" for r in rows)  # no command id: '' costs what NULL costs
    dealt = [r for r in rows if r[8] == "hand_dealt"]
    assert dealt and all(r[6] == "blob" for r in dealt)
    assert all(r[6] == "text" for r in rows if r[8] in ("card_drawn", "card_discarded"))
    assert conn.execute("SELECT game_id FROM game_numbers WHERE game = 1").fetchone()[0] == games[0].game_id
    conn.close()


def test_dictionary_1_never_changes():
    assert hashlib.sha256(payload_zip.DICTIONARY_1).hexdigest() == "63887c16c9ec57fae237f7f952c7765d6006c1c57643600297c32e9a6339b82a"


def test_packing_gives_the_exact_bytes_back(games):
    for g in games:
        from tonk.core.events import encode

        for e in g.events:
            data = encode(e)
            packed = payload_zip.pack(data)
            assert (payload_zip.unpack(packed) if isinstance(packed, bytes) else packed.encode()) == data
    assert payload_zip.unpack(b"\x01not deflate") == b"\x01not deflate"  # found by the chain check, not a crash
    assert payload_zip.unpack(b"\x09") == b"\x09"


@pytest.mark.parametrize(
    "text",
    ["2026-12-01T20:00:00.123456Z", "1970-01-01T00:00:00.000000Z", "9999-12-31T23:59:59.999999Z"],
)
def test_recorded_times_kept_as_integers_come_back_as_the_same_text(text):
    us = at_value(text)
    assert isinstance(us, int) and at_text(us) == text


@pytest.mark.parametrize(
    "text",
    ["2026-12-01T20:00:00Z", "2026-12-01T20:00:00.123456+00:00", "2026-12-01 20:00:00.123456Z", "1969-12-31T23:59:59.999999Z", "", "yesterday"],
)
def test_other_recorded_times_stay_text(text):
    assert at_value(text) == text


def test_hashes_that_are_not_lowercase_hex_stay_text():
    h = "ab" * 32
    assert hash_value(h) == bytes.fromhex(h)
    for other in ("AB" * 32, "ab" * 31, "zz" * 32, ""):
        assert hash_value(other) == other


def _tamper_lean(db: Path, sql: str, *args) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TRIGGER IF EXISTS events_no_update")
    conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
    conn.execute(sql, args)
    conn.close()


def _first_finding(db: Path, game_id: str):
    with EventStore.open(db) as store:
        findings = store.verify(game_id)
        verified = {v.game_id: v for v in store.iter_verified_games()}
    assert len(findings) == 1 and not verified[game_id].intact
    return findings[0]


def _seq_of(db: Path, type_: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT min(seq) FROM event_rows WHERE game = 1 AND type = ?", (type_,)).fetchone()[0])
    finally:
        conn.close()


def test_a_changed_byte_of_a_stored_hash_is_found(db, games, record):
    record(db, games[:1])
    _tamper_lean(db, "UPDATE event_rows SET hash = zeroblob(32) WHERE game = 1 AND seq = 3")
    f = _first_finding(db, games[0].game_id)
    assert f.seq == 3 and "do not hash to the stored hash" in f.message


def test_a_changed_time_of_an_append_is_found_at_its_first_event(db, games, record):
    record(db, games[:1])
    _tamper_lean(db, "UPDATE event_rows SET recorded_at = recorded_at + 1 WHERE game = 1 AND seq = 1")
    assert _first_finding(db, games[0].game_id).seq == 1


def test_a_time_given_to_an_event_that_shared_its_appends_is_found(db, games, record):
    record(db, games[:1])
    _tamper_lean(db, "UPDATE event_rows SET recorded_at = 0 WHERE game = 1 AND seq = 2")
    assert _first_finding(db, games[0].game_id).seq == 2


def test_a_compressed_payload_replaced_by_another_is_found(db, games, record):
    record(db, games[:1])
    seq = _seq_of(db, "hand_dealt")
    conn = sqlite3.connect(db)
    stored = conn.execute("SELECT payload FROM event_rows WHERE game = 1 AND seq = ?", (seq,)).fetchone()[0]
    conn.close()
    assert isinstance(stored, bytes)
    forged = payload_zip.unpack(stored).replace(b'"hand_no":1', b'"hand_no":7')
    _tamper_lean(db, "UPDATE event_rows SET payload = ? WHERE game = 1 AND seq = ?", payload_zip.pack(forged), seq)
    f = _first_finding(db, games[0].game_id)
    assert f.seq == seq and "do not hash to the stored hash" in f.message


def test_a_payload_that_does_not_inflate_is_found_not_a_crash(db, games, record):
    record(db, games[:1])
    seq = _seq_of(db, "hand_dealt")
    _tamper_lean(db, "UPDATE event_rows SET payload = x'01ffff' WHERE game = 1 AND seq = ?", seq)
    assert _first_finding(db, games[0].game_id).seq == seq


def test_an_event_moved_to_another_game_is_found(db, games, record):
    record(db, games[:2])
    _tamper_lean(db, "UPDATE event_rows SET game = 2, seq = 1000 WHERE game = 1 AND seq = 5")
    assert _first_finding(db, games[0].game_id).seq == 6


def test_the_values_bound_for_null_never_stand_for_a_stored_value():
    """lean_rows binds -1 and 0 for NULL (sqlite3 adapts None slowly); a time of 0 µs and
    command ids '0' and '-1' are still stored as themselves."""
    from tonk.storage import sqlite_layout as lean

    conn = sqlite3.connect(":memory:")
    for sql in lean.TABLES:
        conn.execute(sql)
    h = [hashlib.sha256(bytes([i])).hexdigest() for i in range(4)]
    epoch = "1970-01-01T00:00:00.000000Z"
    rows = [
        ("g", 1, "game_started", "{}", epoch, h[0], "0" * 64, "0", 1, 2),
        ("g", 2, "hand_dealt", "{}", epoch, h[1], h[0], "0", 2, 2),
        ("g", 3, "card_drawn", "{}", "2026-01-01T00:00:00.000000Z", h[2], "0", "-1", 3, 2),
        ("g", 4, "card_drawn", "{}", "-1", h[3], h[2], "-1", 4, 2),
    ]
    conn.executemany(lean.INSERT_ROW, lean.lean_rows(7, rows, None))
    stored = conn.execute("SELECT seq, recorded_at, typeof(recorded_at), prev_hash, command_id, typeof(hash) FROM event_rows ORDER BY seq").fetchall()
    assert stored == [
        (1, 0, "integer", None, "0", "blob"),  # 0 µs is a time, '0' a command id (and the genesis hash NULL)
        (2, None, "null", None, None, "blob"),  # the previous row's time, hash and command id
        (3, at_value("2026-01-01T00:00:00.000000Z"), "integer", "0", "-1", "blob"),
        (4, "-1", "text", None, None, "blob"),  # a time kept as its text, even '-1'
    ]
