"""What a command says when Ctrl-C (or a simulation's own stop) ends it: one line on
stderr, what is stored, and exit 130."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable

import typer


@contextmanager
def interruption_reported(what: Callable[[], str]):
    """Ctrl-C inside: one line on stderr, ``interrupted: <what()>`` (what is stored, and that
    the store is consistent), and exit 130.  A simulation's own account
    (:class:`~tonk.application.simulate.SimulationStopped`) is printed as it is."""
    from ..application.simulate import SimulationStopped

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
