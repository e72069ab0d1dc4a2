"""Drawing the table for people: one player's view (or the auditor's) as rich markup lines.

Everything here takes a :class:`~tonk.core.views.PlayerView` or the plain data
of :func:`~tonk.core.views.event_view`, never the state itself, so what is drawn
for a player is by construction what that player could see.  Lines stay within
80 columns for ordinary hands (rich wraps the rare longer one).
"""

from __future__ import annotations

from typing import Any, Iterable

from ..core.cards import sort_key
from ..core.views import AUDITOR, HIDDEN, PlayerView
from .render import card as _card

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
    get = s.get if isinstance(s, dict) else (lambda k, d=None: getattr(s, k, d))
    jokers = get("jokers_as") or {}
    extra = ""
    if jokers:
        extra = "  [dim](" + ", ".join(f"{card(j)} as {card(v)}" for j, v in sorted(jokers.items())) + ")[/dim]"
    return f"[bold cyan]{get('id')}[/bold cyan] {get('owner')} {get('kind')}: " + " ".join(card(c) for c in get("cards")) + extra


def who_text(player: str, viewer: str) -> str:
    """A player's name, marked ``(you)`` for the viewer (unless the seat is called "you")."""
    return f"{player} (you)" if player == viewer and player.lower() != "you" else player


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def table_lines(view: PlayerView) -> list[str]:
    """The table as ``view.viewer`` sees it, as rich markup lines."""
    omniscient = view.viewer == AUDITOR
    lines: list[str] = []
    who = "auditor (everything)" if omniscient else view.viewer
    if view.hand_no == 0:
        lines.append(f"[bold]no hand dealt yet[/bold]  dealer {view.dealer}  [dim]view: {who}[/dim]")
    else:
        status = "in play" if view.in_hand else "ended"
        lines.append(f"[bold]hand {view.hand_no}[/bold] ({status})  dealer {view.dealer}  [dim]view: {who}[/dim]")
    if view.in_hand:
        turn = f"[bold yellow]{view.to_act}[/bold yellow] to act"
        if view.to_act == view.viewer:
            turn = "[bold yellow]your turn[/bold yellow]"
        if view.drew:
            drawn = f" {card(view.drawn_card)}" if view.drawn_card else " a card"
            turn += f" (drew{drawn} from the {view.drew})"
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
        name_w = max((len(n) for n in names.values()), default=0)
        for p in view.players:
            n = view.hand_sizes.get(p, 0)
            net = view.net.get(p, 0)
            mark = "*" if view.in_hand and p == view.to_act else " "
            label = f"{mark} {names[p]:<{name_w}}"
            if view.hands is not None:
                shown = hand_cards(view.hands.get(p, ()))
            elif p == view.viewer and view.hand is not None:
                shown = hand_cards(view.hand)
            else:
                shown = " ".join([BACK] * n) if n <= 12 else f"{BACK} x{n}"
            lines.append(f"  {label} [dim]{n:>2}[/dim] {shown}  [dim]net {net:+d}[/dim]")
        if view.stock is not None and view.in_hand:
            lines.append("  stock, top first: " + (" ".join(card(c) for c in view.stock) or "[dim](empty)[/dim]"))
    else:
        lines.append("  players: " + ", ".join(view.players))
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
        return f"game {str(data.get('game_id'))[:8]}: {', '.join(data.get('players', ()))}; {variants}, stake {stake}; dealer {data.get('dealer')}"
    if t == "hand_dealt":
        kind = "position set up" if data.get("explicit") else "dealt"
        return (
            f"hand {data.get('hand_no')} {kind} by {data.get('dealer')}: upcard {card((data.get('discard') or [None])[0])}, "
            f"stock {len(data.get('stock') or ())}; first to play: {data.get('first_player')}"
        )
    if t == "knocked":
        return f"{p_txt} knocked"
    if t == "card_drawn":
        c = data.get("card")
        if c == HIDDEN:
            return f"{p_txt} drew a card from the {data.get('source')}"
        return f"{p_txt} drew {card(c)} from the {data.get('source')}"
    if t == "empty_stock_called":
        return f"{p_txt} called for the empty stock"
    if t == "spread_laid":
        return f"{p_txt} laid {data.get('kind')} {data.get('spread_id')}: " + " ".join(card(c) for c in data.get("cards", ()))
    if t == "card_hit":
        return f"{p_txt} hit {card(data.get('card'))} on {data.get('spread_id')}"
    if t == "card_discarded":
        return f"{p_txt} discarded {card(data.get('card'))}"
    if t == "hand_ended":
        return f"hand {data.get('hand_no')} ended: " + ending_phrase(data)
    if t == "game_ended":
        net = data.get("net") or {}
        return f"game ended ({data.get('reason')}): " + ", ".join(f"{k} {v:+d}" for k, v in net.items())
    return str(t)


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
    tmpl = _END_WORDS.get(end, end)
    text = tmpl.format(player=data.get("player"), players=", ".join(data.get("players") or ()))
    if data.get("outcome"):
        text += f" ({data['outcome']})"
    return text


def ending_lines(data: dict[str, Any]) -> list[str]:
    """Every exposed hand with its total, then the ledger, for a ``hand_ended`` (plain data)."""
    lines = [f"[bold]hand {data.get('hand_no')}[/bold]: {ending_phrase(data)}"]
    hands = data.get("hands") or {}
    totals = data.get("totals") or {}
    name_w = max((len(p) for p in hands), default=0)
    for p, h in hands.items():
        lines.append(f"  {p:<{name_w}} {totals.get(p, 0):>3}  {hand_cards(h)}")
    ledger = data.get("ledger") or []
    if ledger:
        for pay in ledger:
            lines.append(f"  {pay['from']} \u2192 {pay['to']}  {pay['amount']}  [dim]{pay['reason']}[/dim]")
    else:
        lines.append("  [dim]no payments[/dim]")
    return lines


def net_line(net: dict[str, int]) -> str:
    return "net: " + ", ".join(f"{p} {n:+d}" for p, n in net.items())
