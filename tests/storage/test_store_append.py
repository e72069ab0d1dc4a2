"""Appending and reading: versions, idempotent commands, the stored row, append-only triggers."""

from __future__ import annotations

import json
import sqlite3
from hashlib import sha256
from typing import Any, Callable

import msgspec
import pytest

from tonk.core.errors import TonkError
from tonk.core.events import GameEnded, Knocked, decode, encode, event_type
from tonk.storage import GENESIS, ConcurrencyError, EventStore, StoreError, UnknownGame
from tonk.storage.payload_zip import as_text
from tonk.storage.schema import PAGE_SIZE, STEPS


def test_append_whole_game_then_read_back_equal(db, games):
    with EventStore.open(db) as store:
        for g in games:
            assert store.append(g.game_id, g.events, 0) == len(g.events)
        for g in games:
            assert store.read(g.game_id) == g.events
            assert [seq for seq, _ in store.iter_events(g.game_id)] == list(range(1, len(g.events) + 1))
            assert [e for _, e in store.iter_events(g.game_id)] == g.events
            assert store.version(g.game_id) == len(g.events)
        assert store.game_ids() == sorted(g.game_id for g in games)
        streamed = dict(store.iter_games())
        assert streamed == {g.game_id: g.events for g in games}


def test_append_command_by_command_as_a_service_would(db, play):
    g = play(11, hands=2)
    with EventStore.open(db) as store:
        version = 0
        for e in g.events:
            version = store.append(g.game_id, [e], version)
        assert version == len(g.events)
        assert store.read(g.game_id) == g.events
        assert store.verify() == []


def test_stored_row_is_canonical_bytes_type_and_hash_chain(db, games, record, raw_conn):
    g = games[0]
    record(db, [g])
    conn = raw_conn(db)
    rows = conn.execute(
        "SELECT seq, type, payload, hash, prev_hash, command_id, recorded_at FROM events WHERE game_id = ? ORDER BY seq", (g.game_id,)
    ).fetchall()
    conn.close()
    prev = GENESIS
    for (seq, type_, stored, h, prev_hash, command_id, recorded_at), e in zip(rows, g.events):
        payload = as_text(stored)  # a large payload is stored compressed (tonk.storage.payload_zip)
        assert payload.encode() == encode(e)
        assert type_ == event_type(e)
        assert prev_hash == prev
        meta = json.dumps([recorded_at, command_id], ensure_ascii=False, separators=(",", ":")).encode()  # chain version 2
        assert h == sha256(prev.encode() + encode(e) + b"\n" + meta).hexdigest()
        assert command_id == ""
        assert recorded_at.endswith("Z") and "T" in recorded_at
        prev = h
    assert len(rows) == len(g.events)


def test_concurrency_error_names_game_and_versions_and_writes_nothing(db, games):
    g = games[0]
    with EventStore.open(db) as store:
        store.append(g.game_id, g.events[:3], 0)
        with pytest.raises(ConcurrencyError) as info:
            store.append(g.game_id, g.events[2:], 2)
        err = info.value
        assert (err.game_id, err.expected, err.actual) == (g.game_id, 2, 3)
        assert g.game_id in str(err) and "expected version 2" in str(err) and "holds 3" in str(err)
        assert isinstance(err, StoreError) and isinstance(err, TonkError)
        with pytest.raises(ConcurrencyError) as ahead:
            store.append(g.game_id, g.events[3:], 7)
        assert (ahead.value.expected, ahead.value.actual) == (7, 3)
        assert store.version(g.game_id) == 3
        assert store.read(g.game_id) == g.events[:3]
        # a new game is version 0: claiming otherwise is refused the same way
        with pytest.raises(ConcurrencyError):
            store.append("fresh", [Knocked(player="ann")], 1)


