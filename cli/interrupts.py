"""What a command says when Ctrl-C (or a simulation's own stop) ends it: one line on
stderr, what is stored, and exit 130."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Callable

import typer


@contextmanager
def interruption_reported(what: Callable[[], str]):
    """Ctrl-C inside: one line on stderr, ``interrupted: <what()>`` (what is stored, and that
    the store is consistent), and exit 130.  A simulation's own account
    (:class:`~tonk.application.simulate.SimulationStopped`) is printed as it is.

    Ctrl-C is also told apart where it does not arrive as :class:`KeyboardInterrupt`: raised
    inside a function SQLite calls back (the store's ``tonk_*`` functions), it becomes SQLite's
    own error (``user-defined function raised exception``), so an error that ends the block
    after Ctrl-C was heard is reported as the interruption it is."""
    from ..application.simulate import SimulationStopped

    heard: list[int] = []

    def on_ctrl_c(signum: int, frame: object) -> None:
        heard.append(signum)
        raise KeyboardInterrupt

    ours = threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if ours:
        signal.signal(signal.SIGINT, on_ctrl_c)
    try:
        yield
    except KeyboardInterrupt:
        typer.echo(f"interrupted: {what()}", err=True)
        raise typer.Exit(130) from None
    except SimulationStopped as exc:
        if not exc.interrupted:
            raise
        typer.echo(str(exc), err=True)
        raise typer.Exit(130) from None
    except Exception:
        if not heard:
            raise
        typer.echo(f"interrupted: {what()}", err=True)
        raise typer.Exit(130) from None
    finally:
        if ours:
            signal.signal(signal.SIGINT, signal.default_int_handler)
