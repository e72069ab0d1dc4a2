"""Facts variants derive from a state (a helper module, not a variant).

``evolve`` is rule-free, so a house rule that needs memory (who was hit,
what was drawn this turn) derives it from the facts the state keeps:
``state.hand_log`` (every event of the hand in play), ``state.turn_hits``,
``state.turn_spreads``, ``state.drew`` and ``state.drawn_card``.
"""

from __future__ import annotations

from ..core.commands import Hit, LaySpread
from ..core.events import CardDiscarded, Event
from ..core.legal import is_legal
from ..core.state import State, evolve


def turn_events(state: State) -> list[Event]:
    """The events of the turn in play (after the last turn-ending discard, or the deal)."""
    log = state.hand_log
    for i in range(len(log) - 1, -1, -1):
        if type(log[i]) is CardDiscarded:
            return log[i + 1 :]
    return log[1:]  # hand_log[0] is the deal


def after(state: State, event: Event) -> State:
    """The state after ``event``, on a copy (``state`` is not touched)."""
    return evolve(state.copy(), event)


def can_lay_down(state: State, card: str, ruleset, *, spreads: bool = True, hits: bool = True) -> bool:
    """Whether the player to act could lay ``card`` down now: in a legal new spread
    or as a legal hit on a table spread (every rule of the ruleset applies)."""
    p = state.to_act
    if spreads:
        for shape in ruleset.spread_candidates(state.hands[p]):
            if card in shape.cards and is_legal(state, LaySpread(p, tuple(shape.cards), dict(shape.jokers_as)), ruleset):
                return True
    if hits:
        for spread in state.table.values():
            for joker_as in ruleset.hit_options(spread, card):
                if is_legal(state, Hit(p, card, spread.id, joker_as), ruleset):
                    return True
    return False
