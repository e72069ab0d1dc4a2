"""Real processes, real signals: Ctrl-C during simulate, import and audit says what is stored;
killing simulate's parent process kills its workers (no orphan goes on writing)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals and /proc")

TONK = str(Path(sys.executable).parent / "tonk")
WAIT = 120  # seconds; a guard against a hang, not a measurement


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([TONK, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def games_in(db: Path) -> int:
    if not db.exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT count(DISTINCT game_id) FROM events").fetchone()[0]
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
    finally:
        conn.close()


def wait_for_games(db: Path, n: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + WAIT
    while games_in(db) < n:
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline
        time.sleep(0.05)


def children_of(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie writes nothing


SIM = ("simulate", "--hands", "200000", "--hands-per-game", "5", "--seed", "3", "--json")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_during_simulate_says_what_is_stored(tmp_path, workers):
    db = tmp_path / "t.db"
    proc = start("--db", str(db), *SIM, "--workers", workers)
    wait_for_games(db, 3, proc)
    os.kill(proc.pid, signal.SIGINT)  # the parent, as a terminal's Ctrl-C would (and the workers ignore it)
    out, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 130, err.decode()
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1, lines
    stored = games_in(db)
    assert lines[0].startswith(f"interrupted; {stored} of the simulation's 40000 game(s) ({stored * 5} of 200000 hands) are stored in {db}")
    assert lines[0].endswith("each game whole, and the store is consistent")
    assert out == b""
    verify = subprocess.run([TONK, "--db", str(db), "verify", "--json"], capture_output=True, timeout=WAIT)
    assert json.loads(verify.stdout)["ok"] is True


def test_killing_simulates_parent_kills_its_workers(tmp_path):
    db = tmp_path / "t.db"
    proc = start("--db", str(db), *SIM, "--workers", "2")
    wait_for_games(db, 3, proc)
    workers = [p for p in children_of(proc.pid) if alive(p)]
    assert len(workers) >= 2  # the two workers (and the resource tracker)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=WAIT)
    deadline = time.monotonic() + 10
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in workers)
    stored = games_in(db)
    time.sleep(1.5)
    assert games_in(db) == stored  # nobody goes on writing


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> tuple[Path, Path]:
    """A store with many games and its export: long enough to interrupt an import or audit."""
    d = tmp_path_factory.mktemp("archive")
    db = d / "a.db"
    r = subprocess.run([TONK, "--db", str(db), "simulate", "--hands", "6000", "--hands-per-game", "20", "--json"], capture_output=True, timeout=WAIT)
    assert r.returncode == 0, r.stderr
    f = d / "a.jsonl"
    r = subprocess.run([TONK, "--db", str(db), "export", "--all", "--output", str(f)], capture_output=True, timeout=WAIT)
    assert r.returncode == 0, r.stderr
    return db, f


def interrupt_after(proc: subprocess.Popen, seconds: float) -> tuple[bytes, bytes]:
    time.sleep(seconds)
    assert proc.poll() is None, "the command finished before it could be interrupted"
    os.kill(proc.pid, signal.SIGINT)
    return proc.communicate(timeout=WAIT)


def wait_until_reading(proc: subprocess.Popen, path: Path) -> None:
    """Until the process has ``path`` open (its command is under way: start-up is over)."""
    deadline = time.monotonic() + WAIT
    target = str(path.resolve())
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the command finished before it could be interrupted"
        fds = Path(f"/proc/{proc.pid}/fd")
        try:
            if any(os.readlink(fd) == target for fd in fds.iterdir()):
                return
        except (FileNotFoundError, PermissionError):  # an fd closed while listed
            pass
        time.sleep(0.005)
    raise AssertionError(f"the command never opened {path}")


def test_ctrl_c_during_import_says_nothing_was_imported(tmp_path, archive):
    _, f = archive
    db = tmp_path / "b.db"
    proc = start("--db", str(db), "import", str(f))
    wait_until_reading(proc, f)  # not a time: a loaded machine can take a second to start
    out, err = interrupt_after(proc, 0.05)
    assert proc.returncode == 130, err.decode()
    assert err.decode().strip().splitlines() == [
        f"interrupted: nothing was imported (an import is written in one transaction); the store {db} is consistent and unchanged"
    ]
    assert games_in(db) == 0


def test_ctrl_c_during_audit_says_how_far_it_got(archive):
    db, _ = archive
    proc = start("--db", str(db), "audit", "--all")
    assert proc.stdout.read(1)  # the first verdicts are out: the audit is under way
    out, err = interrupt_after(proc, 0.2)
    assert proc.returncode == 130, err.decode()
    [line] = err.decode().strip().splitlines()
    assert line.startswith("interrupted: ") and " of 300 game(s) audited; audit only reads: nothing was written" in line


def test_a_full_disk_during_simulate_says_exactly_what_was_stored(tmp_path):
    """A real write failure: the file size limit (RLIMIT_FSIZE, which binds root too) makes
    SQLite's writes fail with EFBIG part way through, as a full disk would."""
    import resource

    db = tmp_path / "t.db"

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (1_500_000, 1_500_000))

    r = subprocess.run(
        [TONK, "--db", str(db), "simulate", "--hands", "3000", "--hands-per-game", "50", "--json"],
        capture_output=True,
        timeout=WAIT,
        preexec_fn=limit,
    )
    assert r.returncode == 2, r.stderr
    [line] = r.stderr.decode().strip().splitlines()
    stored = games_in(db)
    assert 0 < stored < 60
    assert line.startswith("error: the simulation stopped: ")
    assert f"; {stored} of the simulation's 60 game(s) ({stored * 50} of 3000 hands) are stored in {db}, each game whole" in line
    assert "nothing of this write is stored" in line  # the failed append, and only it
    verify = subprocess.run([TONK, "--db", str(db), "verify", "--json"], capture_output=True, timeout=WAIT)
    assert json.loads(verify.stdout)["ok"] is True
