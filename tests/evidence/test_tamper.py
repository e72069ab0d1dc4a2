"""Adversarial: random archives tampered with outside the engine — the tail of a game cut,
a whole game deleted, a middle event deleted with the chain recomputed, the log rewritten
with the games in another order, the whole file rolled back to an older copy.  Each is
detected by every receipt and checkpoint that predates it, naming the game and its first
missing or different event; receipts and checkpoints the tampering does not touch still
verify, and a clean archive always verifies."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tonk.storage import EventStore
from tonk.storage import evidence as ev

from tonk.storage.signed_note import VerifierKey

from .conftest import drop_triggers, raw, stored_hashes

SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def logged_upto(checkpoint: str, path: Path) -> dict[str, int]:
    """The highest seq of each game among the entries a checkpoint signed."""
    size = int(checkpoint.split("\n")[1])
    with EventStore.open(path) as store:
        out: dict[str, int] = {}
        with store.evidence() as log:
            logged = log.entries(size)
        for e in logged:
            out[e.game_id] = max(out.get(e.game_id, 0), e.seq)
    return out


def first_changes(before: dict[str, dict[int, str]], after: dict[str, dict[int, str]]) -> dict[str, int]:
    """Each game's first seq whose event is gone or has another hash."""
    out = {}
    for gid, events in before.items():
        now = after.get(gid, {})
        changed = [s for s, h in events.items() if now.get(s) != h]
        if changed:
            out[gid] = min(changed)
    return out


def check_all(archive, path: Path, before: dict, key: VerifierKey, log_intact: bool = True) -> None:
    """Every checkpoint and receipt against the tampered store: each one that covers a
    changed event fails naming the game and the first changed event, the others pass."""
    after = stored_hashes(path)
    changes = first_changes(before, after)
    with EventStore.open(path) as store:
        for cp in (archive.early, archive.late):
            upto = logged_upto(cp, path) if log_intact else {}
            report = ev.verify_checkpoint(store, cp, key)
            expected = {gid: seq for gid, seq in changes.items() if gid in upto and seq <= upto[gid]}
            found = {f.game_id: f.seq for f in report.findings if f.game_id is not None}
            if log_intact:
                assert found == expected, (report.findings, expected)
                assert report.ok == (not expected)
        for gid, seq, text in archive.receipts:
            report = ev.verify_receipt(store, text, key)
            hit = gid in changes and changes[gid] <= seq
            assert report.ok != hit, (gid, seq, changes.get(gid), report.findings)
            if hit:
                (f,) = report.findings
                assert f.game_id == gid and f"receipt: seq {seq}, hash " in f.message
                held = after.get(gid, {})
                # the receipt's event differs; or it is missing, and so is every event after the last held
                assert f.seq == (seq if seq in held else min(seq, max(held, default=0) + 1)), (f, sorted(held)[-3:])


def tampered(archive, tmp: Path, data, tamper) -> tuple[Path, dict]:
    path = archive.materialise(tmp)
    before = stored_hashes(path)
    tamper(path, data, before)
    return path, before


def pick_game(data, before: dict, min_events: int = 2) -> str:
    games = sorted(g for g, evs in before.items() if len(evs) >= min_events)
    return data.draw(st.sampled_from(games), label="game")


# --- the tampering ----------------------------------------------------------------------------


def cut_tail(path: Path, data, before: dict) -> None:
    gid = pick_game(data, before)
    keep = data.draw(st.integers(1, max(before[gid]) - 1), label="events kept")
    conn = raw(path)
    drop_triggers(conn, "events")
    conn.execute("DELETE FROM events WHERE game_id = ? AND seq > ?", (gid, keep))
    conn.close()


def delete_game(path: Path, data, before: dict) -> None:
    gid = pick_game(data, before, 1)
    conn = raw(path)
    drop_triggers(conn, "events")
    conn.execute("DELETE FROM events WHERE game_id = ?", (gid,))
    conn.execute("DELETE FROM games WHERE game_id = ?", (gid,))
    conn.close()


def delete_middle_event_rechained(path: Path, data, before: dict) -> None:
    """Event k removed, the later events renumbered and the chain recomputed (re-appended
    through the engine, so the forgery has a valid chain however the hash is computed)."""
    gid = pick_game(data, before, 3)
    k = data.draw(st.integers(2, max(before[gid]) - 1), label="event removed")
    with EventStore.open(path) as store:
        events = store.read(gid)
    conn = raw(path)
    drop_triggers(conn, "events")
    conn.execute("DELETE FROM events WHERE game_id = ?", (gid,))
    conn.execute("DELETE FROM games WHERE game_id = ?", (gid,))
    conn.close()
    with EventStore.open(path) as store:
        store.append(gid, events[: k - 1] + events[k:], 0)
        assert store.verify(gid) == []  # the chain holds: only outside evidence can tell


def reorder_games_in_log(path: Path, data, before: dict) -> None:
    """The evidence log rewritten with the same entries, the games in another order."""
    conn = raw(path)
    rows = conn.execute("SELECT game_id, seq, hash, logged_at FROM evidence_log ORDER BY leaf_index").fetchall()
    logged_order = list(dict.fromkeys(r[0] for r in rows))
    order = data.draw(st.permutations(logged_order).filter(lambda p: list(p) != logged_order), label="order")
    rank = {g: i for i, g in enumerate(order)}
    rows.sort(key=lambda r: (rank[r[0]], r[1]))
    conn.execute("BEGIN")
    drop_triggers(conn, "evidence_log")
    conn.execute("DELETE FROM evidence_log")
    conn.executemany("INSERT INTO evidence_log (leaf_index, game_id, seq, hash, logged_at) VALUES (?, ?, ?, ?, ?)", [(i, *r) for i, r in enumerate(rows)])
    conn.execute("COMMIT")
    conn.close()


