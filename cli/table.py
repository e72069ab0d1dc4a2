"""Drawing the table for people: one player's view (or the auditor's) as rich markup lines.

Everything here takes a :class:`~tonk.core.views.PlayerView` or the plain data
of :func:`~tonk.core.views.event_view`, never the state itself, so what is drawn
for a player is by construction what that player could see.  Lines stay within
80 columns for ordinary hands.  Every name, id and word taken from the data
goes through :func:`~tonk.cli.render.safe` (markup escaped, control characters
shown), so a hostile name is printed, never interpreted.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from ..core.cards import sort_key
from ..core.views import AUDITOR, HIDDEN, PlayerView
from .render import card as _card
from .render import safe

#: a face-down card
BACK = "[dim]\u2592\u2592[/dim]"


def card(c: str | None) -> str:
    """A card's markup; a hidden card (``??``) is drawn face down."""
    if c == HIDDEN:
        return BACK
    return _card(c)


def hand_cards(cs: Iterable[str], *, sort: bool = True) -> str:
    cs = list(cs)
    if not cs:
        return "[dim](none)[/dim]"
    if sort and HIDDEN not in cs:
        cs = sorted(cs, key=sort_key)
    return " ".join(card(c) for c in cs)


def spread_line(s: Any) -> str:
    """``S1 ann run   4♥ 5♥ 6♥`` for a spread (SpreadFacts or its plain data)."""
    get: Callable[..., Any] = s.get if isinstance(s, dict) else (lambda k, d=None: getattr(s, k, d))
    jokers = get("jokers_as") or {}
    extra = ""
    if jokers:
        extra = "  [dim](" + ", ".join(f"{card(j)} as {card(v)}" for j, v in sorted(jokers.items())) + ")[/dim]"
    return f"[bold cyan]{safe(get('id'))}[/bold cyan] {safe(get('owner'))} {safe(get('kind'))}: " + " ".join(card(c) for c in get("cards")) + extra


def who_text(player: str, viewer: str) -> str:
    """A player's name as safe markup, marked ``(you)`` for the viewer (unless the seat is called "you")."""
    return safe(f"{player} (you)" if player == viewer and player.lower() != "you" else player)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def table_lines(view: PlayerView) -> list[str]:
    """The table as ``view.viewer`` sees it, as rich markup lines."""
    omniscient = view.viewer == AUDITOR
    lines: list[str] = []
    who = "auditor (everything)" if omniscient else safe(view.viewer)
    if view.hand_no == 0:
        lines.append(f"[bold]no hand dealt yet[/bold]  dealer {safe(view.dealer)}  [dim]view: {who}[/dim]")
    else:
        status = "in play" if view.in_hand else "ended"
        lines.append(f"[bold]hand {view.hand_no}[/bold] ({status})  dealer {safe(view.dealer)}  [dim]view: {who}[/dim]")
    if view.in_hand:
        turn = f"[bold yellow]{safe(view.to_act)}[/bold yellow] to act"
        if view.to_act == view.viewer:
            turn = "[bold yellow]your turn[/bold yellow]"
        if view.drew:
            drawn = f" {card(view.drawn_card)}" if view.drawn_card else " a card"
            turn += f" (drew{drawn} from the {safe(view.drew)})"
        lines.append(f"  turn {view.turn_no}: {turn}")
    if view.hand_no:
        top = card(view.discard_top)
        lines.append(
            f"  stock {_plural(view.stock_size, 'card')}   discard {top}"
            + (f" [dim](pile of {view.discard_size})[/dim]" if view.discard_size > 1 else "")
        )
        if view.table:
            lines.append("  spreads:")
            lines.extend(f"    {spread_line(s)}" for s in view.table)
        else:
            lines.append("  spreads: [dim](none)[/dim]")
        names = {p: who_text(p, view.viewer) for p in view.players}
        name_w = max((len(_plain(n)) for n in names.values()), default=0)
        for p in view.players:
            n = view.hand_sizes.get(p, 0)
            net = view.net.get(p, 0)
            mark = "*" if view.in_hand and p == view.to_act else " "
            label = f"{mark} {names[p]}" + " " * (name_w - len(_plain(names[p])))
            if view.hands is not None:
                shown = hand_cards(view.hands.get(p, ()))
            elif p == view.viewer and view.hand is not None:
                shown = hand_cards(view.hand)
            else:
                shown = " ".join([BACK] * n) if n <= 12 else f"{BACK} x{n}"
            lines.append(f"  {label} [dim]{_plural(n, 'card'):>8}:[/dim] {shown}  [dim]net {net:+d}[/dim]")
        if view.stock is not None and view.in_hand:
            lines.append("  stock, top first: " + (" ".join(card(c) for c in view.stock) or "[dim](empty)[/dim]"))
    else:
        lines.append("  players: " + ", ".join(safe(p) for p in view.players))
    return lines


# --- events as sentences ------------------------------------------------------------------


