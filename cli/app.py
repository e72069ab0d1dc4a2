"""The ``tonk`` command: a typer app of thin commands over tonk.core and tonk.storage.

Conventions every command follows:

* ``--db`` (env ``TONK_DB``, default ``tonk.db``) is a global option;
  ``--json`` prints machine output on every command that prints data.
* An expected failure (bad input, unknown game, illegal action, unknown
  variant) prints one line ``error: ...`` to stderr and exits 2; no
  traceback.  Findings (a ``--check`` difference, an audit finding) exit 1.

Each command lives in its own module of this package and registers itself on
``app``; the imports at the bottom wire them in.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass

import typer

from ..core.errors import TonkError

app = typer.Typer(
    name="tonk",
    help="Tonk (Tunk): play, simulate, replay, audit and adjudicate hands, with house rules as plugins.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)

DEFAULT_DB = "tonk.db"


@dataclass
class Settings:
    db: str = DEFAULT_DB


class Failure(Exception):
    """An expected failure: printed as one line, exit code ``code``."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.message = message
        self.code = code


@app.callback()
def main_options(
    ctx: typer.Context,
    db: str = typer.Option(
        DEFAULT_DB,
        "--db",
        envvar="TONK_DB",
        help="SQLite event store file.",
        show_default=True,
    ),
) -> None:
    ctx.obj = Settings(db=db)


def settings(ctx: typer.Context) -> Settings:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Settings) else Settings(db=os.environ.get("TONK_DB", DEFAULT_DB))


def fail(message: str, code: int = 2) -> "typer.Exit":
    """Print one error line to stderr and return an Exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


@contextmanager
def reported():
    """Turn expected failures inside a command into one ``error:`` line and exit 2."""
    try:
        yield
    except Failure as exc:
        raise fail(exc.message, exc.code) from None
    except TonkError as exc:
        raise fail(str(exc)) from None


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except (Failure, TonkError) as exc:  # a command that forgot `reported()`
        typer.echo(f"error: {getattr(exc, 'message', None) or exc}", err=True)
        sys.exit(getattr(exc, "code", 2))


# --- command modules register themselves on `app` (this order is the order of `tonk --help`)
from . import adjudicate as _adjudicate  # noqa: E402,F401
from . import play_cmd as _play_cmd  # noqa: E402,F401
from . import simulate_cmd as _simulate_cmd  # noqa: E402,F401
from . import games_cmd as _games_cmd  # noqa: E402,F401
from . import replay_cmd as _replay_cmd  # noqa: E402,F401
from . import audit_cmd as _audit_cmd  # noqa: E402,F401
from . import variants_cmd as _variants_cmd  # noqa: E402,F401
from . import store_cmd as _store_cmd  # noqa: E402,F401
from . import evidence_cmd as _evidence_cmd  # noqa: E402,F401
