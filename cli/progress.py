"""Progress of a long command on stderr, only when stderr is a terminal, with time left.

    with progress("exporting", total=events, unit="events") as advance:
        ...
        advance(1)

Off a terminal (a pipe, a file, a test) nothing is drawn and ``advance`` costs
a function call.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")


def _noop(n: int = 1) -> None:
    return None


def stderr_is_terminal() -> bool:
    """Whether Rich's console on stderr is a terminal.  When stderr is no tty and nothing in the
    environment tells Rich otherwise (``TTY_COMPATIBLE``, ``FORCE_COLOR``), Rich's answer is
    no: given without importing Rich, so a command whose output is piped starts faster."""
    isatty = getattr(sys.stderr, "isatty", None)
    if (isatty is None or not isatty()) and "TTY_COMPATIBLE" not in os.environ and "FORCE_COLOR" not in os.environ:
        return False
    from .render import err_console

    return err_console().is_terminal


@contextmanager
def progress(label: str, total: int | None, unit: str = "", *, enabled: bool = True, percent: bool = False) -> Iterator[Callable[[int], None]]:
    """A progress bar for ``total`` steps; yields ``advance(n=1)``.  It shows ``done/total
    unit``, or with ``percent`` ``P% unit`` (for steps no one counts, such as bytes)."""
    if not enabled or not stderr_is_terminal():
        yield _noop
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from .render import err_console, safe

    bar = Progress(
        TextColumn(f"[bold]{safe(label)}[/bold]"),
        BarColumn(),
        TaskProgressColumn() if percent else MofNCompleteColumn(),
        TextColumn(safe(unit)),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=err_console(),
        transient=True,
    )
    task = bar.add_task(label, total=total)

    def advance(n: int = 1) -> None:
        bar.advance(task, n)

    with bar:
        yield advance


def iterate(items: list[T], label: str, unit: str = "", *, enabled: bool = True) -> Iterable[T]:
    """``items`` one by one, with a progress bar over them."""
    with progress(label, len(items), unit, enabled=enabled) as advance:
        for item in items:
            yield item
            advance(1)


class CountingWriter:
    """A binary stream that advances a progress bar by the lines written through it."""

    def __init__(self, out, advance: Callable[[int], None]):
        self.out = out
        self.advance = advance

    def write(self, data: bytes) -> int:
        n = self.out.write(data)
        lines = data.count(b"\n")
        if lines:
            self.advance(lines)
        return n

    def flush(self) -> None:
        self.out.flush()