def test_command_id_makes_a_retried_append_a_noop(db, games, raw_conn):
    g = games[1]
    with EventStore.open(db) as store:
        v = store.append(g.game_id, g.events[:1], 0, command_id="start")
        assert store.append(g.game_id, g.events[:1], 0, command_id="start") == v == 1
        v2 = store.append(g.game_id, g.events[1:4], 1, command_id="deal-1")
        assert v2 == 4
        # the retry carries the stale expected version; it is still a no-op, not a conflict
        assert store.append(g.game_id, g.events[1:4], 1, command_id="deal-1") == 4
        # the same command id in another game is another command
        other = games[0]
        assert store.append(other.game_id, other.events, 0, command_id="start") == len(other.events)
        # a new command id after a retry goes on normally
        assert store.append(g.game_id, g.events[4:], 4, command_id="rest") == len(g.events)
        assert store.append(g.game_id, g.events[4:], 4, command_id="rest") == len(g.events)
        assert store.read(g.game_id) == g.events
    conn = raw_conn(db)
    ids = [r[0] for r in conn.execute("SELECT command_id FROM events WHERE game_id = ? ORDER BY seq", (g.game_id,))]
    conn.close()
    assert ids == ["start"] + ["deal-1"] * 3 + ["rest"] * (len(g.events) - 4)


def test_bad_appends_are_refused_with_nothing_written(db, games):
    g = games[0]
    with EventStore.open(db) as store:
        with pytest.raises(StoreError, match="first event must be game_started"):
            store.append(g.game_id, g.events[1:], 0)
        with pytest.raises(StoreError, match="cannot be appended to game other"):
            store.append("other", g.events, 0)
        with pytest.raises(StoreError, match="not an event"):
            store.append(g.game_id, [g.events[0], {"type": "knocked"}], 0)
        with pytest.raises(StoreError, match="second game_started"):
            store.append(g.game_id, [g.events[0], g.events[0]], 0)
        with pytest.raises(StoreError, match="format version 2"):
            store.append(g.game_id, [msgspec.structs.replace(g.events[0], format_version=2)], 0)
        with pytest.raises(StoreError, match="expected_version"):
            store.append(g.game_id, g.events, -1)
        assert store.game_ids() == []
        store.append(g.game_id, g.events[:2], 0)
        with pytest.raises(StoreError, match="second game_started"):
            store.append(g.game_id, [g.events[0]], 2)
        assert store.version(g.game_id) == 2
        assert store.append(g.game_id, [], 2) == 2


def test_unknown_game(db):
    with EventStore.open(db) as store:
        for call in (store.read, store.verify, lambda gid: list(store.iter_events(gid)), store.records):
            with pytest.raises(UnknownGame, match="no game 'nope'"):
                call("nope")
        assert store.version("nope") == 0
        assert isinstance(UnknownGame("x"), TonkError)


def test_triggers_refuse_update_and_delete(db, games, record, raw_conn):
    record(db, games[:1])
    conn = raw_conn(db)
    with pytest.raises(sqlite3.IntegrityError, match="append-only: UPDATE"):
        conn.execute("UPDATE events SET payload = '{}' WHERE seq = 1")
    with pytest.raises(sqlite3.IntegrityError, match="append-only: DELETE"):
        conn.execute("DELETE FROM events")
    conn.close()
    with EventStore.open(db) as store:
        assert store.read(games[0].game_id) == games[0].events


def test_schema_columns_not_null_wal_and_migrations(db, raw_conn):
    EventStore.open(db).close()
    conn = raw_conn(db)
    # schema 4's columns, as a view of the lean rows
    view = [r[1] for r in conn.execute("PRAGMA table_info(events)")]
    assert view == ["game_id", "seq", "type", "payload", "recorded_at", "hash", "prev_hash", "command_id", "position", "chain"]
    assert conn.execute("SELECT type FROM sqlite_master WHERE name = 'events'").fetchone()[0] == "view"
    cols = {r[1]: (r[2], r[3], r[5]) for r in conn.execute("PRAGMA table_info(event_rows)")}
    assert set(cols) == {"game", "seq", "type", "payload", "recorded_at", "hash", "prev_hash", "command_id", "position", "chain"}
    nullable = {"recorded_at", "prev_hash", "command_id"}  # NULL: the previous row's value
    assert all(bool(notnull) == (name not in nullable | {"position"}) for name, (_, notnull, _) in cols.items())
    assert cols["position"] == ("INTEGER", 0, 1)  # the rowid: never NULL
    key = [r[2] for r in conn.execute("PRAGMA index_info(event_rows_key)")]
    assert key == ["game", "seq"] and conn.execute("PRAGMA index_list(event_rows)").fetchall()
    assert conn.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x746F6E6B
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(STEPS)
    applied = conn.execute("SELECT migration_set, name FROM _sqlite_migrations").fetchall()
    assert applied[0] == ("tonk", "0001_events_games")
    assert applied == [("tonk", name) for name, _ in STEPS]
    triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'event_rows'")}
    assert triggers == {"events_no_update", "events_no_delete", "events_position"}
    through_view = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'")}
    assert through_view == {"events_view_update", "events_view_delete", "events_view_insert"}
    conn.close()
    EventStore.open(db).close()  # reopening applies nothing twice
    conn = raw_conn(db)
    assert conn.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0] == len(STEPS)
    conn.close()


