"""Progress bars are drawn only where Rich sees a terminal; the check that skips Rich when
stderr is piped must give Rich's own answer."""

from __future__ import annotations

import io
import itertools
import os
import subprocess
import sys

import pytest
from rich.console import Console

from tonk.cli import progress, render


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


CASES = list(itertools.product([False, True], [None, "", "1"], [None, "0", "1"]))


@pytest.mark.parametrize(("tty", "force_color", "tty_compatible"), CASES)
def test_stderr_is_terminal_gives_riches_answer(monkeypatch: pytest.MonkeyPatch, tty: bool, force_color: str | None, tty_compatible: str | None) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.delenv("JUPYTER_COLUMNS", raising=False)
    if force_color is not None:
        monkeypatch.setenv("FORCE_COLOR", force_color)
    if tty_compatible is not None:
        monkeypatch.setenv("TTY_COMPATIBLE", tty_compatible)
    monkeypatch.setattr(sys, "stderr", _Stream(tty))
    monkeypatch.setattr(render, "_err_console", None)
    assert progress.stderr_is_terminal() == Console(stderr=True).is_terminal


def test_a_piped_command_draws_no_progress_and_leaves_rich_unimported() -> None:
    script = (
        "import sys\n"
        "from tonk.cli.app import main\n"
        "sys.argv = ['tonk', 'simulate', '--hands', '3', '--seed', '1', '--no-store', '--json']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print('rich' in sys.modules, file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines() == ["False"]
