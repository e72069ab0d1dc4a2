"""tonk export / import / verify / schema through the CLI: outputs, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tonk.cli.app import app
from tonk.core.events import FORMAT_VERSION
from tonk.storage import EventStore
from tonk.storage.schema import TRIGGERS


@pytest.fixture
def tonk():
    runner = CliRunner()

    def run(db: Path, *args: str):
        return runner.invoke(app, ["--db", str(db), *args])

    return run


def test_export_import_export_round_trip(tmp_path, tonk, games, record):
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    record(a, games)
    exported = tonk(a, "export", "--all")
    assert exported.exit_code == 0, exported.stderr
    first = exported.stdout_bytes
    assert first.splitlines()[0].startswith(b'{"format":"tonk-events","format_version":%d,"games":[' % FORMAT_VERSION)
    f = tmp_path / "all.jsonl"
    f.write_bytes(first)

    imported = tonk(b, "import", str(f))
    assert imported.exit_code == 0, imported.stderr
    events = sum(len(g.events) for g in games)
    assert imported.stdout.strip() == f"imported {len(games)} game(s), {events} event(s)"

    again = tonk(b, "export", "--all", "--output", str(tmp_path / "again.jsonl"))
    assert again.exit_code == 0
    assert again.stdout.strip() == f"exported {len(games)} game(s), {events} event(s) to {tmp_path / 'again.jsonl'}"
    assert (tmp_path / "again.jsonl").read_bytes() == first

    ok = tonk(b, "verify")
    assert (ok.exit_code, ok.stdout.strip()) == (0, f"ok: {len(games)} game(s) verified")

    twice = tonk(b, "import", str(f), "--json")
    assert twice.exit_code == 0
    data = json.loads(twice.stdout)
    assert data["games"] == 0 and sorted(data["present"]) == sorted(g.game_id for g in games)


def test_export_some_games_and_json_summary(tmp_path, tonk, games, record):
    db = tmp_path / "a.db"
    record(db, games)
    out = tmp_path / "two.jsonl"
    r = tonk(db, "export", games[1].game_id, games[0].game_id, "--output", str(out), "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout) == {"output": str(out), "games": 2, "events": len(games[0].events) + len(games[1].events)}
    ids = [json.loads(x)["game_id"] for x in out.read_text().splitlines()[1:]]
    assert list(dict.fromkeys(ids)) == [games[1].game_id, games[0].game_id]


def test_export_errors(tmp_path, tonk, games, record, clean_failure):
    db = tmp_path / "a.db"
    clean_failure(tonk(db, "export", "--all"), 2, f"no tonk store at {db}")
    assert not db.exists()
    record(db, games[:1])
    clean_failure(tonk(db, "export"), 2, "name the games to export, or give --all")
    clean_failure(tonk(db, "export", games[0].game_id, "--all"), 2, "name the games to export")
    r = tonk(db, "export", games[0].game_id, "nope")
    clean_failure(r, 2, "no game 'nope' in ")
    assert r.stdout == ""
    out = tmp_path / "never.jsonl"
    clean_failure(tonk(db, "export", "nope", "--output", str(out)), 2, "no game 'nope'")
    assert not out.exists() and list(tmp_path.glob(".never.jsonl*")) == []
    clean_failure(tonk(db, "export", "--all", "--output", str(tmp_path / "no" / "dir.jsonl")), 2, "does not exist")


def test_import_refusals_leave_the_store_byte_identical(tmp_path, tonk, games, record, digest, clean_failure):
    db = tmp_path / "a.db"
    record(db, games[:2])
    good = tonk(db, "export", "--all").stdout_bytes
    lines = good.splitlines()
    record(db := tmp_path / "b.db", games[2:3])
    before = digest(db)
    cases = {
        "invalid.jsonl": (lines[:2] + [b"{not json"] + lines[3:], ":3: invalid JSON"),
        "gap.jsonl": (lines[:3] + lines[4:], ":4: seq gap in game"),
        "type.jsonl": ([lines[0], lines[1].replace(b'"type":"game_started"', b'"type":"game_paused"', 1)] + lines[2:], ":2: unknown event type 'game_paused'"),
        "chain.jsonl": (lines[:4] + [lines[4].replace(b'"card":"', b'"card":"1', 1)] + lines[5:], ":5: broken chain"),
        "header.jsonl": (lines[1:], ":1: the first line must be the header"),
    }
    for name, (content, text) in cases.items():
        f = tmp_path / name
        f.write_bytes(b"\n".join(content) + b"\n")
        r = tonk(db, "import", str(f))
        clean_failure(r, 2, f"{f}{text}")
        assert r.stderr.strip().endswith("nothing was imported")
        assert digest(db) == before, name
    clean_failure(tonk(db, "import", str(tmp_path / "missing.jsonl")), 2, "cannot read the file")
    assert digest(db) == before


def test_a_refused_import_into_a_missing_store_creates_nothing(tmp_path, tonk, clean_failure):
    f = tmp_path / "bad.jsonl"
    f.write_text("not a header\n")
    db = tmp_path / "new.db"
    clean_failure(tonk(db, "import", str(f)), 2, ":1: the first line must be the header")
    assert not db.exists()


def test_import_into_a_file_that_is_not_a_store(tmp_path, tonk, games, record, digest, clean_failure):
    a = tmp_path / "a.db"
    record(a, games[:1])
    f = tmp_path / "x.jsonl"
    f.write_bytes(tonk(a, "export", "--all").stdout_bytes)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    clean_failure(tonk(notes, "import", str(f)), 2, "not a tonk store")
    assert notes.read_text() == "my notes\n"


def test_verify_reports_findings_and_exit_1(tmp_path, tonk, games, record, raw_conn):
    db = tmp_path / "a.db"
    record(db, games[:2])
    g = games[0]
    conn = raw_conn(db)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET payload = payload || ' ' WHERE game_id = ? AND seq = 7", (g.game_id,))
    conn.execute(TRIGGERS["events_no_update"])  # put back: this test is about the chain
    conn.close()
    r = tonk(db, "verify")
    assert r.exit_code == 1
    [line] = r.stdout.strip().splitlines()
    assert line.startswith(f"game {g.game_id} seq 7: the payload, recorded_at and command_id do not hash to the stored hash")
    assert tonk(db, "verify", games[1].game_id).exit_code == 0
    j = tonk(db, "verify", "--json", g.game_id, games[1].game_id)
    assert j.exit_code == 1
    data = json.loads(j.stdout)
    assert data["ok"] is False and data["games"] == 2
    assert [(f["game_id"], f["seq"]) for f in data["findings"]] == [(g.game_id, 7)]
    assert set(data["findings"][0]) == {"game_id", "seq", "expected", "found", "message"}


def test_verify_errors(tmp_path, tonk, games, record, clean_failure):
    db = tmp_path / "a.db"
    clean_failure(tonk(db, "verify"), 2, "no tonk store at")
    record(db, games[:1])
    clean_failure(tonk(db, "verify", "nope"), 2, "no game 'nope'")
    ok = tonk(db, "verify", "--json")
    assert json.loads(ok.stdout) == {"ok": True, "games": 1, "findings": [], "projection": [], "triggers": []}
    data = bytearray(db.read_bytes())
    data[4096 : 4096 + 16] = b"\xee" * 16
    db.write_bytes(bytes(data))
    clean_failure(tonk(db, "verify"), 2, "corrupt")


def test_schema_command(tmp_path, tonk):
    for args in ((), ("--json",)):
        r = tonk(tmp_path / "unused.db", "schema", *args)
        assert r.exit_code == 0
        schema = json.loads(r.stdout)
        assert schema["x-tonk-format-version"] == FORMAT_VERSION
        assert "GameStarted" in schema["$defs"]
    assert not (tmp_path / "unused.db").exists()


def test_games_projection_after_cli_import(tmp_path, tonk, games, record):
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    record(a, games)
    f = tmp_path / "x.jsonl"
    f.write_bytes(tonk(a, "export", "--all").stdout_bytes)
    assert tonk(b, "import", str(f)).exit_code == 0
    with EventStore.open(a) as sa, EventStore.open(b) as sb:
        assert sb.games() == sa.games()


def test_import_refuses_a_game_cut_short_naming_it(tmp_path, tonk, games, record, digest, clean_failure):
    """The header carries each game's event count and last hash: removing a game's last
    event, or its whole last hand, is refused, though the chain of what is left holds."""
    db = tmp_path / "a.db"
    record(db, games[:2])
    lines = tonk(db, "export", "--all").stdout_bytes.splitlines()
    a = games[0]
    last_a = len(a.events)  # a's events are lines 2 .. last_a + 1
    hand_start = max(i for i, e in enumerate(a.events) if type(e).__name__ == "HandDealt")  # index of the last deal
    cut = {
        "last-event.jsonl": lines[:last_a] + lines[last_a + 1 :],
        "last-hand.jsonl": lines[: 1 + hand_start] + lines[last_a + 1 :],
        "whole-game.jsonl": lines[:1] + lines[last_a + 1 :],
    }
    target = tmp_path / "b.db"
    record(target, games[2:3])
    before = digest(target)
    for name, content in cut.items():
        f = tmp_path / name
        f.write_bytes(b"\n".join(content) + b"\n")
        r = tonk(target, "import", str(f))
        clean_failure(r, 2, f"game {a.game_id}")
        assert "cut short" in r.stderr, r.stderr
        assert digest(target) == before


def test_an_old_export_without_marks_imports_with_a_warning(tmp_path, tonk, games, record):
    db = tmp_path / "a.db"
    record(db, games[:1])
    lines = tonk(db, "export", "--all").stdout_bytes.splitlines()
    f = tmp_path / "old.jsonl"
    f.write_bytes(b"\n".join([b'{"format":"tonk-events","format_version":1}'] + lines[1:]) + b"\n")
    r = tonk(tmp_path / "b.db", "import", str(f))
    assert r.exit_code == 0, r.stderr
    assert r.stdout.strip().startswith("imported 1 game(s)")
    assert r.stderr.startswith("warning: ") and "cannot be detected" in r.stderr


def test_verify_finds_a_forged_games_row_and_games_does_not_show_it(tmp_path, tonk, games, record, raw_conn):
    db = tmp_path / "a.db"
    record(db, games[:2])
    g = games[0]
    first = g.events[0].players[0]
    true_net = json.loads(tonk(db, "games", "--json").stdout)["games"]
    true_net = next(x for x in true_net if x["game_id"] == g.game_id)["net"]
    forged = dict(true_net, **{first: true_net[first] + 1000})
    conn = raw_conn(db)
    conn.execute("UPDATE games SET net = ?, status = 'open', events = events + 1 WHERE game_id = ?", (json.dumps(forged), g.game_id))
    conn.close()
    r = tonk(db, "verify")
    assert r.exit_code == 1
    lines = r.stdout.strip().splitlines()
    assert sorted(line.split(": the games table says ")[1].split()[0] for line in lines) == ["events", "net", "status"]
    assert all(line.startswith(f"game {g.game_id} projection: ") for line in lines)
    data = json.loads(tonk(db, "verify", "--json").stdout)
    assert data["ok"] is False and data["findings"] == []
    net = next(p for p in data["projection"] if p["column"] == "net")
    assert net["stored"][first] == true_net[first] + 1000 and net["derived"] == true_net
    # tonk games shows the events' truth, and says the table disagrees
    shown = tonk(db, "games", "--json")
    assert shown.exit_code == 0
    row = next(x for x in json.loads(shown.stdout)["games"] if x["game_id"] == g.game_id)
    assert row["net"] == true_net and row["status"] == "ended"
    assert "warning: the games table disagrees with the events for 1 game(s)" in shown.stderr


def test_verify_reports_missing_or_changed_append_only_triggers(tmp_path, tonk, games, record, raw_conn):
    db = tmp_path / "a.db"
    record(db, games[:1])
    assert tonk(db, "verify").exit_code == 0
    conn = raw_conn(db)
    conn.execute("DROP TRIGGER events_no_delete")
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("CREATE TRIGGER events_no_update BEFORE UPDATE ON event_rows BEGIN SELECT 1; END")
    conn.close()
    r = tonk(db, "verify")
    assert r.exit_code == 1
    assert "store: the append-only trigger events_no_delete is missing" in r.stdout
    assert "store: the append-only trigger events_no_update is not the one tonk created" in r.stdout
    assert len(json.loads(tonk(db, "verify", "--json").stdout)["triggers"]) == 2


def test_replay_says_when_the_events_do_not_hold_their_chain(tmp_path, tonk, games, record, raw_conn):
    db = tmp_path / "a.db"
    record(db, games[:1])
    g = games[0]
    assert tonk(db, "replay", g.game_id, "--json").stderr == ""
    conn = raw_conn(db)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET payload = payload || ' ' WHERE game_id = ? AND seq = 5", (g.game_id,))
    conn.close()
    r = tonk(db, "replay", g.game_id, "--json")
    assert r.exit_code == 0
    assert r.stderr.startswith(f"warning: game {g.game_id} seq 5: the payload, recorded_at and command_id do not hash to the stored hash")


def test_export_says_when_a_game_does_not_hold_its_chain(tmp_path, tonk, games, record, raw_conn):
    """The events are exported as stored (the file is the evidence), with a warning naming
    the broken link: ``tonk import`` refuses such a file, and the exporter should know why."""
    db = tmp_path / "a.db"
    record(db, games[:2])
    g = games[0]
    out = tmp_path / "out.jsonl"
    assert tonk(db, "export", "--all", "--output", str(out)).stderr == ""
    conn = raw_conn(db)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET payload = payload || ' ' WHERE game_id = ? AND seq = 5", (g.game_id,))
    conn.close()
    warning = f"warning: game {g.game_id} seq 5: the payload, recorded_at and command_id do not hash to the stored hash"
    for args in (["export", g.game_id], ["export", "--all", "--output", str(out)], ["export", games[1].game_id, g.game_id, "--output", str(out)]):
        r = tonk(db, *args)
        assert r.exit_code == 0, r.stderr
        assert r.stderr.startswith(warning) and "tonk import refuses" in r.stderr, r.stderr
    assert tonk(db, "export", games[1].game_id).stderr == ""  # only the broken game is named


def test_a_stored_text_that_is_not_utf8_is_named_not_quoted(tmp_path, tonk, games, record, raw_conn, clean_failure):
    """An event whose stored text is not UTF-8 (a changed or corrupt store): the error says
    so, without SQLite's statement or the raw bytes (here a terminal escape), and points to
    tonk verify, which names the event."""
    db = tmp_path / "a.db"
    record(db, games[:1])
    g = games[0]
    conn = raw_conn(db)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE event_rows SET payload = CAST(x'7b1b5b33316dff7d' AS TEXT) WHERE seq = 3")
    conn.close()
    for args in (["replay", g.game_id], ["export", g.game_id], ["audit", g.game_id, "-v", "classic"]):
        r = tonk(db, *args)
        clean_failure(r, 2, "a stored event's text is not UTF-8: the store was changed or is corrupt; tonk verify names the event")
        assert "CASE WHEN" not in r.stderr and "[31m" not in r.stderr
    r = tonk(db, "verify")
    assert r.exit_code == 1 and f"game {g.game_id} seq 3: " in r.stdout


def test_backup_copies_what_is_still_in_the_wal_while_the_store_is_open(tmp_path, tonk, games, record):
    db = tmp_path / "a.db"
    record(db, games[:1])
    with EventStore.open(db) as writer:  # open: the next games sit in the WAL, not yet in a.db
        for g in games[1:3]:
            writer.append(g.game_id, g.events, 0)
        assert (tmp_path / "a.db-wal").stat().st_size > 0
        naive = tmp_path / "cp.db"
        naive.write_bytes(db.read_bytes())  # what `cp tonk.db copy.db` gets
        r = tonk(db, "backup", str(tmp_path / "b.db"))
        assert r.exit_code == 0, r.stderr
        assert r.stdout.strip() == f"backed up 3 game(s) to {tmp_path / 'b.db'}"
    with EventStore.open(naive) as copy:
        assert len(copy.game_ids()) < 3  # the copy of the file alone misses the WAL's games
    b = tmp_path / "b.db"
    assert not (tmp_path / "b.db-wal").exists()
    with EventStore.open(b) as copy:
        assert copy.game_ids() == sorted(g.game_id for g in games[:3])
    v = tonk(b, "verify", "--json")
    assert v.exit_code == 0 and json.loads(v.stdout)["ok"] is True
    clean = tonk(db, "backup", str(b))  # an existing file is refused, left as it was
    assert clean.exit_code == 2 and clean.stderr.startswith("error: cannot back up to") and "it exists" in clean.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