def test_events_decode_through_the_formats_upcast(db, games, record, monkeypatch):
    """Reading a game of an older format goes through ``upcast``: pretend the engine moved on."""
    from tonk.storage import codec

    g = games[0]
    record(db, [g])
    seen = []

    def upcast(raw, version):
        seen.append((raw["type"], version))
        return raw

    monkeypatch.setattr(codec, "FORMAT_VERSION", 2)
    monkeypatch.setattr(codec, "upcast", upcast)
    with EventStore.open(db) as store:
        assert store.read(g.game_id) == g.events
    assert [t for t, _ in seen] == [event_type(e) for e in g.events]
    assert {v for _, v in seen} == {1}


def test_a_game_of_a_newer_format_is_refused_on_read(db, games, record, raw_conn):
    g = games[0]
    newer = msgspec.structs.replace(g.events[0], format_version=99)
    payload = encode(newer)
    record(db, [g])
    conn = raw_conn(db)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET payload = ? WHERE game_id = ? AND seq = 1", (payload.decode(), g.game_id))
    conn.close()
    with EventStore.open(db) as store:
        with pytest.raises(StoreError, match="seq 1.*format version 99"):
            store.read(g.game_id)
        with pytest.raises(StoreError, match="format version 99"):
            list(store.iter_games())
    assert decode(payload).format_version == 99


def test_game_ended_only_appends_are_fine_after_start(db, play):
    g = play(5, hands=1, end=False)
    with EventStore.open(db) as store:
        v = store.append(g.game_id, g.events, 0)
        assert store.append(g.game_id, [GameEnded(reason="closed", net=g.net)], v) == v + 1
        assert store.games()[0]["status"] == "ended"


def test_a_failing_write_is_a_store_error_and_rolls_back_events_and_projection(db, games, raw_conn):
    g = games[0]
    with EventStore.open(db) as store:
        store.append(g.game_id, g.events[:2], 0)
    conn = raw_conn(db)
    # the projection update comes after the events' insert in the same transaction: make it fail
    conn.execute("CREATE TRIGGER games_full BEFORE UPDATE ON games BEGIN SELECT RAISE(ABORT, 'disk full, say'); END")
    conn.execute("CREATE TRIGGER games_full_i BEFORE INSERT ON games BEGIN SELECT RAISE(ABORT, 'disk full, say'); END")
    conn.close()
    with EventStore.open(db) as store:
        with pytest.raises(StoreError, match="the write failed and was rolled back: nothing of this write is stored.*disk full, say"):
            store.append(g.game_id, g.events[2:], 2)
        assert store.version(g.game_id) == 2
        assert store.games()[0]["events"] == 2
        assert store.verify() == []


def test_nothing_is_appended_after_game_ended(db, play):
    g = play(5, hands=1, end=False)
    end = GameEnded(reason="closed", net=g.net)
    with EventStore.open(db) as store:
        v = store.append(g.game_id, g.events, 0)
        with pytest.raises(StoreError, match="game_ended at seq"):  # a duplicate inside one append
            store.append(g.game_id, [end, end], v)
        assert store.version(g.game_id) == v
        v = store.append(g.game_id, [end], v)
        with pytest.raises(StoreError, match=f"game {g.game_id} has ended .*nothing can be appended after it"):
            store.append(g.game_id, [end], v)
        assert store.version(g.game_id) == v
        assert store.games()[0]["events"] == v


def test_audit_finds_an_event_after_game_ended(games):
    from tonk.application.audit import audit_pinned

    g = games[0]
    assert type(g.events[-1]) is GameEnded
    report = audit_pinned(list(g.events) + [g.events[-1]])
    assert [(f.seq, f.rule) for f in report.findings] == [(len(g.events) + 1, "log")]
    assert "game_ended after game_ended" in report.findings[0].message


