"""The options every command spells the same way.

* ``--db PATH``: the store, accepted before the command (``tonk --db F games``,
  with ``TONK_DB`` as its environment variable) and after it (``tonk games
  --db F``); the one after the command wins.
* A ruleset: ``-v/--variant NAME`` (repeatable), ``-o/--option KEY=VALUE``
  (repeatable) and ``--variant-file PATH`` (a one-off house rule in a Python
  file, repeatable).

Short options mean one thing on every command: ``-v`` a variant, ``-o`` an
option, ``-n`` a number of hands, ``-h`` help.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer


def db_given(value: str | None) -> str | None:
    """``--db``'s check (before or after the command): an empty value names no store."""
    if value is not None and not value.strip():
        raise typer.BadParameter("it is empty: give a SQLite file, a postgresql:// URL or :memory:")
    return value


def db_option() -> Any:
    return typer.Option(None, "--db", metavar="PATH|URL", callback=db_given, help="The event store: a SQLite file, a postgresql:// URL, or :memory: (a new store, discarded when the command ends) (default: the --db given before the command, TONK_DB, or tonk.db).")


def variant_option(help: str = "A house rule (variant) by name; repeatable, in order.") -> Any:
    return typer.Option([], "--variant", "-v", metavar="NAME", help=help)


def option_option(help: str = "A ruleset option KEY=VALUE (e.g. base_stake=2); repeatable.") -> Any:
    return typer.Option([], "--option", "-o", metavar="KEY=VALUE", help=help)


def variant_file_option(help: str = "Load a one-off house rule from this Python file; repeatable.") -> Any:
    return typer.Option([], "--variant-file", metavar="PATH", help=help)


def load_variant_files(files: list[Path], workers: int) -> None:
    """``--variant-file`` for a command that plays games (``simulate``, ``bots --ladder``):
    loaded into this process's registry, which then plays every game (worker processes load
    only installed variants, so it needs ``--workers 1``)."""
    from ..core.errors import TonkError
    from ..variants.registry import default_registry

    if workers != 1:
        raise TonkError("--variant-file needs --workers 1 (worker processes load only installed variants)")
    for f in files:
        default_registry().load_file(f)


def registry_with(files: list[Path]):
    """The variant registry, with the ``--variant-file`` files loaded (``None``: the default one)."""
    if not files:
        return None
    from ..variants.registry import default_registry

    return default_registry().with_files(files)
