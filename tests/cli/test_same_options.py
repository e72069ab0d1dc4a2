"""Issue 10, the same options on every command: --db before and after the command (and
TONK_DB), the ruleset options, game-id prefixes everywhere (the installed console script)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from script_helpers import clean_env, tonk

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_FILE = ROOT / "examples" / "tonk-variant-example" / "tonk_variant_example" / "__init__.py"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[Path, str]:
    """A store with two simulated games; returns (path, the first game's id)."""
    db = tmp_path_factory.mktemp("opts") / "s.db"
    r = tonk("simulate", "-n", "4", "--hands-per-game", "2", "-p", "3", "--db", str(db), "--json")
    assert r.code == 0, r.err
    ids = [g["game_id"] for g in json.loads(tonk("games", "--json", "--db", str(db)).out)["games"]]
    assert len(ids) == 2
    return db, ids[0]


READING = [
    ["games"],
    ["replay", "{gid}", "--summary"],
    ["audit", "{gid}"],
    ["export", "{gid}"],
    ["verify", "{gid}"],
]


@pytest.mark.parametrize("args", READING, ids=lambda a: " ".join(a[:2]))
def test_db_before_and_after_the_command_and_from_tonk_db(store, tmp_path, args):
    db, gid = store
    args = [a.format(gid=gid[:6]) for a in args]
    before = tonk("--db", str(db), *args)
    after = tonk(*args, "--db", str(db))
    env = tonk(*args, env=clean_env(TONK_DB=str(db)))
    assert before.code == 0, before.err
    assert before.out == after.out == env.out
    if args[0] != "games":
        return
    # the --db after the command wins over the one before it and over TONK_DB
    missing = str(tmp_path / "none.db")
    assert tonk("--db", missing, *args, "--db", str(db)).out == before.out
    assert tonk(*args, "--db", str(db), env=clean_env(TONK_DB=missing)).out == before.out


def test_writing_commands_take_db_after_the_command(store, tmp_path):
    db, gid = store
    out = tmp_path / "one.jsonl"
    assert tonk("export", gid[:6], "--output", str(out), "--db", str(db)).code == 0
    new = tmp_path / "new.db"
    r = tonk("import", str(out), "--db", str(new))
    assert r.code == 0 and "imported 1 game(s)" in r.out
    assert [g["game_id"] for g in json.loads(tonk("games", "--json", "--db", str(new)).out)["games"]] == [gid]
    played = tmp_path / "played.db"
    r = tonk("play", "--seed", "2", "--db", str(played), input="q\n")
    assert r.code == 0 and played.exists()
    assert not (tmp_path / "tonk.db").exists()


def test_export_and_verify_take_game_id_prefixes(store):
    db, gid = store
    full = tonk("--db", str(db), "export", gid)
    short = tonk("--db", str(db), "export", gid[:5])
    assert full.code == 0 and short.out == full.out and gid in short.out
    v = tonk("--db", str(db), "verify", gid[:5])
    assert v.code == 0 and "ok: 1 game(s) verified" in v.out
    amb = tonk("--db", str(db), "verify", "")
    assert amb.code in (0, 2)  # an empty prefix: all games (argument given but empty) or a clear error
    bad = tonk("--db", str(db), "export", "zzzz")
    assert bad.code == 2 and "no game 'zzzz'" in bad.err_line()


def test_audit_takes_the_ruleset_as_every_command_does(store):
    db, gid = store
    by_v = tonk("--db", str(db), "audit", gid[:6], "-v", "knock-limit", "--json")
    by_long = tonk("--db", str(db), "audit", gid[:6], "--variant", "knock-limit", "--json")
    assert by_v.code == 0 and by_v.out == by_long.out
    assert json.loads(by_v.out)["games"][0]["rules"]["variants"] == ["knock-limit"]
    old = tonk("--db", str(db), "audit", gid[:6], "-r", "knock-limit")
    assert old.code == 2 and "-r" in old.err_line()


def test_variant_file_on_play_and_audit(tmp_path):
    db = tmp_path / "f.db"
    r = tonk("play", "--seed", "5", "--variant-file", str(EXAMPLE_FILE), "-v", "first-round-no-knock", "--db", str(db), input="q\n")
    assert r.code == 0, r.err
    (g,) = json.loads(tonk("games", "--json", "--db", str(db)).out)["games"]
    assert g["variants"] == ["first-round-no-knock"]
    # the recorded game names a variant that only the file provides
    without = tonk("audit", g["game_id"][:6], "--db", str(db))
    assert without.code == 2
    with_file = tonk("audit", g["game_id"][:6], "--variant-file", str(EXAMPLE_FILE), "--db", str(db))
    assert with_file.code == 0 and "verdict: clean" in with_file.out


def test_variant_file_on_simulate(tmp_path):
    r = tonk("simulate", "-n", "20", "--no-store", "--json", "--variant-file", str(EXAMPLE_FILE), "-v", "first-round-no-knock", "-o", "rounds=2")
    assert r.code == 0, r.err
    assert json.loads(r.out)["config"]["variants"] == ["first-round-no-knock"]
    r = tonk("simulate", "-n", "20", "--no-store", "-w", "2", "--variant-file", str(EXAMPLE_FILE), "-v", "first-round-no-knock")
    assert r.code == 2 and "--workers 1" in r.err_line()


def test_variant_file_on_the_bot_ladder():
    # every command that takes a ruleset takes --variant-file too (README): the ladder also
    r = tonk("bots", "--ladder", "-b", "greedy", "-b", "random", "-n", "6", "--json", "--variant-file", str(EXAMPLE_FILE), "-v", "first-round-no-knock", "-o", "rounds=2")
    assert r.code == 0, r.err
    config = json.loads(r.out)["config"]
    assert (config["variants"], config["options"]) == (["first-round-no-knock"], {"rounds": 2})
    r = tonk("bots", "--ladder", "-b", "greedy", "-b", "random", "-n", "6", "-w", "2", "--variant-file", str(EXAMPLE_FILE), "-v", "first-round-no-knock")
    assert r.code == 2 and "--variant-file needs --workers 1" in r.err_line()
    r = tonk("bots", "--variant-file", str(EXAMPLE_FILE))
    assert r.code == 2 and "give --ladder" in r.err_line()


def test_evidence_commands_take_db_after_the_command(tmp_path):
    pytest.importorskip("cryptography")
    db = tmp_path / "e.db"
    assert tonk("simulate", "-n", "2", "--hands-per-game", "2", "--db", str(db)).code == 0
    before = tonk("--db", str(db), "key")
    assert before.code == 0, before.err
    assert tonk("key", "--db", str(db)).out == before.out
    cp = tmp_path / "cp.txt"
    assert tonk("checkpoint", "--output", str(cp), "--db", str(db)).code == 0 and cp.exists()
    gid = json.loads(tonk("games", "--json", "--db", str(db)).out)["games"][0]["game_id"]
    proof = tonk("prove", gid[:6], "--db", str(db))
    assert proof.code == 0 and proof.out == tonk("--db", str(db), "prove", gid[:6]).out


STORE_COMMANDS = ["play", "simulate", "games", "replay", "audit", "export", "import", "verify", "backup", "key", "checkpoint", "prove", "serve"]


def test_every_command_that_opens_a_store_takes_db_after_its_name():
    from tonk.cli.app import app

    others = {c.name for c in app.registered_commands} - set(STORE_COMMANDS)
    assert others == {"adjudicate", "variants", "rules", "schema", "copy", "bots"}  # no store (copy names two: --from, --to)
    for cmd in STORE_COMMANDS:
        assert "--db PATH|URL" in tonk(cmd, "-h").out, cmd


def test_backup_and_serve_take_db_after_the_command(store, tmp_path):
    db, _ = store
    r = tonk("backup", str(tmp_path / "bk.db"), "--db", str(db))
    assert r.code == 0, r.err
    assert r.out.strip() == f"backed up 2 game(s) to {tmp_path / 'bk.db'}"
    not_a_store = tmp_path / "notes.txt"
    not_a_store.write_text("hello\n")
    r = tonk("serve", "--db", str(not_a_store))  # refused before the server starts
    assert r.code == 2 and str(not_a_store) in r.err_line()


def test_copy_takes_game_id_prefixes_of_the_source_store(store, tmp_path):
    db, gid = store
    dest = tmp_path / "copy.db"
    r = tonk("copy", "--from", str(db), "--to", str(dest), gid[:5])
    assert r.code == 0, r.err
    assert r.out.startswith("copied 1 game(s)")
    assert [g["game_id"] for g in json.loads(tonk("games", "--json", "--db", str(dest)).out)["games"]] == [gid]
    bad = tonk("copy", "--from", str(db), "--to", str(tmp_path / "none.db"), "zzzz")
    assert bad.code == 2 and "no game 'zzzz'" in bad.err_line()
    assert not (tmp_path / "none.db").exists()


def test_variant_file_on_replay_html(tmp_path):
    import re

    db = tmp_path / "f.db"
    r = tonk("play", "--seed", "5", "--variant-file", str(EXAMPLE_FILE), "-v", "first-round-no-knock", "--db", str(db), input="q\n")
    assert r.code == 0, r.err
    gid = json.loads(tonk("games", "--json", "--db", str(db)).out)["games"][0]["game_id"]
    page = tmp_path / "r.html"
    r = tonk("replay", gid[:6], "--html", str(page), "--variant-file", str(EXAMPLE_FILE), "--db", str(db))
    assert r.code == 0, r.err
    (data,) = re.findall(r'<script type="application/json" id="replay-data">(.*?)</script>', page.read_text(), re.DOTALL)
    audit = json.loads(data)["audit"]
    assert audit["verdict"] == "clean" and audit["error"] is None  # judged under the file's rule, not "not installed"


@pytest.mark.parametrize("where", ["before", "after"])
def test_an_empty_db_is_refused_before_or_after_the_command(tmp_path, where):
    """``--db ''`` names no store: refused, not read as the directory '.' (before the
    command) nor quietly replaced by tonk.db (after it)."""
    args = ["--db", "", "games"] if where == "before" else ["games", "--db", ""]
    r = tonk(*args, cwd=tmp_path)
    assert r.code == 2 and "Invalid value for '--db'" in r.err_line() and "it is empty" in r.err_line()
    assert not (tmp_path / "tonk.db").exists()


def test_all_is_spelled_the_same_on_audit_and_export(store):
    """``--all`` and its short ``-a`` on both commands that take it."""
    db, _ = store
    for cmd in ("audit", "export"):
        assert tonk(cmd, "-a", "--db", str(db)).out == tonk(cmd, "--all", "--db", str(db)).out != ""
