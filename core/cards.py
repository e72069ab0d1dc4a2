"""Cards: ranks, suits, text notation and the base point values (rules A1).

A card is represented by its canonical text form, a plain ``str``: rank then
suit, ``AS``, ``10H``, ``KD``; jokers are ``X1`` and ``X2``.  Strings keep the
recorded events readable JSON and are as cheap to hash and compare as Python
objects get, which matters for simulation throughput.  ``parse_card`` accepts
the usual alternatives (``TH`` for ``10H``, lower case) and returns the
canonical form.
"""

from __future__ import annotations

from typing import Iterable

Card = str

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
JOKERS: tuple[str, ...] = ("X1", "X2")

#: rank order for sequences: ace low (A1.3), A=1 ... K=13
RANK_ORDER = {r: i + 1 for i, r in enumerate(RANKS)}
#: base point values (A1.2): ace 1, 2-10 face value, J/Q/K 10
BASE_POINTS = {r: min(i + 1, 10) for i, r in enumerate(RANKS)}

STANDARD_DECK: tuple[Card, ...] = tuple(r + s for s in SUITS for r in RANKS)

# Lookup tables over every card, so rank/suit/order are one dict access.
RANK_OF: dict[Card, str] = {r + s: r for s in SUITS for r in RANKS}
SUIT_OF: dict[Card, str] = {r + s: s for s in SUITS for r in RANKS}
ORDER_OF: dict[Card, int] = {c: RANK_ORDER[RANK_OF[c]] for c in STANDARD_DECK}
for _j in JOKERS:
    RANK_OF[_j] = "X"
    SUIT_OF[_j] = ""
    ORDER_OF[_j] = 0

_ALIASES = {"T": "10", "1": "A"}


class CardError(ValueError):
    """A card's text is not a card."""


def parse_card(text: str) -> Card:
    """Return the canonical form of a card written as text.

    >>> parse_card("th"), parse_card("10h"), parse_card("As"), parse_card("x1")
    ('10H', '10H', 'AS', 'X1')
    """
    if not isinstance(text, str):
        raise CardError(f"a card is written as text like 'AS' or '10H', not {text!r}")
    t = text.strip().upper()
    if t in RANK_OF:
        return t
    if len(t) >= 2:
        rank, suit = t[:-1], t[-1]
        rank = _ALIASES.get(rank, rank)
        card = rank + suit
        if card in RANK_OF:
            return card
    raise CardError(f"unknown card {text!r} (cards are rank+suit: A 2-10 J Q K and S H D C, e.g. AS, 10H, KD; jokers X1, X2)")


def parse_cards(texts: Iterable[str]) -> list[Card]:
    return [parse_card(t) for t in texts]


def is_joker(card: Card) -> bool:
    return card in ("X1", "X2")


def rank(card: Card) -> str:
    return RANK_OF[card]


def suit(card: Card) -> str:
    return SUIT_OF[card]


def order(card: Card) -> int:
    """Rank order for sequences, ace low: A=1 ... K=13 (0 for a joker)."""
    return ORDER_OF[card]


def card_for(rank_order: int, suit_letter: str) -> Card:
    """The card of a rank order (1..13) and a suit."""
    return RANKS[rank_order - 1] + suit_letter


def pretty(card: Card) -> str:
    """Card with a suit symbol, e.g. ``10♥``."""
    if is_joker(card):
        return "\U0001F0CF" + card[1:]
    return RANK_OF[card] + SUIT_SYMBOLS[SUIT_OF[card]]


def sort_key(card: Card) -> tuple[int, int]:
    """Order for showing a hand: by suit then rank."""
    if is_joker(card):
        return (9, int(card[1:]))
    return (SUITS.index(SUIT_OF[card]), ORDER_OF[card])
