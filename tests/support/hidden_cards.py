"""Positions that differ only in what a seat cannot see: for the tests that a bot decides from
its player's view alone."""

from __future__ import annotations

import random

from tonk.core.state import State


def hidden_swapped(state: State, viewer: str, seed: int = 99) -> State:
    """The same position with the cards ``viewer`` cannot see dealt differently among the other
    hands and the stock (hand sizes, the table and the discard pile unchanged; another
    player's card drawn from the stock is no longer known)."""
    other = state.copy()
    others = [p for p in state.players if p != viewer]
    hidden = [c for p in others for c in other.hands[p]] + list(other.stock)
    random.Random(seed).shuffle(hidden)
    i = 0
    for p in others:
        k = len(other.hands[p])
        other.hands[p] = hidden[i : i + k]
        i += k
    other.stock = hidden[i:]
    if other.drew == "stock" and other.to_act != viewer:
        other.drawn_card = None
    return other