def event_line(data: dict[str, Any], viewer: str = AUDITOR) -> str:
    """One sentence for an event as ``viewer`` saw it (``data`` from ``event_view``)."""
    t = data.get("type")
    p = data.get("player")
    p_txt = who_text(str(p), viewer)
    if t == "game_started":
        rs = data.get("ruleset") or {}
        variants = ", ".join(rs.get("variants") or ()) or "classic"
        stake = (rs.get("options") or {}).get("base_stake", 1)
        players = ", ".join(str(x) for x in data.get("players", ()))
        return safe(f"game {str(data.get('game_id'))[:8]}: {players}; {variants}, stake {stake}; dealer {data.get('dealer')}")
    if t == "hand_dealt":
        kind = "position set up" if data.get("explicit") else "dealt"
        return (
            f"hand {data.get('hand_no')} {kind} by {safe(data.get('dealer'))}: upcard {card((data.get('discard') or [None])[0])}, "
            f"stock {len(data.get('stock') or ())}; first to play: {safe(data.get('first_player'))}"
        )
    if t == "knocked":
        return f"{p_txt} knocked"
    if t == "card_drawn":
        c = data.get("card")
        if c == HIDDEN:
            return f"{p_txt} drew a card from the {safe(data.get('source'))}"
        return f"{p_txt} drew {card(c)} from the {safe(data.get('source'))}"
    if t == "empty_stock_called":
        return f"{p_txt} called for the empty stock"
    if t == "spread_laid":
        return f"{p_txt} laid {safe(data.get('kind'))} {safe(data.get('spread_id'))}: " + " ".join(card(c) for c in data.get("cards", ()))
    if t == "card_hit":
        return f"{p_txt} hit {card(data.get('card'))} on {safe(data.get('spread_id'))}"
    if t == "card_discarded":
        return f"{p_txt} discarded {card(data.get('card'))}"
    if t == "hand_ended":
        return f"hand {data.get('hand_no')} ended: " + ending_phrase(data)
    if t == "game_ended":
        net = data.get("net") or {}
        return safe(f"game ended ({data.get('reason')}): " + ", ".join(f"{k} {v:+d}" for k, v in net.items()))
    return safe(t)


_END_WORDS = {
    "initial_tonk": "initial tonk by {player}",
    "initial_tonk_draw": "initial tonks by {players}: a draw",
    "tonk_out": "{player} tonked out",
    "out_by_discard": "{player} went out by discarding",
    "knock": "{player} knocked",
    "stock_exhausted": "stock exhausted ({player} called for it)",
    "turn_cap": "turn cap reached (no payments)",
}


def ending_phrase(data: dict[str, Any]) -> str:
    """``bob knocked (knocker_won)`` for a ``hand_ended`` (plain data)."""
    end = data.get("end") or data.get("type") or "?"
    tmpl = _END_WORDS.get(end)
    if tmpl is None:  # an ending this version does not know: shown as recorded
        return safe(end) + (f" ({safe(data['outcome'])})" if data.get("outcome") else "")
    text = tmpl.format(player=data.get("player"), players=", ".join(str(x) for x in data.get("players") or ()))
    if data.get("outcome"):
        text += f" ({data['outcome']})"
    return safe(text)


def ending_lines(data: dict[str, Any], stake: int | None = None) -> list[str]:
    """Every exposed hand with its total, then the ledger, for a ``hand_ended`` (plain data);
    with ``stake`` (the game's base stake), amounts in money too."""
    from .render import ledger_lines

    lines = [f"[bold]hand {data.get('hand_no')}[/bold]: {ending_phrase(data)}"]
    hands = data.get("hands") or {}
    totals = data.get("totals") or {}
    name_w = max((len(visible_name(p)) for p in hands), default=0)
    for p, h in hands.items():
        lines.append(f"  {safe(p)}{' ' * (name_w - len(visible_name(p)))} total {totals.get(p, 0):>3}  {hand_cards(h)}")
    ledger = data.get("ledger") or []
    if ledger:
        lines.extend(f"  {line}" for line in ledger_lines(ledger, stake))
    else:
        lines.append("  [dim]no payments[/dim]")
    return lines


def net_line(net: dict[str, int], stake: int | None = None) -> str:
    """``net: ann +2, bob -2`` in stake units (and in money at ``stake`` when it is not 1)."""

    text = "net: " + ", ".join(f"{safe(p)} {n:+d}" for p, n in net.items())
    if stake not in (None, 1):
        text += f" [dim](stake units; at stake {stake}: " + ", ".join(f"{safe(p)} {n * stake:+d}" for p, n in net.items()) + ")[/dim]"
    return text


def visible_name(name: Any) -> str:
    """A name as it will show (control characters as escapes), for column widths."""
    from .render import visible

    return visible(name)


def _plain(markup: str) -> str:
    """The text a line of markup shows (for widths)."""
    from rich.text import Text

    return Text.from_markup(markup).plain
