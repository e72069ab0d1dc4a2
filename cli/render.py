"""Rich rendering helpers shared by the commands: cards with suit symbols and colours, ledgers."""

from __future__ import annotations

import json
import sys
from typing import Any, Iterable

from rich.console import Console

from ..core.cards import SUIT_OF, is_joker, pretty

_console: Console | None = None
_err_console: Console | None = None


def console() -> Console:
    global _console
    if _console is None:
        _console = Console(highlight=False, soft_wrap=False)
    return _console


def err_console() -> Console:
    global _err_console
    if _err_console is None:
        _err_console = Console(stderr=True, highlight=False)
    return _err_console


def card(c: str | None) -> str:
    """Rich markup for one card: ``10♥`` in red, ``K♠`` in the default colour."""
    if c is None:
        return "[dim]-[/dim]"
    if is_joker(c):
        return f"[magenta]{pretty(c)}[/magenta]"
    text = pretty(c)
    return f"[red]{text}[/red]" if SUIT_OF[c] in ("H", "D") else f"[bold]{text}[/bold]"


def cards(cs: Iterable[str]) -> str:
    cs = list(cs)
    return " ".join(card(c) for c in cs) if cs else "[dim](none)[/dim]"


def ledger_lines(ledger: list[dict[str, Any]]) -> list[str]:
    return [f"{p['from']} \u2192 {p['to']}  {p['amount']}  [dim]{p['reason']}[/dim]" for p in ledger]


def print_json(data: Any) -> None:
    """Machine output: JSON on stdout, one document, sorted keys off (shapes are documented)."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
