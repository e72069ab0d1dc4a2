"""Running the installed ``tonk`` console script as a user would: a subprocess, a real
store, stdout and stderr piped (or a pseudo-terminal, for what only a terminal gets)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

TONK = Path(sys.executable).parent / "tonk"


@dataclass
class Ran:
    code: int
    out: str
    err: str

    def err_line(self) -> str:
        """The one ``error:`` line an expected failure prints (asserted to be one line)."""
        lines = self.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), self.err
        assert "Traceback" not in self.out + self.err
        return lines[0]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TONK_DB", "PAGER", "TONK_PAGER", "LESS")}
    env["COLUMNS"] = "80"  # a narrow terminal size must not matter off a terminal
    env.update(extra)
    return env


def tonk(*args: str, input: str | None = None, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 120) -> Ran:
    p = subprocess.run(
        [str(TONK), *args],
        input=input,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env or clean_env(),
        cwd=cwd,
        timeout=timeout,
    )
    return Ran(p.returncode, p.stdout, p.stderr)


def on_terminal(args: list[str], *, stdout_tty: bool, stderr_tty: bool, env: dict[str, str] | None = None, timeout: float = 60) -> tuple[int, bytes, bytes]:
    """Run ``tonk`` with stdout and/or stderr on a pseudo-terminal; returns (exit code,
    what reached stdout, what reached stderr)."""
    master, slave = os.openpty()
    stdout = slave if stdout_tty else subprocess.PIPE
    stderr = slave if stderr_tty else subprocess.PIPE
    proc = subprocess.Popen([str(TONK), *args], stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, env=env or clean_env())
    os.close(slave)
    tty_bytes = b""
    deadline = time.monotonic() + timeout
    piped = proc.stdout if not stdout_tty else proc.stderr
    piped_bytes = b""
    streams = [master] + ([piped] if piped is not None else [])
    while streams and time.monotonic() < deadline:
        ready, _, _ = select.select(streams, [], [], 0.2)
        for s in ready:
            if s == master:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    streams.remove(master)
                tty_bytes += chunk
            else:
                chunk = os.read(s.fileno(), 65536)
                if not chunk:
                    streams.remove(s)
                piped_bytes += chunk
        if proc.poll() is not None and not ready:
            break
    proc.wait(timeout=10)
    os.close(master)
    if stdout_tty and stderr_tty:
        return proc.returncode, tty_bytes, tty_bytes
    if stdout_tty:
        return proc.returncode, tty_bytes, piped_bytes
    return proc.returncode, piped_bytes, tty_bytes
