"""Long output through a pager on a terminal, as git does.

The pager is ``$TONK_PAGER``, else ``$PAGER``, else ``less -FRX`` (quit at
once when the text fits the screen, keep colours, leave the text on the
screen).  Never used when standard output is not a terminal, nor when the
pager is empty or ``cat``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from typing import Iterator

DEFAULT_PAGER = "less -FRX"


def pager_command() -> str | None:
    """The pager to run, or ``None`` for none (not a terminal, or disabled)."""
    try:
        if not sys.stdout.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    cmd = os.environ.get("TONK_PAGER")
    if cmd is None:
        cmd = os.environ.get("PAGER")
    if cmd is None:
        cmd = DEFAULT_PAGER
    cmd = cmd.strip()
    return None if cmd in ("", "cat") else cmd


@contextmanager
def paged(console) -> Iterator[None]:
    """Inside the block, what ``console`` prints goes through the pager (on a terminal)."""
    cmd = pager_command()
    if cmd is None:
        yield
        return
    with console.capture() as capture:
        yield
    text = capture.get()
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")  # as git: a short text is printed and less quits
    env.setdefault("LV", "-c")
    try:
        proc = subprocess.Popen(cmd, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:
        sys.stdout.write(text)
        return
    try:
        assert proc.stdin is not None
        proc.stdin.write(text.encode("utf-8", "replace"))
        proc.stdin.close()
    except BrokenPipeError:  # the reader quit the pager early
        pass
    except KeyboardInterrupt:
        pass
    while True:
        try:
            proc.wait()
            break
        except KeyboardInterrupt:  # as git: Ctrl-C belongs to the pager
            continue
