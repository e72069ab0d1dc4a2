"""Legal actions for the player to act, consistent with ``decide`` by construction.

Candidates are generated from the position (draws, knocks, every spread the
ruleset can form from the hand, every card on every spread, every discard)
and each one is kept only if ``decide`` accepts it: every generated action is
accepted and every rejected one is absent.
"""

from __future__ import annotations

from .commands import Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
from .decide import decide
from .errors import IllegalAction
from .ruleset import Ruleset
from .state import State


def candidate_actions(state: State, ruleset: Ruleset) -> list:
    """Every action worth asking ``decide`` about (a superset of the legal ones)."""
    if not state.in_hand:
        return []
    p = state.to_act
    if state.drew is None:
        return [Knock(p), DrawStock(p), DrawDiscard(p)]
    hand = state.hands[p]
    out: list = []
    if ruleset.knock_timing == "before_discard":
        out.append(Knock(p))
    for shape in ruleset.spread_candidates(hand):
        cards = tuple(shape.cards)
        out.append(LaySpread(p, cards, dict(shape.jokers_as)) if shape.jokers_as else LaySpread(p, cards))
    for spread in state.table.values():
        for card in dict.fromkeys(hand):
            for joker_as in ruleset.hit_options(spread, card):
                out.append(Hit(p, card, spread.id, joker_as))
    for card in dict.fromkeys(hand):
        out.append(Discard(p, card))
    return out


def is_legal(state: State, command, ruleset: Ruleset) -> bool:
    try:
        decide(state, command, ruleset)
    except IllegalAction:
        return False
    return True


def legal_actions(state: State, ruleset: Ruleset) -> list:
    """The actions the player to act may take now."""
    return [c for c in candidate_actions(state, ruleset) if is_legal(state, c, ruleset)]
