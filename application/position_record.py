"""A position of a recorded hand as a hand record (``tonk export GAME --hand N --as-record``,
``GET /games/{id}/record``, the replay viewer's "Dispute from here").

The record is format version 1 (cases/README.md): the position as an explicit setup
(every card where it lay) and the actions that followed, to the hand's end.  Adjudicated
with every action kept, it gives the recorded hand's ending, totals and ledger; a person
changes or cuts the actions to ask "what if".

Where a position lies: ``at`` counts the hand's events after its deal (0: just after the
deal).  An explicit setup is a position at the *start* of a turn (nothing drawn yet), so a
position in the middle of a turn (after a draw, a spread) is written as the start of that
turn, with the turn's earlier actions first in the list.  A cap on turns
(``max_turns_per_hand``) is lowered by the turns already played, so the cap falls on the
same turn as in the game.  A variant's memory across turns (a hit penalty) is not part of
a hand record and starts afresh.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..core.errors import TonkError
from ..core.events import CardDiscarded, CardDrawn, CardHit, EmptyStockCalled, Event, GameEnded, GameStarted, HandDealt, HandEnded, Knocked, SpreadLaid
from ..core.state import State, evolve

#: the events that are a player's action (what a hand record's ``actions`` list holds)
_ACTION_EVENTS = (Knocked, CardDrawn, EmptyStockCalled, SpreadLaid, CardHit, CardDiscarded)


class NoSuchPosition(TonkError, LookupError):
    """The hand or the position asked for is not in the game."""


def hand_numbers(events: Sequence[Event]) -> list[int]:
    return [e.hand_no for e in events if type(e) is HandDealt]


def _hand_events(events: Sequence[Event], hand_no: int) -> tuple[int, list[Event]]:
    """The index of hand ``hand_no``'s deal and the hand's events after it (to its end)."""
    start = next((i for i, e in enumerate(events) if type(e) is HandDealt and e.hand_no == hand_no), None)
    if start is None:
        dealt = hand_numbers(events)
        have = f"hands 1 to {max(dealt)}" if dealt else "no hand"
        raise NoSuchPosition(f"the game has {have}, not hand {hand_no}")
    rest: list[Event] = []
    for e in events[start + 1 :]:
        if type(e) in (HandDealt, GameEnded):
            break
        rest.append(e)
        if type(e) is HandEnded:
            break
    return start, rest


def locate(events: Sequence[Event], seq: int) -> tuple[int, int]:
    """The hand and the position in it (``at``) of the game's event ``seq`` (1-based, as the
    replay viewer numbers them): the position just after that event; an event before a
    hand's deal (the game's start) is hand 1 just after its deal."""
    if not 1 <= seq <= len(events):
        raise NoSuchPosition(f"the game has events 1 to {len(events)}, not {seq}")
    hand_no, at = None, 0
    for e in events[:seq]:
        if type(e) is HandDealt:
            hand_no, at = e.hand_no, 0
        elif isinstance(e, _ACTION_EVENTS):
            at += 1
    if hand_no is None:
        dealt = hand_numbers(events)
        if not dealt:
            raise NoSuchPosition("the game has no hand dealt")
        return dealt[0], 0
    return hand_no, at


def _action(e: Event) -> dict[str, Any]:
    if type(e) is Knocked:
        return {"player": e.player, "action": "knock"}
    if type(e) is CardDrawn:
        return {"player": e.player, "action": "draw_stock" if e.source == "stock" else "draw_discard"}
    if type(e) is EmptyStockCalled:
        return {"player": e.player, "action": "draw_stock"}
    if type(e) is SpreadLaid:
        a: dict[str, Any] = {"player": e.player, "action": "spread", "cards": list(e.cards)}
        if e.jokers_as:
            a["jokers_as"] = dict(e.jokers_as)
        return a
    if type(e) is CardHit:
        a = {"player": e.player, "action": "hit", "card": e.card, "target": e.spread_id}
        if e.card in e.jokers_as:
            a["joker_as"] = e.jokers_as[e.card]
        return a
    assert type(e) is CardDiscarded
    return {"player": e.player, "action": "discard", "card": e.card}


def position_record(events: Sequence[Event], hand_no: int, at: int = 0, *, game_id: str = "") -> dict[str, Any]:
    """Hand ``hand_no`` of the recorded game ``events`` at position ``at`` (the hand's events
    after its deal; 0: just after the deal) as one hand record (format version 1)."""
    if not events or type(events[0]) is not GameStarted:
        raise NoSuchPosition("the events do not start with game_started")
    started = events[0]
    start, rest = _hand_events(events, hand_no)
    actions_in_hand = [e for e in rest if isinstance(e, _ACTION_EVENTS)]
    if at < 0 or at > len(actions_in_hand):
        raise NoSuchPosition(f"hand {hand_no} has positions 0 (just after the deal) to {len(actions_in_hand)}, not {at}")
    if not actions_in_hand and rest and type(rest[-1]) is HandEnded:
        raise NoSuchPosition(f"hand {hand_no} ended at its deal ({rest[-1].end}): there is no turn to dispute")
    state = State()
    for e in events[: start + 1]:
        evolve(state, e)
    # walk to the start of the turn in which position `at` lies
    # (a hand ended by the turn cap ends with a discard that passes the turn: no turn follows it)
    ended = bool(rest) and type(rest[-1]) is HandEnded
    turn_start = state.copy()
    turn_start_index = 0
    for i, e in enumerate(actions_in_hand[:at]):
        evolve(state, e)
        if type(e) is CardDiscarded and state.in_hand and state.drew is None and not (ended and i + 1 == len(actions_in_hand)):
            turn_start = state.copy()  # a new turn begins
            turn_start_index = i + 1
    st = turn_start
    record_actions = [dict(_action(e), seq=n) for n, e in enumerate(actions_in_hand[turn_start_index:], 1)]
    options = dict(started.ruleset.options)
    cap = options.get("max_turns_per_hand")
    if isinstance(cap, int) and not isinstance(cap, bool) and cap > 0:
        options["max_turns_per_hand"] = max(1, cap - (st.turn_no - 1))
    where = "just after the deal" if at == 0 else f"after {at} action(s)"
    if turn_start_index != at:
        where += f", written from the start of that turn ({turn_start_index} action(s) in)"
    return {
        "format": "tonk-adjudication-cases",
        "format_version": 1,
        "id": f"hand{hand_no}-at{at}",
        "title": f"Game {game_id or started.game_id}, hand {hand_no}, {where}",
        "ruleset": {"variants": list(started.ruleset.variants), "options": options},
        "players": list(started.players),
        "dealer": st.dealer,
        "setup": {
            "mode": "explicit",
            "hands": {p: list(st.hands[p]) for p in started.players},
            "stock": list(reversed(st.stock)),
            "discard": list(reversed(st.discard)),
            "table": [_spread(s) for s in st.table.values()],
            "to_act": st.to_act,
        },
        "actions": record_actions,
    }


def _spread(s: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"id": s.id, "owner": s.owner, "cards": list(s.cards)}
    if s.jokers_as:
        d["jokers_as"] = dict(s.jokers_as)
    return d


__all__ = ["NoSuchPosition", "locate", "position_record"]
