"""Where a benchmark's CPU went: a process family's CPU time and the whole machine's busy time
(Linux ``/proc``), so a figure per command can be split between tonk, its store's server and
the load generator, and a reader can see how much of the machine was left.

A local PostgreSQL server's CPU is its postmaster's, its children's (the backends, the WAL
writer, the checkpointer, ...) and that of children that exited in between (which the kernel
adds to the postmaster's ``cutime``/``cstime`` when it reaps them)."""

from __future__ import annotations

import os
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (state, parent, ...), or ``None``."""
    named = _named_stat(pid)
    return None if named is None else named[1]


def _named_stat(pid: int) -> tuple[str, list[str]] | None:
    """(the command name, the fields after it) of ``/proc/<pid>/stat``, or ``None``."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    head, _, rest = stat.rpartition(")")
    return head.partition("(")[2], rest.split()


def _seconds(fields: list[str], at: int) -> float:
    """Seconds from two clock-tick fields of ``/proc/<pid>/stat`` (after the name) from index ``at``:
    11 the process's own user + system time, 13 its reaped children's."""
    return (int(fields[at]) + int(fields[at + 1])) / _TICK


def process_seconds(pid: int) -> float | None:
    """CPU seconds (user + system) a live process has used, or ``None``."""
    fields = _stat(pid)
    return None if fields is None else _seconds(fields, 11)


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


class FamilyCpu:
    """CPU seconds (user + system) of a process and its children between two :meth:`take` s."""

    def __init__(self, root: int):
        self.root = root

    def take(self) -> dict[int, float] | None:
        """Each live member's CPU seconds so far, and (key ``-1``) what the root's reaped children
        used; ``None`` if the root is gone or ``/proc`` cannot be read."""
        fields = _stat(self.root)
        if fields is None:
            return None
        out = {self.root: _seconds(fields, 11), -1: _seconds(fields, 13)}
        for pid in _children(self.root):
            used = process_seconds(pid)
            if used is not None:
                out[pid] = used
        return out

    @staticmethod
    def used(before: dict[int, float] | None, after: dict[int, float] | None) -> float | None:
        """CPU seconds between the two snapshots: the live members' growth, a member born in
        between counted from zero, one that exited counted by its growth in the reaped share."""
        if before is None or after is None:
            return None
        total = sum(t - before.get(pid, 0.0) for pid, t in after.items())
        return total - sum(t for pid, t in before.items() if pid not in after and pid != -1)


def postmaster_pid(data_dir: Path) -> int | None:
    """The PostgreSQL server's postmaster (the first line of ``postmaster.pid``), if readable."""
    try:
        return int((Path(data_dir) / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None


def local_postmaster(dsn: str) -> int | None:
    """The postmaster of the PostgreSQL server at ``dsn`` if it runs on this machine: the parent
    of the backend that serves a connection (``pg_backend_pid()``), when both are PostgreSQL's
    processes here; ``None`` for a server elsewhere or one this benchmark cannot see."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:  # read while the backend lives
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        named = _named_stat(backend)
        if named is None or not named[0].startswith("postgres"):
            return None
        parent = int(named[1][1])
        named = _named_stat(parent)
        return parent if named is not None and named[0].startswith("postgres") else None


def machine() -> tuple[int, int] | None:
    """(busy, all) clock ticks of every core so far (``/proc/stat``; idle and I/O wait are not busy)."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)


def busy_cores(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """How many of the machine's cores were busy on average between two :func:`machine` readings."""
    if before is None or after is None or after[1] <= before[1]:
        return None
    return (after[0] - before[0]) / (after[1] - before[1]) * (os.cpu_count() or 1)
