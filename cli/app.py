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

import copy
import gc
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import typer

from ..core.errors import TonkError

if TYPE_CHECKING:
    from pathlib import Path

app = typer.Typer(
    name="tonk",
    help="Tonk (Tunk): play, simulate, replay, audit and adjudicate hands, with house rules as plugins.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    # plain click help: flags shown as typed (`--json`, `-v, --variant NAME`), no boxes,
    # no `<bool>`; usage errors are turned into one `error:` line by `main()`
    rich_markup_mode=None,
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


def version_text() -> str:
    """``tonk 0.1.0 (event format 1, Python 3.11.9)``."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    from ..core.events import FORMAT_VERSION

    try:
        engine = version("tonk")
    except PackageNotFoundError:  # run from a source tree without installing
        engine = "unknown"
    return f"tonk {engine} (event format {FORMAT_VERSION}, Python {platform.python_version()})"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit(0)


def _db_given(value: str) -> str:
    from .options import db_given

    return db_given(value) or value


@app.callback()
def main_options(
    ctx: typer.Context,
    db: str = typer.Option(
        DEFAULT_DB,
        "--db",
        envvar="TONK_DB",
        metavar="PATH|URL",
        callback=_db_given,
        help="The event store: a SQLite file, a postgresql:// URL, or :memory: (a new, empty store, discarded when the command ends) (also accepted after the command).",
        show_default=True,
    ),
    version: bool = typer.Option(
        False, "--version", callback=_show_version, is_eager=True, help="Print the engine version, the event format version and Python's, and exit."
    ),
) -> None:
    ctx.obj = Settings(db=db)


def settings(ctx: typer.Context) -> Settings:
    """The global settings; a command's own ``--db`` (given after its name) wins over the
    one given before it (see :func:`tonk.cli.options.db_option`)."""
    obj = ctx.find_root().obj
    base = obj if isinstance(obj, Settings) else Settings(db=os.environ.get("TONK_DB", DEFAULT_DB))
    local = ctx.params.get("db") if ctx.parent is not None else None
    return Settings(db=local) if local else base


def unwritable(path: "Path") -> str | None:
    """Why ``path`` cannot be written as a file (``None``: it may be tried), for a command to
    ask before it changes the store, so that a bad output path changes nothing stored."""
    from pathlib import Path

    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        return f"directory {directory} does not exist"
    if path.is_dir():
        return "it is a directory"
    return None


def fail(message: str, code: int = 2) -> "typer.Exit":
    """Print one error line to stderr and return an Exit to raise."""
    from .render import one_line

    typer.echo(f"error: {one_line(message)}", err=True)
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


def usage_error_line(exc) -> str:
    """A click usage error (a bad option value, a missing argument) as one line."""
    ctx = getattr(exc, "ctx", None)
    where = f" (see {ctx.command_path} -h)" if ctx is not None else ""
    return f"{exc.format_message()}{where}"


def _click_exceptions() -> tuple[type[Any], type[Any], type[Any]]:
    """click's ``ClickException``, ``UsageError`` and ``Abort`` as typer uses them (typer may
    vendor click), found from typer's public ``BadParameter`` and ``Abort`` (so typed ``Any``:
    no static type names them)."""
    mro = {c.__name__: c for c in typer.BadParameter.__mro__}
    return mro["ClickException"], mro["UsageError"], next(c for c in typer.Abort.__mro__ if c.__name__ == "Abort")


def command_named(args: list[str]) -> str | None:
    """The command ``args`` (the words after ``tonk``) run, when that is plain: the first
    word that is neither an option nor ``--db``'s value, if it is a command's name.  None
    when any other option of the group comes first (``--version``, ``-h``, completion),
    when there is no command, or when the word names none (click then answers as usual)."""
    names = {info.name for info in app.registered_commands}
    words = iter(args)
    for word in words:
        if word == "--db":
            next(words, None)
        elif word.startswith("--db="):
            continue
        elif word.startswith("-"):
            return None
        else:
            return word if word in names else None
    return None


def app_for(args: list[str]) -> typer.Typer:
    """The app to run ``args`` with: when they name one command, the same app with only that
    command registered.  typer builds a click command for every registered command (their
    signatures read through ``get_type_hints``) before it parses a word; the other 18 are
    not needed to run one, and building them was about an eighth of ``tonk simulate``'s
    start-up.  The group, its options and the command are built by the same code as before,
    so parsing, help, errors and exit codes are the same; ``tonk --help`` and the like (no
    plain command) get the whole app."""
    name = command_named(args)
    if name is None:
        return app
    only = copy.copy(app)
    only.registered_commands = [info for info in app.registered_commands if info.name == name]
    return only


def main() -> None:
    """Console-script entry point: usage errors are one ``error:`` line and exit 2, like
    every other expected failure (click's standalone mode would print a usage block)."""
    click_exception, usage_error, abort = _click_exceptions()
    # The objects of start-up (modules, classes, functions, typer's and click's) live as
    # long as the process: moved out of the cyclic collector's sight (as tonk serve does
    # after its start-up), they are not walked by every full collection and by the
    # collections as the interpreter exits (about 28 M instructions, 5 % of `tonk simulate
    # --hands 1`'s).  What the command itself makes is collected as before.
    gc.freeze()
    try:
        code = app_for(sys.argv[1:])(standalone_mode=False)
    except usage_error as exc:
        if type(exc).__name__ == "NoArgsIsHelpError" and exc.ctx is not None:  # `tonk` alone: the help
            typer.echo(exc.ctx.get_help())
            sys.exit(2)
        sys.exit(fail(usage_error_line(exc), 2).exit_code)
    except click_exception as exc:  # a file option that cannot be opened, and the like
        sys.exit(fail(exc.format_message(), 2).exit_code)
    except abort:
        typer.echo("", err=True)
        sys.exit(130)
    except (Failure, TonkError) as exc:  # a command that forgot `reported()`
        sys.exit(fail(getattr(exc, "message", None) or str(exc), getattr(exc, "code", 2)).exit_code)
    except BrokenPipeError:  # the reader went away (`tonk games | head -1`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


# --- command modules register themselves on `app` (this order is the order of `tonk --help`)
from . import adjudicate as _adjudicate  # noqa: E402,F401
from . import play_cmd as _play_cmd  # noqa: E402,F401
from . import simulate_cmd as _simulate_cmd  # noqa: E402,F401
from . import bots_cmd as _bots_cmd  # noqa: E402,F401
from . import games_cmd as _games_cmd  # noqa: E402,F401
from . import replay_cmd as _replay_cmd  # noqa: E402,F401
from . import audit_cmd as _audit_cmd  # noqa: E402,F401
from . import variants_cmd as _variants_cmd  # noqa: E402,F401
from . import rules_cmd as _rules_cmd  # noqa: E402,F401
from . import store_cmd as _store_cmd  # noqa: E402,F401
from . import copy_cmd as _copy_cmd  # noqa: E402,F401
from . import evidence_cmd as _evidence_cmd  # noqa: E402,F401
from . import serve_cmd as _serve_cmd  # noqa: E402,F401
