"""A store in a read-only directory or on read-only media can be read.

Tests run as root, for whom chmod does not stop a write; so these tests check what the
reading commands write: the store's bytes and mtime are unchanged and no -wal/-shm file
appears beside it (before, opening created both), and, where the machine lets us mount, the
same commands run against a read-only bind mount, where any write fails."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tonk.cli.app import app
from tonk.storage import EventStore, StoreError


def reading_commands(db: Path, game_id: str, out: Path) -> dict[str, list[str]]:
    return {
        "games": ["games", "--json"],
        "replay": ["replay", game_id, "--json"],
        "verify": ["verify", "--json"],
        "audit": ["audit", "--all", "--json"],
        "export": ["export", "--all", "--output", str(out)],
    }


def run(db: Path, args: list[str]):
    return CliRunner().invoke(app, ["--db", str(db), *args])


def check_reading_commands(db: Path, game_id: str, out_dir: Path) -> None:
    for name, args in reading_commands(db, game_id, out_dir / "x.jsonl").items():
        r = run(db, args)
        assert r.exit_code == 0, (name, r.stderr)
        if name != "export":
            json.loads(r.stdout)
    assert (out_dir / "x.jsonl").read_bytes().count(b"\n") > 1


def test_reading_commands_write_nothing_beside_or_into_the_store(tmp_path, games, record):
    d = tmp_path / "ro"
    d.mkdir()
    db = d / "tonk.db"
    record(db, games)
    before = (db.read_bytes(), db.stat().st_mtime_ns)
    os.chmod(d, 0o555)
    try:
        check_reading_commands(db, games[0].game_id, tmp_path)
    finally:
        os.chmod(d, 0o755)
    assert sorted(p.name for p in d.iterdir()) == ["tonk.db"]  # no -wal, no -shm
    assert (db.read_bytes(), db.stat().st_mtime_ns) == before


def test_a_read_only_store_refuses_writes(tmp_path, games, record):
    db = tmp_path / "tonk.db"
    record(db, games[:1])
    g = games[1]
    with EventStore.open(db, create=False, read_only=True) as store:
        assert store.game_ids() == [games[0].game_id]
        with pytest.raises(StoreError):
            store.append(g.game_id, g.events, 0)
    with EventStore.open(db) as store:
        assert store.game_ids() == [games[0].game_id]


def test_a_read_only_store_sees_what_an_open_writer_committed(tmp_path, games, record):
    db = tmp_path / "tonk.db"
    record(db, games[:1])
    with EventStore.open(db) as writer:
        writer.append(games[1].game_id, games[1].events, 0)  # in the WAL, while the writer is open
        with EventStore.open(db, create=False, read_only=True) as reader:
            assert reader.game_ids() == sorted(g.game_id for g in games[:2])


@pytest.fixture
def read_only_mount(tmp_path):
    """A directory mounted read-only (a bind mount): any write into it fails, even as root."""
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("needs mount and root")
    src, mnt = tmp_path / "src", tmp_path / f"mnt-{uuid.uuid4().hex[:6]}"
    src.mkdir()
    mnt.mkdir()
    ok = subprocess.run(["mount", "--bind", str(src), str(mnt)], capture_output=True).returncode == 0
    if not ok:
        pytest.skip("this machine does not allow a bind mount")
    try:
        if subprocess.run(["mount", "-o", "remount,bind,ro", str(mnt)], capture_output=True).returncode != 0:
            pytest.skip("this machine does not allow a read-only remount")
        yield src, mnt
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_reading_commands_work_on_read_only_media(tmp_path, games, record, read_only_mount):
    src, mnt = read_only_mount
    record(src / "tonk.db", games)
    with pytest.raises(OSError):
        (mnt / "probe").write_text("x")  # the mount really refuses writes
    check_reading_commands(mnt / "tonk.db", games[0].game_id, tmp_path)
    r = run(mnt / "tonk.db", ["backup", str(tmp_path / "copy.db")])
    assert r.exit_code == 0, r.stderr


def test_tonk_copy_only_reads_its_source(tmp_path, games, record):
    """`tonk copy --from` reads the source as the reading commands do: nothing is written
    into or beside it, and a store of an older schema is copied without being migrated."""
    d = tmp_path / "src"
    d.mkdir()
    db = d / "tonk.db"
    record(db, games)
    old = d / "schema4.db"
    shutil.copy(Path(__file__).parent / "fixtures" / "schema4.db", old)
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in d.iterdir()}
    for source in (db, old):
        r = CliRunner().invoke(app, ["copy", "--from", str(source), "--to", str(tmp_path / f"copy-{source.name}")])
        assert r.exit_code == 0, r.stderr
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in d.iterdir()} == before


def test_tonk_prove_only_reads_the_store(tmp_path, games, record):
    """`tonk prove` reads the evidence log: it writes nothing into or beside the store, and
    a store of an older schema is not migrated by asking it for a proof."""
    d = tmp_path / "src"
    d.mkdir()
    db = d / "tonk.db"
    record(db, games)
    assert run(db, ["checkpoint"]).exit_code == 0
    old = d / "schema4.db"
    shutil.copy(Path(__file__).parent / "fixtures" / "schema4.db", old)
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in d.iterdir()}
    r = run(db, ["prove", games[0].game_id])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("c2sp.org/tlog-proof@v1\n")
    r = run(old, ["prove", json.loads(run(old, ["games", "--json"]).stdout)["games"][0]["game_id"]])
    assert (r.exit_code, r.stderr) == (2, "error: the store has no checkpoint yet: run tonk checkpoint first\n")
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in d.iterdir()} == before
