"""Rendering helpers shared by the commands: safe text, consoles, cards, ledgers, JSON.

Everything from a record or a store (a player's name, a game id, a case title,
a message quoting them) is *data*: before it reaches Rich it goes through
:func:`safe`, which shows control characters visibly (``\\x1b``, ``\\r``) and
escapes Rich markup, so a name like ``[bold red]`` or ``\\x1b[2J`` can neither
crash a command nor paint on the terminal.

Off a terminal the consoles never wrap or cut a line (output piped to a file
is exact); on a terminal they use its width.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from typing import TYPE_CHECKING, Any, Iterable

from ..core.cards import SUIT_OF, is_joker, pretty

if TYPE_CHECKING:
    from rich.console import Console

#: the width of a console that is not a terminal: wide enough that nothing wraps
UNWRAPPED = 100_000

_console: Console | None = None
_err_console: Console | None = None


def visible(text: Any) -> str:
    """``text`` with every control or format character shown as an escape (``\\x1b``,
    ``\\r``, ``\\u202e``), so nothing in it acts on the terminal."""
    text = str(text)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or ch == " ":
            out.append(ch)
        elif unicodedata.category(ch) == "Zs":  # a space of another width: harmless, shown as is
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def safe(text: Any) -> str:
    """Data made safe to embed in Rich markup: control characters visible, markup escaped."""
    from rich.markup import escape  # Rich is imported when something is rendered, not at start-up

    return escape(visible(text))


def one_line(message: str) -> str:
    """An error message as one line of visible text, whatever it quotes."""
    return visible(" ".join(str(message).split("\n")).strip())


def _make_console(stderr: bool) -> Console:
    from rich.console import Console

    probe = Console(stderr=stderr)
    if probe.is_terminal:
        return Console(stderr=stderr, highlight=False)
    return Console(stderr=stderr, highlight=False, width=UNWRAPPED, soft_wrap=True)


def console() -> Console:
    global _console
    if _console is None:
        _console = _make_console(stderr=False)
    return _console


def err_console() -> Console:
    global _err_console
    if _err_console is None:
        _err_console = _make_console(stderr=True)
    return _err_console


def card(c: str | None) -> str:
    """Rich markup for one card: ``10♥`` in red, ``K♠`` in the default colour."""
    if c is None:
        return "[dim]-[/dim]"
    if c not in SUIT_OF and not is_joker(c):  # not a card (a damaged record): shown as data
        return safe(c)
    if is_joker(c):
        return f"[magenta]{pretty(c)}[/magenta]"
    text = pretty(c)
    return f"[red]{text}[/red]" if SUIT_OF[c] in ("H", "D") else f"[bold]{text}[/bold]"


def cards(cs: Iterable[str]) -> str:
    cs = list(cs)
    return " ".join(card(c) for c in cs) if cs else "[dim](none)[/dim]"


def ledger_lines(ledger: list[dict[str, Any]], stake: int | None = None) -> list[str]:
    """One line a payment: ``ann → bob  2  knock`` (with ``stake``: also the money, ``2 units = 10``)."""
    return [f"{safe(p['from'])} \u2192 {safe(p['to'])}  {amount(p['amount'], stake)}  [dim]{safe(p['reason'])}[/dim]" for p in ledger]


def amount(units: Any, stake: int | None = None) -> str:
    """An amount in stake units, and in money at the game's stake when that is not 1."""
    if stake is None or stake == 1 or not isinstance(units, int):
        return str(units)
    return f"{units} \u00d7 {stake} = {units * stake}"


def print_json(data: Any) -> None:
    """Machine output: JSON on stdout, one document, sorted keys off (shapes are documented)."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
