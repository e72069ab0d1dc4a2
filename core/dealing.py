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


#: the last deck cut from, its order and its cards that can be cut (``cut_cards``)
_last_cut: tuple[tuple[str, ...], dict[str, int], list[str]] | None = None


def cut_cards(deck: tuple[str, ...], order_of: dict[str, int]) -> list[str]:
    """The cards of ``deck`` a cut can show, in deck order: those with a rank order (a
    joker has none).  The last answer is kept for the same deck and order (the same
    objects: a deck is a tuple, and the order, ``cards.ORDER_OF``, is never changed), so a
    simulation's games do not sift the ruleset's deck again each (about a third of a
    game's start)."""
    global _last_cut
    last = _last_cut
    if last is not None and last[0] is deck and last[1] is order_of:
        return last[2]
    cards = [c for c in deck if order_of.get(c, 0) > 0]
    _last_cut = (deck, order_of, cards)
    return cards


def cut_for_dealer(players: tuple[str, ...], deck: tuple[str, ...], seed: int | str, order_of: dict[str, int]) -> tuple[str, tuple[tuple[str, ...], ...]]:
    """Choose the first dealer by a cut (A3.1, B-20): each player gets a card, the highest
    deals, ace low; players tied for highest cut again.  Returns (dealer, the cuts made)."""
    rng = random.Random(f"cut:{seed}")
    contenders = list(players)
    cuts: list[tuple[str, ...]] = []
    cuttable = cut_cards(deck, order_of)  # sampled from, never changed
    while True:
        cards = rng.sample(cuttable, len(contenders))
        cuts.append(tuple(cards))
        best = max(order_of[c] for c in cards)
        top = [p for p, c in zip(contenders, cards) if order_of[c] == best]
        if len(top) == 1:
            return top[0], tuple(cuts)
        contenders = top
