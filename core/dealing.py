"""The deal (A4): shuffling, the commitment to the deck order, and dealing one card at a time.

Chance lives only here, and only in the host's ``DealHand``: the resulting
``hand_dealt`` event records the whole deck order and its sha256
commitment, so a replay never shuffles.
"""

from __future__ import annotations

import random

from .errors import SetupError


def shuffled(deck: tuple[str, ...] | list[str], seed: int | str) -> list[str]:
    """A deterministic shuffle of ``deck`` for ``seed``."""
    cards = list(deck)
    random.Random(seed).shuffle(cards)
    return cards


def deal(
    deck: list[str] | tuple[str, ...],
    players: tuple[str, ...],
    dealer: str,
    hand_size: int,
    upcard: bool,
) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...], tuple[str, ...]]:
    """Deal ``deck`` (top first): one card at a time starting left of the dealer (A4.1),
    then the upcard (A4.2), the rest is the stock (A4.3).

    Returns (hands, discard top first, stock top first).
    """
    n = len(players)
    need = n * hand_size + 1
    if len(deck) < need:
        raise SetupError(f"a deck of {len(deck)} cards cannot deal {hand_size} cards to {n} players and leave a stock")
    d = players.index(dealer)
    pos = n * hand_size
    deck = tuple(deck)
    # card i goes to the (i mod n)-th player left of the dealer: each hand is a stride slice
    # (a plain loop: cheaper than a comprehension, which builds a function at every deal)
    hands = {}
    i = -d - 1
    for p in players:
        hands[p] = deck[i % n : pos : n]
        i += 1
    if upcard:
        discard: tuple[str, ...] = (deck[pos],)
        pos += 1
    else:
        discard = ()
    return (hands, discard, deck[pos:])


def cut_for_dealer(players: tuple[str, ...], deck: tuple[str, ...], seed: int | str, order_of: dict[str, int]) -> tuple[str, tuple[tuple[str, ...], ...]]:
    """Choose the first dealer by a cut (A3.1, B-20): each player gets a card, the highest
    deals, ace low; players tied for highest cut again.  Returns (dealer, the cuts made)."""
    rng = random.Random(f"cut:{seed}")
    contenders = list(players)
    cuts: list[tuple[str, ...]] = []
    while True:
        cards = rng.sample([c for c in deck if order_of.get(c, 0) > 0], len(contenders))
        cuts.append(tuple(cards))
        best = max(order_of[c] for c in cards)
        top = [p for p, c in zip(contenders, cards) if order_of[c] == best]
        if len(top) == 1:
            return top[0], tuple(cuts)
        contenders = top