# --- the tests --------------------------------------------------------------------------------


@SETTINGS
@given(st.data())
def test_a_cut_tail_is_named_by_every_receipt_and_checkpoint_that_covers_it(archives, data):
    archive = data.draw(st.sampled_from(archives), label="archive")
    with tempfile.TemporaryDirectory() as tmp:
        path, before = tampered(archive, Path(tmp), data, cut_tail)
        check_all(archive, path, before, VerifierKey.parse(archive.vkey))


@SETTINGS
@given(st.data())
def test_a_deleted_game_is_named(archives, data):
    archive = data.draw(st.sampled_from(archives), label="archive")
    with tempfile.TemporaryDirectory() as tmp:
        path, before = tampered(archive, Path(tmp), data, delete_game)
        check_all(archive, path, before, VerifierKey.parse(archive.vkey))


@SETTINGS
@given(st.data())
def test_a_middle_event_deleted_with_the_chain_recomputed_is_named(archives, data):
    archive = data.draw(st.sampled_from(archives), label="archive")
    with tempfile.TemporaryDirectory() as tmp:
        path, before = tampered(archive, Path(tmp), data, delete_middle_event_rechained)
        check_all(archive, path, before, VerifierKey.parse(archive.vkey))


@SETTINGS
@given(st.data())
def test_games_reordered_in_the_log_fail_the_consistency_proof(archives, data):
    archive = data.draw(st.sampled_from(archives), label="archive")
    key = VerifierKey.parse(archive.vkey)
    with tempfile.TemporaryDirectory() as tmp:
        path = archive.materialise(Path(tmp))
        with EventStore.open(path) as store:
            with store.evidence() as log:
                logged = log.entries()
        reorder_games_in_log(path, data, {})
        with EventStore.open(path) as store:
            with store.evidence() as log:
                rewritten = log.entries()
            for cp in (archive.early, archive.late):
                size = int(cp.split("\n")[1])
                moved = [e[1:] for e in logged[:size]] != [e[1:] for e in rewritten[:size]]
                report = ev.verify_checkpoint(store, cp, key)
                assert report.ok != moved
                if moved:
                    assert any(f.game_id is None and "not the one the checkpoint signed" in f.message for f in report.findings), report.findings
            assert [e[1:] for e in logged] != [e[1:] for e in rewritten]
            # the events are untouched: every receipt still holds
            assert all(ev.verify_receipt(store, text, key).ok for _, _, text in archive.receipts)


def test_the_whole_file_rolled_back_to_an_older_copy(archives, tmp_path):
    for n, archive in enumerate(archives):
        key = VerifierKey.parse(archive.vkey)
        (tmp_path / str(n)).mkdir()
        later = stored_hashes(archive.materialise(tmp_path / str(n)))  # the store before the rollback
        path = archive.materialise(tmp_path / str(n), archive.early_db)  # replaced by the older copy
        with EventStore.open(path) as store:
            assert ev.verify_checkpoint(store, archive.early, key).ok  # the copy is what the early checkpoint signed
            late = ev.verify_checkpoint(store, archive.late, key)
            assert not late.ok
            assert any(f.game_id is None and "rolled back" in f.message for f in late.findings), late.findings
        check_all(archive, path, later, key, log_intact=False)
        # every receipt handed out after the copy was taken is contradicted
        early_games = stored_hashes(path)
        issued_later = [(g, s) for g, s, _ in archive.receipts if s not in early_games.get(g, {})]
        assert issued_later


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_a_clean_archive_always_verifies_whatever_the_physical_row_order(archives, data):
    archive = data.draw(st.sampled_from(archives), label="archive")
    key = VerifierKey.parse(archive.vkey)
    with tempfile.TemporaryDirectory() as tmp:
        path = archive.materialise(Path(tmp))
        if data.draw(st.booleans(), label="rows rewritten in reverse order"):
            conn = raw(path)
            rows = conn.execute("SELECT * FROM events ORDER BY position DESC").fetchall()
            conn.execute("BEGIN")
            drop_triggers(conn, "events")
            conn.execute("DELETE FROM events")
            conn.executemany(f"INSERT INTO events VALUES ({', '.join('?' * len(rows[0]))})", rows)
            conn.execute("COMMIT")
            conn.close()
        with EventStore.open(path) as store:
            for cp in (archive.early, archive.late):
                assert ev.verify_checkpoint(store, cp, key).ok
                assert ev.verify_checkpoint(store, cp).ok  # with the key the store records
            for _, _, text in archive.receipts:
                assert ev.verify_receipt(store, text, key).ok
            gid = data.draw(st.sampled_from(store.game_ids()), label="game proved")
            proof = ev.proof_text(ev.make_proof(store, gid))
            assert ev.verify_proof(None, proof, key).ok
            assert ev.verify_proof(store, proof, key).ok
            # the next checkpoint extends the late one
            nxt = ev.make_checkpoint(store)
            assert nxt.tree_size >= int(archive.late.split("\n")[1])
            assert ev.verify_checkpoint(store, archive.late, key).ok
