"""The evidence tables in the store: an older store gains them on opening, they are
append-only, and the library calls the service uses refuse what they cannot vouch for."""

from __future__ import annotations

import re
import sqlite3

import pytest

from tonk.storage import EventStore, StoreError, UnknownGame
from tonk.storage import evidence as ev
from tonk.storage.evidence_log import TABLES, leaf_bytes, parse_leaf
from tonk.storage.schema import STEPS
from tonk.storage.signed_note import EvidenceError, MalformedEvidence

from .conftest import drop_triggers, raw


def test_an_older_store_gains_the_evidence_tables_and_keeps_its_events(archives, tmp_path):
    path = archives[0].materialise(tmp_path)
    conn = raw(path)
    conn.execute("BEGIN")
    for table in TABLES:
        drop_triggers(conn, table)
        conn.execute(f"DROP TABLE {table}")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = '0002_evidence'")
    conn.execute("PRAGMA user_version = 1")
    conn.execute("COMMIT")
    before = conn.execute("SELECT game_id, seq, hash FROM events ORDER BY game_id, seq").fetchall()
    conn.close()
    with EventStore.open(path) as store:
        conn = store.db.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(STEPS)
        assert conn.execute("SELECT game_id, seq, hash FROM events ORDER BY game_id, seq").fetchall() == before
        with store.evidence() as log:
            assert log.entries() == []
        cp = ev.make_checkpoint(store)
        assert cp.tree_size == len(before)


def test_the_evidence_tables_refuse_update_and_delete(archives, tmp_path):
    path = archives[0].materialise(tmp_path)
    conn = raw(path)
    for table in TABLES:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(f"DELETE FROM {table}")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(f"UPDATE {table} SET rowid = rowid")
    conn.close()


def test_make_receipt_refuses_what_it_cannot_vouch_for(archives, tmp_path):
    path = archives[0].materialise(tmp_path)
    with EventStore.open(path) as store:
        gid = store.game_ids()[0]
        seats = ev.seats_of(store, gid)
        text = ev.make_receipt(store, gid, 2, seats[0])
        assert ev.verify_receipt(store, text).ok
        with pytest.raises(UnknownGame):
            ev.make_receipt(store, "no-such-game", 1, seats[0])
        with pytest.raises(StoreError, match="has no event seq 9999"):
            ev.make_receipt(store, gid, 9999, seats[0])
        with pytest.raises(StoreError, match="is not a seat of game"):
            ev.make_receipt(store, gid, 2, "mallory")
    conn = raw(path)
    drop_triggers(conn, "events")
    conn.execute("UPDATE events SET payload = replace(payload, '\"', '\"') || ' ' WHERE game_id = ? AND seq = 2", (gid,))
    conn.close()
    with EventStore.open(path) as store:
        with pytest.raises(ev.Contradicted, match="broken"):
            ev.make_receipt(store, gid, 3, seats[0])
        ev.make_receipt(store, gid, 1, seats[0])  # before the break: still vouched for


def test_entry_bytes_round_trip_and_refuse_what_is_not_an_entry():
    data = leaf_bytes("g\u00e9me", 7, "ab" * 32)
    assert data[:4] == b"\x00\x00\x00\x05" and parse_leaf(data) == ("g\u00e9me", 7, "ab" * 32)
    for bad in (b"", data[:-1], data + b"\x00", b"\x00\x00\x00\x01\xff" + data[5:]):
        with pytest.raises(EvidenceError):
            parse_leaf(bad)
    with pytest.raises(StoreError, match="not 64 hex digits"):
        leaf_bytes("g", 1, "zz" * 32)


def test_no_trusted_key_without_a_store_or_a_key(archives, tmp_path):
    path = archives[0].materialise(tmp_path)
    with EventStore.open(path) as store:
        proof = ev.proof_text(ev.make_proof(store, store.game_ids()[0]))
    with pytest.raises(EvidenceError, match="pass --key"):
        ev.verify_proof(None, proof)


@pytest.mark.parametrize(
    "line, problem",
    [
        ("seq \u00b2", "line 3: the seq"),  # str.isdigit() holds, int() does not take it
        ("seq 1\u00b2", "line 3: the seq"),
        ("seq \u0661\u0662", "line 3: the seq"),  # Arabic-Indic digits: int() reads 12
        ("game {gid} ", "line 2: the game"),
        ("seat {seat} ", "line 5: the seat"),
        ("seat  {seat}", "line 5: the seat"),
    ],
)
def test_a_receipt_line_tonk_never_writes_is_malformed(archives, line, problem):
    """A receipt's seq is ASCII decimal digits, and its game and seat have no spaces at
    their ends (make_receipt signs no other): anything else is malformed (exit 2), not a
    crash nor another number nor another game."""
    gid, seq, text = archives[0].receipts[0]
    seat = re.search(r"^seat (.*)$", text, re.M).group(1)
    field = line.split(" ", 1)[0]
    changed = re.sub(rf"^{field} .*$", line.format(gid=gid, seat=seat), text, count=1, flags=re.M)
    assert changed != text
    with pytest.raises(MalformedEvidence, match=problem):
        ev.parse_receipt(changed)