@pytest.mark.parametrize(
    "ns",
    [
        0,
        1_764_645_296_123_456_789,  # 2025-12-02T03:14:56.123456Z, its last three digits dropped
        1_767_225_599_999_999_999,  # the last microsecond of 2025
        1_767_225_600_000_000_000,  # the first of 2026 (a new second, day, month and year)
        1_767_225_600_000_001_000,
        4_102_444_800_000_000_999,  # 2100-01-01
    ],
)
def test_the_recorded_time_is_the_datetime_text_of_the_clock_floored_to_the_microsecond(monkeypatch, ns):
    """``append_rules.now`` formats the date and time of day once a second: every call gives
    the text ``datetime`` gives for the same clock reading, across second, day and year ends."""
    from datetime import datetime, timedelta

    from tonk.storage import append_rules
    from tonk.storage.chain import AT_FORMAT

    expected = (datetime(1970, 1, 1) + timedelta(microseconds=ns // 1000)).strftime(AT_FORMAT)
    for before in (ns - 1_000_000_000, ns - 1000, ns):  # the cached second: another, maybe the same
        monkeypatch.setattr(append_rules.time, "time_ns", lambda before=before: before)
        append_rules.now()
    monkeypatch.setattr(append_rules.time, "time_ns", lambda: ns)
    assert append_rules.now() == expected
    assert datetime.strptime(append_rules.now(), AT_FORMAT) == datetime(1970, 1, 1) + timedelta(microseconds=ns // 1000)
    # the lean layout stores the number of the time just recorded without parsing it again:
    # the same number as parsed, for it and for any other text
    from tonk.storage import sqlite_layout

    assert sqlite_layout.at_value(expected) == ns // 1000
    monkeypatch.setattr(append_rules.time, "time_ns", lambda: ns + 7_000_000_000)
    append_rules.now()
    assert sqlite_layout.at_value(expected) == ns // 1000  # parsed
    assert sqlite_layout.at_value(expected[:-1] + "+") == expected[:-1] + "+"  # not a time it keeps as a number



def test_the_hashes_after_an_append_are_its_own_not_read_back(db, play, monkeypatch):
    """Asked right after an append, ``hashes_after`` answers the hashes that append stored
    without reading them back (a served table asks after every command); asked by another
    store, a second time, or after an append that stored nothing (a retried
    command id), it reads the store."""
    from tonk.storage.sqlite import SqliteEventStore

    g = play(12, hands=2)
    cut = len(g.events) - 2
    reads: list[tuple[str, int]] = []
    hash_rows = SqliteEventStore.hash_rows
    monkeypatch.setattr(SqliteEventStore, "hash_rows", lambda self, gid, after=0: reads.append((gid, after)) or hash_rows(self, gid, after))
    with EventStore.open(db) as store, EventStore.open(db) as other:
        store.append(g.game_id, g.events[:cut], 0)
        mine = store.hashes_after(g.game_id, 0)
        assert reads == []  # its own, not read back
        store.append(g.game_id, g.events[cut:], cut, command_id="last")
        last = store.hashes_after(g.game_id, cut)
        assert reads == []
        assert other.hashes_after(g.game_id, cut) == last and reads == [(g.game_id, cut)]  # another store asks: it reads
        reads.clear()
        assert store.hashes_after(g.game_id, cut) == last and reads == [(g.game_id, cut)]  # asked again: read
        stored = other.hashes_after(g.game_id, 0)
        assert mine == stored[:cut] and len(stored) == len(g.events)
        reads.clear()
        with pytest.raises(ConcurrencyError):
            store.append(g.game_id, g.events[cut:], cut, command_id="again")  # stale: refused, nothing noted
        assert store.hashes_after(g.game_id, cut) == stored[cut:] and reads == [(g.game_id, cut)]
    with EventStore.open(db) as store:
        reads.clear()
        assert store.append(g.game_id, g.events[cut:], cut, command_id="last") == len(g.events)  # retried: stores nothing
        assert store.hashes_after(g.game_id, cut) == stored[cut:] and reads == [(g.game_id, cut)]


def _reads(store: Any, append: Callable[[], Any]) -> list[str]:
    """The reads (``SELECT``, ``PRAGMA``) ``append()`` makes on ``store``'s connection."""
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)
    try:
        append()
    finally:
        store._conn.set_trace_callback(None)
    return [s.split(" FROM ")[0] for s in statements if s.lstrip().upper().startswith(("SELECT", "PRAGMA"))]


def test_an_append_after_this_connections_own_reads_only_whether_its_command_id_is_recorded(db, play):
    """What a write transaction read or wrote (the game's last row, its ``games`` row and
    number, the last position) is known to the next while no other connection commits: an
    append then reads only its command id (and ``PRAGMA data_version``) before it writes, and
    not even that for a game whose first rows this connection wrote (its command ids are known:
    a recorded one is still a no-op)."""
    g = play(13, hands=2)
    with EventStore.open(db) as store:
        store.append(g.game_id, g.events[:5], 0, command_id="c0")
        assert _reads(store, lambda: store.append(g.game_id, g.events[5:8], 5, command_id="c1")) == ["PRAGMA data_version"]
        assert store.append(g.game_id, g.events[8:9], 8, command_id="c0") == 8  # recorded: nothing appended
        assert store.append(g.game_id, g.events[8:9], 8, command_id="c1") == 8
        assert store.read(g.game_id) == g.events[:8] and store.verify() == []
    with EventStore.open(db) as store:  # a game this connection did not start: its ids are read
        store.append(g.game_id, g.events[8:9], 8, command_id="c2")
        reads = _reads(store, lambda: store.append(g.game_id, g.events[9:10], 9, command_id="c3"))
        assert reads == ["PRAGMA data_version", "SELECT 1"], reads
        assert store.append(g.game_id, g.events[10:11], 10, command_id="c1") == 10  # recorded before: nothing appended
        assert store.read(g.game_id) == g.events[:10] and store.verify() == []


def test_a_command_id_another_connection_records_is_seen(db, play):
    """The command ids a connection knows of a game it started are forgotten once another
    connection commits: an id that one recorded makes this connection's append a no-op."""
    g = play(16, hands=2)
    with EventStore.open(db) as a, EventStore.open(db) as b:
        a.append(g.game_id, g.events[:5], 0, command_id="c0")
        b.append(g.game_id, g.events[5:7], 5, command_id="theirs")
        assert a.append(g.game_id, g.events[7:9], 7, command_id="theirs") == 7  # b's: nothing appended
        assert a.append(g.game_id, g.events[7:9], 7, command_id="c0") == 7
        assert a.append(g.game_id, g.events[7:9], 7, command_id="mine") == 9
        assert b.read(g.game_id) == g.events[:9] and b.verify() == []


def test_another_connections_commit_makes_this_one_read_again_what_it_knew(db, play):
    """Two connections (two processes) append in turn to one game and to others: each append
    sees the other's rows (its version, its last hash, the positions, the ``games`` row), a
    stale expected version is refused, and the chain, the order and the projection hold."""
    g, h = play(14, hands=2), play(15, hands=1)
    with EventStore.open(db) as a, EventStore.open(db) as b:
        a.append(g.game_id, g.events[:4], 0)
        b.append(g.game_id, g.events[4:9], 4)  # a knew the game at version 4
        with pytest.raises(ConcurrencyError):
            a.append(g.game_id, g.events[4:6], 4)
        a.append(g.game_id, g.events[9:12], 9)
        b.append(h.game_id, h.events, 0)  # b moves the last position on
        a.append(g.game_id, g.events[12:], 12)
        with pytest.raises(StoreError):  # a failed write: nothing of it is kept, known or stored
            a.append(g.game_id, [g.events[0]], len(g.events))
        b.append(h.game_id, [], len(h.events))
        for store in (a, b):
            assert store.read(g.game_id) == g.events and store.read(h.game_id) == h.events
            assert store.verify() == []
            assert [p for p, _, _ in store.appended_after(0)] == list(range(1, len(g.events) + len(h.events) + 1))
        assert {r["game_id"]: r["events"] for r in a.games()} == {g.game_id: len(g.events), h.game_id: len(h.events)}
        a.rebuild_projection()
        assert {r["game_id"]: r["events"] for r in b.games()} == {g.game_id: len(g.events), h.game_id: len(h.events)}
