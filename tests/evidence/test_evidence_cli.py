"""The evidence commands: tonk key / checkpoint / prove, verify --receipt / --checkpoint /
--proof, play and simulate --receipts; exit codes, error lines, and where the private key
never goes.  ``script`` runs the installed console script (a process of its own); ``tonk``
runs the same app in this process, for speed."""

from __future__ import annotations

import base64
import json
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tonk.cli.app import app

from .conftest import TONK, drop_triggers, file_copy, raw


def script(cwd: Path, *args: str, input: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """The console script, in ``cwd``, on the store ``tonk.db`` there."""
    return subprocess.run(
        [TONK, *args], cwd=cwd, capture_output=True, text=True, input=input, timeout=120, env={**os.environ, "TONK_DB": "tonk.db", **(env or {})}
    )


def tonk(cwd: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    """The same command run in this process (typer's runner), in ``cwd``."""
    old = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(app, ["--db", "tonk.db", *args], input=input)
    finally:
        os.chdir(old)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def clean_failure(r: subprocess.CompletedProcess, code: int, text: str) -> None:
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert text in lines[0], lines[0]
    assert "Traceback" not in r.stdout + r.stderr


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store with simulated games and receipts in ./receipts."""
    r = tonk(tmp_path, "simulate", "-n", "6", "-p", "3", "--hands-per-game", "3", "-s", "5", "--receipts", "receipts")
    assert r.returncode == 0, r.stderr
    assert re.search(r"wrote \d+ receipt\(s\) to receipts", r.stderr)
    return tmp_path


def games(cwd: Path) -> list[str]:
    return [g["game_id"] for g in json.loads(tonk(cwd, "games", "--json").stdout)["games"]]


def cut_after(db: Path, game_id: str, seq: int) -> None:
    conn = raw(db)
    drop_triggers(conn, "events")
    conn.execute("DELETE FROM events WHERE game_id = ? AND seq > ?", (game_id, seq))
    conn.close()


def test_key_checkpoint_prove_and_verify_round_trip(store):
    key = script(store, "key")
    assert key.returncode == 0
    vkey = key.stdout.strip()
    assert re.fullmatch(r"tonk/[0-9a-f]{16}\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}", vkey)
    key_file = store / "tonk.db.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert tonk(store, "key").stdout.strip() == vkey  # created once

    cp = script(store, "checkpoint", "--output", "cp.txt")
    assert cp.returncode == 0 and "written to cp.txt" in cp.stdout
    origin, size, root, blank, sig, end = (store / "cp.txt").read_text().split("\n")
    assert (origin, blank, end) == (vkey.split("+")[0], "", "") and int(size) > 0 and len(base64.b64decode(root)) == 32
    assert sig.startswith(f"\u2014 {origin} ")
    ok = script(store, "verify", "--checkpoint", "cp.txt", "--key", vkey)
    assert ok.returncode == 0 and ok.stdout.startswith("ok: checkpoint cp.txt: the store extends")

    gid = games(store)[0]
    proof = tonk(store, "prove", gid[:8])
    assert proof.returncode == 0 and proof.stdout.startswith("c2sp.org/tlog-proof@v1\nextra ")
    (store / "p.tlog-proof").write_text(proof.stdout)
    ok = tonk(store, "verify", "--proof", "p.tlog-proof", "--key", vkey)
    assert ok.returncode == 0 and f"game {gid}" in ok.stdout
    # the proof needs only the public key: no store at all
    elsewhere = store / "elsewhere"
    elsewhere.mkdir()
    alone = script(elsewhere, "verify", "--proof", str(store / "p.tlog-proof"), "--key", vkey)
    assert alone.returncode == 0 and "(no store checked)" in alone.stdout

    receipts = tonk(store, "verify", "--receipt", "receipts", "--key", vkey, "--json")
    assert receipts.returncode == 0
    data = json.loads(receipts.stdout)
    assert data["ok"] and len(data["reports"]) == len(list((store / "receipts").glob("*.receipt"))) > 0
    assert {r["kind"] for r in data["reports"]} == {"receipt"}

    # a later checkpoint extends the first
    tonk(store, "simulate", "-n", "3", "-p", "2", "--hands-per-game", "3", "-s", "9")
    tonk(store, "checkpoint", "--output", "cp2.txt")
    both = tonk(store, "verify", "--checkpoint", "cp.txt", "--checkpoint", "cp2.txt", "--key", vkey, "--json")
    assert both.returncode == 0
    first, second = json.loads(both.stdout)["reports"]
    assert first["tree_size"] < second["tree_size"] == first["store_tree_size"] and first["consistency_proof"]


def test_a_truncated_game_is_caught_by_its_receipts_and_the_checkpoint(store):
    vkey = tonk(store, "key").stdout.strip()
    tonk(store, "checkpoint", "--output", "cp.txt")
    gid = games(store)[0]
    ends = sorted(int(m.group(1)) for m in (re.search(r"\.seq(\d+)\.", p.name) for p in (store / "receipts").glob(f"{gid}.*")))
    cut_after(store / "tonk.db", gid, ends[0])  # everything after the first hand's end
    r = script(store, "verify", "--receipt", "receipts", "--key", vkey)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"game {gid} seq {ends[0] + 1}: missing" in r.stdout
    last = ends[-1]
    assert f"(receipt: seq {last}, hash " in r.stdout
    assert r.stderr == ""
    total = len(list((store / "receipts").glob("*.receipt")))
    assert "ok:" not in r.stdout  # some receipts failed: no line may say the store holds them all
    assert re.search(rf"^\d+ of {total} receipts are held as signed; the others are named above$", r.stdout, re.M)
    c = tonk(store, "verify", "--checkpoint", "cp.txt", "--key", vkey)
    assert c.returncode == 1 and f"checkpoint cp.txt: game {gid} seq {ends[0] + 1}: missing" in c.stdout
    # and a new checkpoint refuses to sign over the hole
    again = tonk(store, "checkpoint")
    assert again.returncode == 1 and f"game {gid} seq {ends[0] + 1}" in again.stdout
    assert "no checkpoint was signed" in again.stderr


def test_a_store_rolled_back_to_an_older_copy_fails_the_later_checkpoint(store):
    vkey = tonk(store, "key").stdout.strip()
    tonk(store, "checkpoint", "--output", "cp1.txt")
    old = file_copy(store / "tonk.db")
    tonk(store, "simulate", "-n", "3", "-p", "2", "--hands-per-game", "3", "-s", "9", "--receipts", "later")
    tonk(store, "checkpoint", "--output", "cp2.txt")
    for suffix in ("-wal", "-shm"):
        Path(f"{store / 'tonk.db'}{suffix}").unlink(missing_ok=True)
    (store / "tonk.db").write_bytes(old)
    assert tonk(store, "verify", "--checkpoint", "cp1.txt", "--key", vkey).returncode == 0
    r = tonk(store, "verify", "--checkpoint", "cp2.txt", "--key", vkey)
    assert r.returncode == 1 and "rolled back" in r.stdout
    later = tonk(store, "verify", "--receipt", "later", "--key", vkey)
    assert later.returncode == 1 and "the whole game is missing from the store" in later.stdout


def test_wrong_key_bad_signature_and_malformed_evidence_exit_2(store, tmp_path):
    vkey = tonk(store, "key").stdout.strip()
    tonk(store, "checkpoint", "--output", "cp.txt")
    receipt = sorted((store / "receipts").glob("*.receipt"))[-1]
    other = tmp_path / "other"
    other.mkdir()
    tonk(other, "simulate", "-n", "3", "--hands-per-game", "3")
    other_key = tonk(other, "key").stdout.strip()

    clean_failure(tonk(store, "verify", "--receipt", str(receipt), "--key", other_key), 2, "not a trusted key")
    clean_failure(tonk(store, "verify", "--checkpoint", "cp.txt", "--key", other_key), 2, "not by a trusted key")
    # a receipt from another store, checked with this store's own keys
    (other / "r").mkdir()
    tonk(other, "simulate", "-n", "3", "--hands-per-game", "3", "-s", "4", "--receipts", "r")
    foreign = sorted((other / "r").glob("*.receipt"))[0]
    clean_failure(tonk(store, "verify", "--receipt", str(foreign)), 2, "pass it with --key")

    text = receipt.read_text()
    seq = re.search(r"^seq (\d+)$", text, re.M).group(1)
    edited = store / "edited.receipt"
    edited.write_text(text.replace(f"\nseq {seq}\n", f"\nseq {int(seq) - 1}\n"))
    clean_failure(tonk(store, "verify", "--receipt", str(edited), "--key", vkey), 2, "does not verify")
    # one character of the signature changed: the message does not blame the text alone
    sig_line = text.rstrip("\n").rsplit("\n", 1)[1]
    flipped = sig_line[:-3] + ("A" if sig_line[-3] != "A" else "B") + sig_line[-2:]
    resigned = store / "resigned.receipt"
    resigned.write_text(text.replace(sig_line, flipped))
    clean_failure(tonk(store, "verify", "--receipt", str(resigned), "--key", vkey), 2, "the text or the signature was changed")
    broken = store / "broken.receipt"
    broken.write_text(text.replace(f"\nseq {seq}\n", "\nseq twelve\n"))
    clean_failure(tonk(store, "verify", "--receipt", str(broken), "--key", vkey), 2, "line 3")
    (store / "empty.txt").write_text("")
    clean_failure(tonk(store, "verify", "--checkpoint", "empty.txt", "--key", vkey), 2, "checkpoint empty.txt is empty")
    cp = (store / "cp.txt").read_text().split("\n")
    (store / "cp-bad.txt").write_text("\n".join([cp[0], "012", *cp[2:]]))
    clean_failure(tonk(store, "verify", "--checkpoint", "cp-bad.txt", "--key", vkey), 2, "line 2")
    clean_failure(tonk(store, "verify", "--checkpoint", "missing.txt", "--key", vkey), 2, "no such file")
    clean_failure(tonk(store, "verify", "--checkpoint", "cp.txt", "--key", "nonsense"), 2, "--key")

    proof = tonk(store, "prove", games(store)[0]).stdout.split("\n")
    proof[3] = base64.b64encode(b"\x00" * 32).decode()  # the first hash of the path replaced
    (store / "p.tlog-proof").write_text("\n".join(proof))
    clean_failure(tonk(store, "verify", "--proof", "p.tlog-proof", "--key", vkey), 2, "inclusion proof does not lead")
    clean_failure(tonk(store, "verify", games(store)[0], "--receipt", str(receipt)), 2, "not both")


def test_the_private_key_is_never_printed_exported_or_stored(store):
    tonk(store, "checkpoint", "--output", "cp.txt")
    secret = (store / "tonk.db.key").read_text().strip().split("+", 4)[4]
    assert len(base64.b64decode(secret)) == 33
    outputs = [tonk(store, *args) for args in (["key"], ["key", "--json"], ["checkpoint"], ["prove", games(store)[0]], ["export", "--all"])]
    for r in outputs:
        assert r.returncode == 0 and secret not in r.stdout + r.stderr
    db = file_copy(store / "tonk.db")
    seed = base64.b64decode(secret)[1:]
    assert secret.encode() not in db and seed not in db
    for receipt in (store / "receipts").glob("*.receipt"):
        assert secret not in receipt.read_text()


def test_a_store_copied_without_its_key_still_verifies_and_will_not_sign_silently(store, tmp_path):
    vkey = tonk(store, "key").stdout.strip()
    tonk(store, "checkpoint", "--output", "cp.txt")
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "tonk.db").write_bytes(file_copy(store / "tonk.db"))
    assert not (copy / "tonk.db.key").exists()
    ok = tonk(copy, "verify", "--checkpoint", str(store / "cp.txt"))  # the public key the store records
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert tonk(copy, "verify", "--receipt", str(store / "receipts"), "--key", vkey).returncode == 0
    clean_failure(tonk(copy, "checkpoint"), 2, "--new-key")
    assert tonk(copy, "key").returncode == 2
    new = tonk(copy, "checkpoint", "--new-key", "--output", "cp-new.txt")
    assert new.returncode == 0, new.stderr
    new_key = tonk(copy, "key").stdout.strip()
    assert new_key != vkey and new_key.split("+")[0] == vkey.split("+")[0]  # the same log, a new key
    assert stat.S_IMODE((copy / "tonk.db.key").stat().st_mode) == 0o600
    both = tonk(copy, "verify", "--checkpoint", str(store / "cp.txt"), "--checkpoint", "cp-new.txt")
    assert both.returncode == 0, both.stdout


def test_an_empty_key_is_refused_not_taken_for_the_stores_own_keys(store):
    """``--key "$KEY"`` with KEY unset must not quietly become a self-check that binds nobody."""
    tonk(store, "checkpoint", "--output", "cp.txt")
    for evidence in (["--receipt", "receipts"], ["--checkpoint", "cp.txt"]):
        for empty in ("", " "):
            clean_failure(tonk(store, "verify", *evidence, "--key", empty), 2, "--key")


def test_a_key_file_others_can_read_is_refused(store):
    tonk(store, "key")
    (store / "tonk.db.key").chmod(0o644)
    clean_failure(tonk(store, "checkpoint"), 2, "chmod 600")


def test_without_cryptography_the_commands_say_what_to_install(store, tmp_path):
    blocker = tmp_path / "blocker" / "cryptography"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('cryptography is not installed')\n")
    env = {"PYTHONPATH": str(blocker.parent)}
    for args in (["key"], ["verify", "--receipt", "receipts"]):
        clean_failure(script(store, *args, env=env), 2, "pip install 'tonk[evidence]'")
    assert script(store, "verify", env=env).returncode == 0  # the chain check needs nothing more


def test_prove_before_any_checkpoint_and_receipts_without_a_store(store):
    clean_failure(tonk(store, "prove", games(store)[0]), 2, "run tonk checkpoint first")
    clean_failure(tonk(store, "simulate", "-n", "3", "--no-store", "--receipts", "x"), 2, "--receipts needs the games stored")
    clean_failure(tonk(store, "verify", "--key", "x"), 2, "--key goes with")


def test_play_writes_a_receipt_per_seat_at_each_hands_end(tmp_path):
    r = tonk(tmp_path, "play", "--seat", "ann", "--bot", "random", "--seed", "4", "--receipts", "mine", input="d\n1\n" * 150)
    assert r.returncode == 0, r.stderr
    files = sorted((tmp_path / "mine").glob("*.receipt"))
    assert [f.name.split(".")[-2] for f in files] == ["1-ann", "2-random"]
    assert "wrote 2 receipt(s) to mine" in r.stdout
    ok = tonk(tmp_path, "verify", "--receipt", "mine")
    assert ok.returncode == 0 and "ok: 2 receipts" in ok.stdout


def test_after_export_and_import_receipts_still_hold_but_the_checkpoint_names_the_missing_log(store, tmp_path):
    vkey = tonk(store, "key").stdout.strip()
    tonk(store, "checkpoint", "--output", "cp.txt")
    assert tonk(store, "export", "--all", "--output", "all.jsonl").returncode == 0
    rebuilt = tmp_path / "rebuilt"
    rebuilt.mkdir()
    assert tonk(rebuilt, "import", str(store / "all.jsonl")).returncode == 0
    assert tonk(rebuilt, "verify", "--receipt", str(store / "receipts"), "--key", vkey).returncode == 0
    r = tonk(rebuilt, "verify", "--checkpoint", str(store / "cp.txt"), "--key", vkey)
    assert r.returncode == 1 and "the store's evidence log holds 0 entries" in r.stdout
    # a store that never signed is not that log: not "rolled back" (docs/evidence.md: its log is missing)
    assert "has signed nothing" in r.stdout and "rolled back" not in r.stdout


def test_the_core_install_keeps_its_four_dependencies():
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    names = [re.split(r"[<>=\[ ]", d)[0] for d in project["dependencies"]]
    assert names == ["pluggy", "msgspec", "sqlite-utils", "typer"]
    assert [re.split(r"[<>=\[ ]", d)[0] for d in project["optional-dependencies"]["evidence"]] == ["cryptography"]


def test_a_receipts_directory_name_is_shown_as_written(tmp_path):
    r = tonk(tmp_path, "simulate", "-n", "3", "--hands-per-game", "3", "--receipts", "[bold]r")
    assert r.returncode == 0 and "to [bold]r" in r.stderr
    assert list((tmp_path / "[bold]r").glob("*.receipt"))


@pytest.mark.postgres
def test_the_evidence_commands_on_a_postgres_store(pg_url, tmp_path):
    """key, checkpoint, prove, verify --receipt/--checkpoint/--proof and simulate --receipts
    on a postgresql:// store, its key a 0600 file in the user's configuration directory."""
    import psycopg

    env = {"TONK_DB": pg_url}
    sim = script(tmp_path, "simulate", "-n", "4", "-p", "3", "--hands-per-game", "2", "-s", "9", "--receipts", "receipts", env=env)
    assert sim.returncode == 0, sim.stderr
    key = json.loads(script(tmp_path, "key", "--json", env=env).stdout)
    key_file = Path(key["key_file"])
    assert key_file.is_relative_to(Path(os.environ["XDG_CONFIG_HOME"])) and stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert script(tmp_path, "checkpoint", "--output", "cp.txt", env=env).returncode == 0
    listed = json.loads(script(tmp_path, "games", "--json", env=env).stdout)["games"]
    gid = listed[0]["game_id"]
    proof = script(tmp_path, "prove", gid[:8], "--output", "p.tlog-proof", env=env)
    assert proof.returncode == 0, proof.stderr
    ok = script(tmp_path, "verify", "--receipt", "receipts", "--checkpoint", "cp.txt", "--proof", "p.tlog-proof", "--key", key["key"], env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "ok: checkpoint cp.txt: the store extends" in ok.stdout and f"ok: proof p.tlog-proof: game {gid}" in ok.stdout

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TRIGGER events_no_update ON events")
        conn.execute("DELETE FROM events WHERE game_id = %s AND seq > 10", (gid,))
    bad = script(tmp_path, "verify", "--receipt", "receipts", "--checkpoint", "cp.txt", "--key", key["key"], env=env)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert f"checkpoint cp.txt: game {gid} seq 11: missing" in bad.stdout and f"game {gid} seq 11: missing" in bad.stdout
    assert "Traceback" not in bad.stdout + bad.stderr


def test_a_checkpoint_to_a_missing_directory_signs_nothing(store):
    r = tonk(store, "checkpoint", "--output", "no-such-dir/cp.txt")
    assert r.returncode == 2 and "directory no-such-dir does not exist" in r.stderr and "Traceback" not in r.stderr
    tonk(store, "checkpoint", "--output", "cp.txt")
    assert (store / "cp.txt").read_text().split("\n")[1] == str(sum(1 for _ in raw(store / "tonk.db").execute("SELECT 1 FROM events")))
    assert raw(store / "tonk.db").execute("SELECT count(*) FROM evidence_checkpoints").fetchone()[0] == 1


def test_a_checkpoint_to_a_directory_signs_nothing(store):
    (store / "a-directory").mkdir()
    before = file_copy(store / "tonk.db")
    r = tonk(store, "checkpoint", "--output", "a-directory")
    clean_failure(r, 2, "cannot write a-directory: it is a directory (nothing was signed)")
    assert file_copy(store / "tonk.db") == before


def test_each_evidence_commands_json_help_names_only_fields_its_document_has(store):
    """``--json``'s help lists the document's fields: each one listed is in the document."""
    import typer.main

    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    gid = games(store)[0]
    for args in (["key"], ["checkpoint"], ["prove", gid]):
        r = tonk(store, *args, "--json")
        assert r.returncode == 0, r.stderr
        [json_help] = [p.help for p in commands[args[0]].params if "--json" in p.opts]
        named = set(re.search(r"\{([^}]*)\}", json_help).group(1).split(", "))
        assert named <= set(json.loads(r.stdout)), (args[0], named - set(json.loads(r.stdout)))


@pytest.mark.parametrize("command", [["play", "-s", "1"], ["simulate", "-n", "2"]])
def test_a_receipts_directory_that_cannot_be_made_creates_no_store(tmp_path, command):
    (tmp_path / "taken").write_text("a file, not a directory\n")
    r = tonk(tmp_path, *command, "--receipts", "taken", input="")
    clean_failure(r, 2, "--receipts: cannot create the directory taken")
    assert not (tmp_path / "tonk.db").exists()
