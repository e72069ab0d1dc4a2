"""bench/cpu_account.py: a process family's CPU, children that exited in between included, and
the machine's busy cores (what the PostgreSQL service benchmark splits its CPU by)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout: bench/ is not in the package
from bench import cpu_account  # noqa: E402

#: a child that uses this much CPU time (not wall time: the machine's load does not change it)
BURN = 0.3

_BURNER = f"import time\nwhile time.process_time() < {BURN}: pass\n"


def _parent(script: str) -> subprocess.Popen:
    """A parent that runs ``script`` and then waits to be told to go (a line on its stdin)."""
    return subprocess.Popen([sys.executable, "-c", script + "\nimport sys\nsys.stdin.readline()\n"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _wait_for_line(proc: subprocess.Popen, expected: str) -> None:
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == expected


def test_a_child_that_ran_and_exited_in_between_is_counted():
    # the parent starts idle, is measured, then starts a child that burns BURN seconds and reaps it
    parent = _parent(
        textwrap.dedent(
            f"""
            import subprocess, sys
            print("ready", flush=True)
            sys.stdin.readline()
            subprocess.run([sys.executable, "-c", {_BURNER!r}], check=True)
            print("reaped", flush=True)
            """
        )
    )
    try:
        _wait_for_line(parent, "ready")
        family = cpu_account.FamilyCpu(parent.pid)
        before = family.take()
        assert parent.stdin is not None
        parent.stdin.write("go\n")
        parent.stdin.flush()
        _wait_for_line(parent, "reaped")
        used = cpu_account.FamilyCpu.used(before, family.take())
        assert used is not None and used >= BURN - 0.02  # the clock ticks round down
    finally:
        parent.kill()
        parent.wait()


def test_a_child_alive_at_the_first_snapshot_is_counted_by_its_growth_only():
    # the child burns BURN before the first snapshot, then BURN more, exits and is reaped
    child = "import sys, time\nwhile time.process_time() < {0}: pass\nprint('half', flush=True)\nsys.stdin.readline()\nwhile time.process_time() < {1}: pass\n"
    parent = _parent(
        textwrap.dedent(
            f"""
            import subprocess, sys
            subprocess.run([sys.executable, "-c", {child.format(BURN, 2 * BURN)!r}], check=True)  # its stdin and stdout are the parent's
            print("reaped", flush=True)
            """
        )
    )
    try:
        _wait_for_line(parent, "half")
        family = cpu_account.FamilyCpu(parent.pid)
        before = family.take()
        assert before is not None and len(before) == 3  # the parent, its reaped share and the child
        assert parent.stdin is not None
        parent.stdin.write("go\n")
        parent.stdin.flush()
        _wait_for_line(parent, "reaped")
        used = cpu_account.FamilyCpu.used(before, family.take())
        assert used is not None and BURN - 0.02 <= used < 2 * BURN - 0.05  # not the first half again
    finally:
        parent.kill()
        parent.wait()


def test_a_family_whose_root_is_gone_has_no_figure():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert cpu_account.FamilyCpu(proc.pid).take() is None
    assert cpu_account.FamilyCpu.used(None, {1: 0.0}) is None


def test_the_machine_busy_cores_are_between_none_and_all():
    before = cpu_account.machine()
    t_end = time.process_time() + 0.1
    while time.process_time() < t_end:
        pass
    busy = cpu_account.busy_cores(before, cpu_account.machine())
    assert busy is not None and 0 < busy <= (os.cpu_count() or 1)


def test_the_postmaster_pid_is_read_from_its_file(tmp_path):
    (tmp_path / "postmaster.pid").write_text("4321\n/var/lib/x\n1700000000\n")
    assert cpu_account.postmaster_pid(tmp_path) == 4321
    assert cpu_account.postmaster_pid(tmp_path / "missing") is None


@pytest.mark.postgres
def test_a_local_postgresql_servers_cpu_is_its_postmasters_family(pg_server):
    import psycopg

    postmaster = cpu_account.local_postmaster(pg_server)
    assert postmaster is not None
    family = cpu_account.FamilyCpu(postmaster)
    before = family.take()
    with psycopg.connect(pg_server, autocommit=True) as conn:  # a backend that works, then exits
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        assert backend in (family.take() or {})  # the connection's backend is one of the family
        conn.execute("SELECT count(*) FROM generate_series(1, 3000000)").fetchone()
    used = cpu_account.FamilyCpu.used(before, family.take())
    assert used is not None and used > 0.05  # the count's CPU, whether its backend has exited yet or not
