"""Chain version 2: an event's hash covers its recorded time and command id too, while stores
and exports of chain version 1 (before it) are still read, verified and written back byte
for byte.  The hashes here are computed from docs/event-format.md with hashlib and json,
independently of tonk.storage.chain."""

from __future__ import annotations

import io
import json
import sqlite3
from hashlib import sha256
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlite_utils import Database, Migrations
from typer.testing import CliRunner

from tonk.cli.app import app
from tonk.core.events import encode
from tonk.storage import EventStore, projection
from tonk.storage.sqlite import SqliteEventStore
from tonk.storage.chain import CHAIN_VERSION, link_suffix
from tonk.storage.payload_zip import as_text
from tonk.storage.jsonl import export_games, import_file
from tonk.storage.schema import STEPS, TRIGGERS

GENESIS = "0" * 64
FIXTURE = Path(__file__).parent / "fixtures" / "events-v1.jsonl"


def v1_hash(prev: str, payload: bytes) -> str:
    return sha256(prev.encode("ascii") + payload).hexdigest()


def v2_hash(prev: str, payload: bytes, recorded_at: str, command_id: str) -> str:
    meta = json.dumps([recorded_at, command_id], ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return sha256(prev.encode("ascii") + payload + b"\n" + meta).hexdigest()


@pytest.fixture
def tonk():
    runner = CliRunner()

    def run(db: Path, *args: str):
        return runner.invoke(app, ["--db", str(db), *args])

    return run


def rows(db: Path, game_id: str) -> list[tuple]:
    conn = sqlite3.connect(db)
    chain = "chain" if "chain" in {r[1] for r in conn.execute("PRAGMA table_info(events)")} else "NULL"
    out = conn.execute(
        f"SELECT seq, payload, recorded_at, command_id, hash, prev_hash, {chain} FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
    ).fetchall()
    conn.close()
    return [(seq, as_text(payload), *rest) for seq, payload, *rest in out]  # a large payload is stored compressed


def append_by_command(db: Path, game, per: int = 5) -> None:
    """Append the game a few events at a time, each append with its own command id."""
    with EventStore.open(db) as store:
        for i in range(0, len(game.events), per):
            store.append(game.game_id, game.events[i : i + per], i, command_id=f"cmd-{i // per}")


def test_an_append_hashes_its_recorded_time_and_command_id(db, games):
    g = games[0]
    append_by_command(db, g)
    prev = GENESIS
    stored = rows(db, g.game_id)
    assert len(stored) == len(g.events)
    for (seq, payload, at, cmd, h, p, chain), e in zip(stored, g.events):
        assert payload.encode() == encode(e) and chain == CHAIN_VERSION == 2
        assert cmd == f"cmd-{(seq - 1) // 5}"
        assert p == prev and h == v2_hash(prev, payload.encode(), at, cmd)
        prev = h


@given(st.text(max_size=30), st.text(max_size=30))
def test_the_bytes_after_the_payload_are_the_documented_json(recorded_at, command_id):
    try:
        recorded_at.encode("utf-8"), command_id.encode("utf-8")
    except UnicodeEncodeError:
        return  # lone surrogates: not text a store or a JSON file can hold
    meta = json.dumps([recorded_at, command_id], ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    assert link_suffix(2, recorded_at, command_id) == b"\n" + meta
    assert link_suffix(1, recorded_at, command_id) == b""


@pytest.mark.parametrize(
    "column, value",
    [("recorded_at", "2020-01-01T00:00:00.000000Z"), ("command_id", "cmd-forged"), ("command_id", "")],
)
def test_an_edited_recorded_at_or_command_id_is_found_by_verify_and_audit_at_its_seq(db, games, tamper, tonk, column, value):
    g, other = games[0], games[1]
    append_by_command(db, g)
    append_by_command(db, other)
    seq = 7  # inside the second append (cmd-1)
    tamper(db, f"UPDATE events SET {column} = ? WHERE game_id = ? AND seq = ?", value, g.game_id, seq)
    conn = sqlite3.connect(db)
    conn.execute(TRIGGERS["events_no_update"])  # put back: this test is about the chain
    conn.execute(TRIGGERS["events_no_delete"])
    conn.close()

    r = tonk(db, "verify", "--json")
    assert r.exit_code == 1, r.stdout
    [f] = json.loads(r.stdout)["findings"]
    assert (f["game_id"], f["seq"]) == (g.game_id, seq)
    assert "recorded_at and command_id" in f["message"] and "changed" in f["message"]

    a = tonk(db, "audit", "--all", "--json")
    assert a.exit_code == 1
    by_game = {x["game_id"]: x for x in json.loads(a.stdout)["games"]}
    assert by_game[other.game_id]["verdict"] == "clean"
    chain = [x for x in by_game[g.game_id]["findings"] if x["check"] == "chain"]
    assert [x["seq"] for x in chain] == [seq]
    assert by_game[g.game_id]["checks"]["chain"] == "failed"


def test_an_edited_recorded_at_rehashed_breaks_the_next_link(db, games, tamper):
    """A forger who also recomputes the edited row's hash breaks the link after it."""
    g = games[0]
    append_by_command(db, g)
    seq, payload, _, cmd, old_hash, prev, _ = rows(db, g.game_id)[5]
    forged_at = "2020-01-01T00:00:00.000000Z"
    new_hash = v2_hash(prev, payload.encode(), forged_at, cmd)
    tamper(db, "UPDATE events SET recorded_at = ?, hash = ? WHERE game_id = ? AND seq = ?", forged_at, new_hash, g.game_id, seq)
    with EventStore.open(db) as store:
        [f] = store.verify()
    assert (f.seq, f.expected, f.found) == (seq + 1, new_hash, old_hash)


def test_turning_a_row_back_to_chain_version_1_breaks_the_chain(db, games, tamper):
    """Version 1 does not cover recorded_at: a forger who marks a row version 1 to edit its
    time freely must give it the version 1 hash, which breaks the next link."""
    g = games[0]
    append_by_command(db, g)
    seq, payload, _, _, old_hash, prev, _ = rows(db, g.game_id)[5]
    tamper(db, "UPDATE events SET chain = 1, recorded_at = '2020-01-01T00:00:00.000000Z' WHERE game_id = ? AND seq = ?", g.game_id, seq)
    with EventStore.open(db) as store:
        [f] = store.verify()
        assert (f.seq, f.expected, f.found) == (seq, v1_hash(prev, payload.encode()), old_hash)
    new_hash = v1_hash(prev, payload.encode())
    tamper(db, "UPDATE events SET hash = ? WHERE game_id = ? AND seq = ?", new_hash, g.game_id, seq)
    with EventStore.open(db) as store:
        [f] = store.verify()
        assert (f.seq, f.expected, f.found) == (seq + 1, new_hash, old_hash)
        [game] = store.iter_verified_games()
        assert [c.seq for c in game.chain] == [seq + 1]


def test_a_payload_that_carries_the_version_2_suffix_is_not_a_version_1_event(db, games, tamper):
    """The version 1 hash of ``payload + "\\n" + meta`` is the version 2 hash of ``payload``:
    such a row is refused because its payload is not one JSON event."""
    g = games[0]
    append_by_command(db, g)
    seq, payload, at, cmd, h, _, _ = rows(db, g.game_id)[5]
    smuggled = payload + "\n" + json.dumps([at, cmd], separators=(",", ":"))
    tamper(db, "UPDATE events SET chain = 1, payload = ? WHERE game_id = ? AND seq = ?", smuggled, g.game_id, seq)
    with EventStore.open(db) as store:
        [f] = store.verify()
        assert f.seq == seq and "not JSON" in f.message
        [game] = store.iter_verified_games()
        assert not game.intact and [c.seq for c in game.chain] == [seq]


def test_a_chain_version_this_tonk_does_not_know_is_reported(db, games, tamper, tonk):
    g = games[0]
    append_by_command(db, g)
    tamper(db, "UPDATE events SET chain = 3 WHERE game_id = ? AND seq = 4", g.game_id)
    r = tonk(db, "verify", "--json")
    assert r.exit_code == 1
    [f] = json.loads(r.stdout)["findings"]
    assert (f["seq"], f["found"], f["expected"]) == (4, "3", "1 or 2")
    assert "chain version 3 is not one this tonk knows" in f["message"]
    a = tonk(db, "audit", g.game_id, "--json")
    assert [x["seq"] for x in json.loads(a.stdout)["games"][0]["findings"] if x["check"] == "chain"] == [4]


def test_a_last_row_of_an_unknown_version_with_the_version_2_hash_is_reported_by_the_scan(db, games, record, tamper):
    """The verified scan makes a link's suffix again whenever a row's version, time or command
    id is not the previous row's: the last row of an append (nothing after it to break) marked
    with a version this tonk does not know, whose hash is the version 2 hash of its values (what
    the previous row's suffix would pass), is still the break that verify reports."""
    g = games[0]
    record(db, [g])  # one append: every row has the time and command id of the row before it
    *_, (_, _, at0, cmd0, _, _, _), (seq, payload, at, cmd, _, prev, _) = rows(db, g.game_id)
    assert (at, cmd) == (at0, cmd0)
    tamper(db, "UPDATE events SET chain = 3, hash = ? WHERE game_id = ? AND seq = ?", v2_hash(prev, payload.encode(), at, cmd), g.game_id, seq)
    with EventStore.open(db) as store:
        [f] = store.verify()
        assert (f.seq, f.found) == (seq, "3")
        [game] = store.iter_verified_games()
        assert not game.intact and game.chain == [f]


# --- an old store ------------------------------------------------------------------------
def old_store(path: Path, games) -> None:
    """A store as tonk wrote it before chain version 2: the schema of the migrations before
    it, rows hashed ``sha256(prev_hash || payload)``, with their recorded times and command ids."""
    db = Database(path)
    old = Migrations("tonk")
    steps = [name for name, _ in STEPS]
    for name, fn in STEPS[: steps.index("0004_chain_version")]:
        old(name=name)(fn)
    old.apply(db)
    db.execute(f"PRAGMA user_version = {len(steps) - 1}")
    conn = db.conn
    position = 0
    for g in games:
        prev = GENESIS
        times = [f"2026-01-01T00:{seq // 60:02d}:{seq % 60:02d}.000000Z" for seq in range(1, len(g.events) + 1)]
        for seq, (e, at) in enumerate(zip(g.events, times), 1):
            data = encode(e)
            h = v1_hash(prev, data)
            position += 1
            conn.execute(
                "INSERT INTO events (game_id, seq, type, payload, recorded_at, hash, prev_hash, command_id, position) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (g.game_id, seq, e.__struct_config__.tag, data.decode(), at, h, prev, f"old-{seq}", position),
            )
            prev = h
        summary = projection.GameSummary(g.game_id)
        for e, at in zip(g.events, times):
            summary.apply(e, at)
        conn.execute(f"INSERT INTO games ({', '.join(projection.COLUMNS)}) VALUES ({', '.join('?' for _ in projection.COLUMNS)})", summary.row())
    conn.commit()
    db.close()


def test_an_old_store_is_read_only_and_verifies_before_its_upgrade(db, games, tonk):
    old_store(db, games[:2])
    with SqliteEventStore.open_read_only(db) as store:
        assert store.verify() == []
        assert all(game.intact for game in store.iter_verified_games())
        assert {r.chain for gid in store.game_ids() for r in store.records(gid)} == {1}
    conn = sqlite3.connect(db)
    assert "chain" not in {r[1] for r in conn.execute("PRAGMA table_info(events)")}  # nothing was migrated
    conn.close()


def test_an_old_store_upgrades_verifies_and_takes_version_2_appends(db, games, tonk, tamper):
    finished, open_game = games[0], games[3]
    assert open_game.events[-1].__struct_config__.tag != "game_ended"
    # the open game is stored up to its last hand's end; the rest is appended after the upgrade
    split = max(i for i, e in enumerate(open_game.events) if e.__struct_config__.tag == "hand_ended")
    before = [finished, SimpleNamespace(game_id=open_game.game_id, events=open_game.events[:split])]
    old_store(db, before)
    old_rows = rows(db, finished.game_id)

    with EventStore.open(db) as store:
        assert store.verify() == []
        store.append(open_game.game_id, open_game.events[split:], split, command_id="new")
        assert store.verify() == []
        assert all(game.intact for game in store.iter_verified_games())
    assert [r[:6] for r in rows(db, finished.game_id)] == [r[:6] for r in old_rows]  # untouched
    assert {r[6] for r in rows(db, finished.game_id)} == {1}
    mixed = rows(db, open_game.game_id)
    assert [r[6] for r in mixed] == [1] * split + [2] * (len(open_game.events) - split)
    seq, payload, at, cmd, h, prev, _ = mixed[split]
    assert (prev, h) == (mixed[split - 1][4], v2_hash(prev, payload.encode(), at, "new"))
    for r in ("verify", "audit --all"):
        assert tonk(db, *r.split()).exit_code == 0, r

    # editing the time of an old (version 1) row is not found: version 1 does not cover it
    tamper(db, "UPDATE events SET recorded_at = '2020-01-01T00:00:00.000000Z' WHERE game_id = ? AND seq = 3", finished.game_id)
    with EventStore.open(db) as store:
        assert store.verify() == []


def test_export_import_export_is_byte_identical_with_both_versions(tmp_path, games):
    """An old store's games (version 1 rows), one with version 2 rows appended after the
    upgrade, and new games: exported, imported into an empty store, exported again."""
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    old_game, open_game = games[0], games[3]
    split = max(i for i, e in enumerate(open_game.events) if e.__struct_config__.tag == "hand_ended")
    old_store(a, [old_game, SimpleNamespace(game_id=open_game.game_id, events=open_game.events[:split])])
    with EventStore.open(a) as store:
        store.append(open_game.game_id, open_game.events[split:], split, command_id='a "quoted"\\ id\n')
        for g in games[1:3]:
            store.append(g.game_id, g.events, 0, command_id="x")
        first = io.BytesIO()
        export_games(store, None, first)
    lines = first.getvalue().splitlines()[1:]
    chains = [json.loads(x).get("chain") for x in lines]
    assert set(chains) == {None, 2}  # version 1 lines carry no chain field, as before
    assert all(x.index(b'"chain":2') < x.index(b'"payload"') for x in lines if b'"chain"' in x)
    # every link recomputes from the lines alone as docs/event-format.md says: the payload's
    # bytes run from after the first '"payload":' to the line's final '}' (its last field)
    prev: dict[str, str] = {}
    for x in lines:
        rec = json.loads(x)
        payload = x[x.index(b'"payload":') + len(b'"payload":') : -1]
        assert x.endswith(b"}") and json.loads(payload) == rec["payload"]
        want = prev.get(rec["game_id"], GENESIS)
        assert rec["prev_hash"] == want
        if "chain" in rec:
            assert rec["hash"] == v2_hash(want, payload, rec["recorded_at"], rec.get("command_id", ""))
        else:
            assert rec["hash"] == v1_hash(want, payload)
        prev[rec["game_id"]] = rec["hash"]
    f = tmp_path / "all.jsonl"
    f.write_bytes(first.getvalue())
    with EventStore.open(b) as store:
        result = import_file(store, f)
        assert len(result.imported) == 4 and store.verify() == []
        again = io.BytesIO()
        export_games(store, None, again)
    assert again.getvalue() == first.getvalue()
    assert rows(a, open_game.game_id) == rows(b, open_game.game_id)


def test_an_export_line_with_an_edited_command_id_or_time_is_refused(tmp_path, games):
    a = tmp_path / "a.db"
    append_by_command(a, games[0])
    with EventStore.open(a) as store:
        out = io.BytesIO()
        export_games(store, None, out)
    lines = out.getvalue().splitlines()
    for field, value in (("command_id", "cmd-9"), ("recorded_at", "2020-01-01T00:00:00.000000Z"), ("chain", 1)):
        edited = json.loads(lines[4])
        edited[field] = value
        f = tmp_path / f"{field}.jsonl"
        f.write_bytes(b"\n".join([*lines[:4], json.dumps(edited, separators=(",", ":")).encode(), *lines[5:]]) + b"\n")
        with EventStore.open(tmp_path / f"{field}.db") as store:
            with pytest.raises(Exception) as refused:
                import_file(store, f)
            assert f"{f}:5:" in str(refused.value) and "broken chain" in str(refused.value) and "seq 4" in str(refused.value)
            assert store.game_ids() == []
    edited = json.loads(lines[4])
    edited["chain"] = 7
    f = tmp_path / "seven.jsonl"
    f.write_bytes(b"\n".join([*lines[:4], json.dumps(edited, separators=(",", ":")).encode(), *lines[5:]]) + b"\n")
    with EventStore.open(tmp_path / "seven.db") as store, pytest.raises(Exception, match="chain version 7 is not one this tonk knows"):
        import_file(store, f)


def test_the_frozen_v1_export_still_imports_verifies_and_exports_byte_for_byte(tmp_path):
    with EventStore.open(tmp_path / "v1.db") as store:
        import_file(store, FIXTURE)
        assert store.verify() == []
        assert all(game.intact for game in store.iter_verified_games())
        assert {r.chain for gid in store.game_ids() for r in store.records(gid)} == {1}
        out = io.BytesIO()
        export_games(store, None, out)
    ordered = sorted(FIXTURE.read_bytes().splitlines()[1:], key=lambda x: json.loads(x)["game_id"])
    assert out.getvalue().splitlines()[1:] == ordered


def test_a_command_id_that_is_not_text_is_refused_and_nothing_is_stored(db, games):
    from tonk.storage import StoreError

    g = games[0]
    with EventStore.open(db) as store:
        with pytest.raises(StoreError, match="command id must be text"):
            store.append(g.game_id, g.events, 0, command_id="\ud800")
        assert store.game_ids() == []
