"""Tampering outside the engine (triggers dropped) is found by verify and by audit, at the exact seq."""

from __future__ import annotations

import json
from hashlib import sha256

import msgspec
import pytest

from tonk.application.audit import audit_pinned
from tonk.core.events import CardDiscarded, CardDrawn, encode
from tonk.storage import EventStore


def v2_hash(prev: str, payload: bytes, recorded_at: str, command_id: str) -> str:
    """The hash of an event appended today (chain version 2, docs/event-format.md)."""
    meta = json.dumps([recorded_at, command_id], ensure_ascii=False, separators=(",", ":")).encode()
    return sha256(prev.encode() + payload + b"\n" + meta).hexdigest()


def first_seq(game, kind, **fields) -> int:
    for i, e in enumerate(game.events):
        if type(e) is kind and all(getattr(e, k) == v for k, v in fields.items()):
            return i + 1
    raise AssertionError(f"no {kind.__name__} in the game")


def test_an_untampered_store_verifies_and_audits_clean(db, games, record):
    record(db, games)
    with EventStore.open(db) as store:
        assert store.verify() == []
        for gid, events in store.iter_games():
            assert audit_pinned(events).findings == []


def test_edited_payload_is_found_by_verify_and_audit_at_its_seq(db, games, record, raw_conn, tamper):
    g = games[1]
    record(db, games)
    seq = first_seq(g, CardDrawn, source="stock")
    drawn = g.events[seq - 1]
    other = next(c for c in g.events[1].deck if c != drawn.card)
    forged = encode(msgspec.structs.replace(drawn, card=other)).decode()
    tamper(db, "UPDATE events SET payload = ? WHERE game_id = ? AND seq = ?", forged, g.game_id, seq)

    with EventStore.open(db) as store:
        findings = store.verify()
        assert [(f.game_id, f.seq) for f in findings] == [(g.game_id, seq)]
        f = findings[0]
        conn = raw_conn(db)
        stored_hash, prev, at, cmd = conn.execute(
            "SELECT hash, prev_hash, recorded_at, command_id FROM events WHERE game_id = ? AND seq = ?", (g.game_id, seq)
        ).fetchone()
        conn.close()
        assert f.found == stored_hash
        assert f.expected == v2_hash(prev, forged.encode(), at, cmd)
        assert "changed" in f.message
        assert store.verify(g.game_id) == findings
        assert store.verify(games[0].game_id) == []

        report = audit_pinned(store.read(g.game_id))
        assert [x.seq for x in report.findings] == [seq]


def test_rehashed_forgery_breaks_the_next_link(db, games, record, raw_conn, tamper):
    """A forger who also recomputes the edited row's hash breaks the link after it."""
    g = games[0]
    record(db, [g])
    seq = first_seq(g, CardDiscarded)
    ev = g.events[seq - 1]
    forged = encode(msgspec.structs.replace(ev, card="AS" if ev.card != "AS" else "2S"))
    conn = raw_conn(db)
    prev, old_hash, at, cmd = conn.execute(
        "SELECT prev_hash, hash, recorded_at, command_id FROM events WHERE game_id = ? AND seq = ?", (g.game_id, seq)
    ).fetchone()
    conn.close()
    new_hash = v2_hash(prev, forged, at, cmd)
    tamper(db, "UPDATE events SET payload = ?, hash = ? WHERE game_id = ? AND seq = ?", forged.decode(), new_hash, g.game_id, seq)
    with EventStore.open(db) as store:
        [f] = store.verify()
        assert (f.seq, f.expected, f.found) == (seq + 1, new_hash, old_hash)
        assert "prev_hash" in f.message
        assert audit_pinned(store.read(g.game_id)).findings[0].seq == seq


def only_finding(tamper, db, sql: str, *args):
    """Apply one tampering statement and return the single finding verify reports."""
    tamper(db, sql, *args)
    with EventStore.open(db) as store:
        [f] = store.verify()
    return f


def test_deleted_event_is_a_sequence_gap(db, games, record, tamper):
    g = games[0]
    record(db, [g])
    f = only_finding(tamper, db, "DELETE FROM events WHERE game_id = ? AND seq = 4", g.game_id)
    assert (f.game_id, f.seq, f.expected, f.found) == (g.game_id, 5, "4", "5")
    assert "gap" in f.message


def test_swapped_events_break_the_chain_at_the_first(db, games, record, raw_conn, tamper):
    g = games[0]
    record(db, [g])
    conn = raw_conn(db)
    sql = "SELECT type, payload, hash, prev_hash FROM events WHERE game_id = ? AND seq = ?"
    five, six = (conn.execute(sql, (g.game_id, seq)).fetchone() for seq in (5, 6))
    conn.close()
    update = "UPDATE events SET type = ?, payload = ?, hash = ?, prev_hash = ? WHERE game_id = ? AND seq = ?"
    tamper(db, update, *five, g.game_id, 6)
    f = only_finding(tamper, db, update, *six, g.game_id, 5)
    assert (f.seq, f.expected, f.found) == (5, five[3], six[3])


def test_type_column_edit_is_found(db, games, record, tamper):
    g = games[0]
    record(db, [g])
    f = only_finding(tamper, db, "UPDATE events SET type = 'game_ended' WHERE game_id = ? AND seq = 3", g.game_id)
    assert (f.seq, f.found, f.expected) == (3, "game_ended", g.events[2].__struct_config__.tag)
    assert "type column" in f.message


def test_first_event_of_another_game_is_found(db, games, record, raw_conn, tamper):
    a, b = games[0], games[1]
    record(db, [a, b])
    conn = raw_conn(db)
    row = conn.execute("SELECT payload, hash, recorded_at, command_id FROM events WHERE game_id = ? AND seq = 1", (b.game_id,)).fetchone()
    conn.close()
    tamper(db, "UPDATE events SET payload = ?, hash = ?, recorded_at = ?, command_id = ? WHERE game_id = ? AND seq = 1", *row, a.game_id)
    with EventStore.open(db) as store:
        [f] = store.verify()
        assert (f.game_id, f.seq) == (a.game_id, 1)
        assert "its own game_started" in f.message and b.game_id in f.found


@pytest.mark.parametrize("column", ["payload", "hash"])
def test_findings_are_per_game_first_break_only(db, games, record, column, tamper):
    record(db, games)
    for g in games[:2]:
        value = "{}" if column == "payload" else "f" * 64
        tamper(db, f"UPDATE events SET {column} = ? WHERE game_id = ? AND seq = 2", value, g.game_id)
    with EventStore.open(db) as store:
        findings = store.verify()
    assert sorted((f.game_id, f.seq) for f in findings) == sorted((g.game_id, 2) for g in games[:2])
