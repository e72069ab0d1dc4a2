"""What each player could see: per-player views of the state and of each event.

Only the auditor's view is omniscient.  A player sees their own hand, the
discard top (A7.5: only the top is visible), the spreads, how many cards each
other player holds, the stock's size, and what the others do in the open
(draws from the discard pile, spreads, hits, discards).  A card another player
draws from the stock, another player's hand and the stock order stay hidden
until the hand ends, when every hand is exposed (A12.3).  So does a stock draw's
blind (``core.commitment.draw_blind``), for every seat: nothing sent while the hand is
in play lets a seat test a guess at a hidden card against a hash.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .events import CardDrawn, Event, HandDealt, SpreadFacts, event_type
from .state import State

AUDITOR = "*"  # the omniscient viewer


class PlayerView(msgspec.Struct, frozen=True):
    """The table as one player sees it (``viewer`` is ``*`` for the auditor)."""

    viewer: str
    game_id: str
    players: tuple[str, ...]
    dealer: str
    hand_no: int
    in_hand: bool
    to_act: str | None
    hand: tuple[str, ...] | None
    hand_sizes: dict[str, int]
    discard_top: str | None
    discard_size: int
    stock_size: int
    table: tuple[SpreadFacts, ...]
    drew: str | None
    drawn_card: str | None
    turn_no: int
    net: dict[str, int]
    hands: dict[str, tuple[str, ...]] | None = None  # every hand: the auditor, or anyone once the hand ended
    stock: tuple[str, ...] | None = None  # top first; the auditor only


def player_view(state: State, viewer: str) -> PlayerView:
    """The view of ``state`` for ``viewer`` (a player's name, or :data:`AUDITOR`)."""
    omniscient = viewer == AUDITOR
    if not omniscient and viewer not in state.seat_of:
        raise KeyError(f"{viewer!r} is not a player at this table")
    mine = tuple(state.hands.get(viewer, ())) if not omniscient else None
    to_act = state.to_act if state.in_hand else None
    show_all = omniscient or (not state.in_hand and state.last_ending is not None)
    drawn = state.drawn_card if (omniscient or to_act == viewer or state.drew == "discard") else None
    return PlayerView(
        viewer=viewer,
        game_id=state.game_id,
        players=state.players,
        dealer=state.dealer,
        hand_no=state.hand_no,
        in_hand=state.in_hand,
        to_act=to_act,
        hand=mine,
        hand_sizes={p: len(h) for p, h in state.hands.items()},
        discard_top=state.discard_top,
        discard_size=len(state.discard),
        stock_size=len(state.stock),
        table=tuple(s.facts() for s in state.table.values()),
        drew=state.drew if state.in_hand else None,
        drawn_card=drawn if state.in_hand else None,
        turn_no=state.turn_no,
        net=dict(state.net),
        hands={p: tuple(h) for p, h in state.hands.items()} if show_all else None,
        stock=tuple(reversed(state.stock)) if omniscient else None,
    )


HIDDEN = "??"


def event_view(event: Event, viewer: str) -> dict[str, Any]:
    """An event as ``viewer`` saw it, as plain data (hidden cards replaced by ``"??"``)."""
    data = msgspec.to_builtins(event)
    if viewer == AUDITOR:
        return data
    if type(event) is HandDealt:
        data["hands"] = {p: (list(h) if p == viewer else [HIDDEN] * len(h)) for p, h in event.hands.items()}
        data["deck"] = []
        data.pop("salt", None)  # revealed with the deck when the hand ends (core.commitment)
        if "client_seeds" in data:  # a fair deal: a seat sees its own seed only (core.fair_deal)
            data["client_seeds"] = only_own_seed(data["client_seeds"], viewer)
        data["stock"] = [HIDDEN] * len(event.stock)
        if event.discard:
            data["discard"] = [event.discard[0]] + [HIDDEN] * (len(event.discard) - 1)
    elif type(event) is CardDrawn and event.source == "stock":
        # the blind hides the card from the event's hash; it opens with the salt at the hand's end
        data.pop("blind", None)
        if event.player != viewer:
            data["card"] = HIDDEN
    # every other event is public: seating and rules, the open actions, and at the end of a
    # hand every hand (A12.3)
    return data


def only_own_seed(client_seeds: dict[str, str], viewer: str) -> dict[str, str]:
    """A fair deal's client seeds as ``viewer`` may see them while the game is live: its own."""
    return {viewer: client_seeds[viewer]} if viewer in client_seeds else {}


def visible_cards(data: Any) -> set[str]:
    """Every card text mentioned in a plain-data view (for tests of what leaks)."""
    out: set[str] = set()
    if isinstance(data, dict):
        for v in data.values():
            out |= visible_cards(v)
    elif isinstance(data, (list, tuple)):
        for v in data:
            out |= visible_cards(v)
    elif isinstance(data, str):
        out.add(data)
    return out


__all__ = ["AUDITOR", "HIDDEN", "PlayerView", "player_view", "event_view", "visible_cards", "event_type"]
