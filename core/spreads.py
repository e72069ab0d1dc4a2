"""Spreads (A8) and hits (A9) of the base game: books and runs of natural cards.

A book is 3-4 cards of one rank (A8.2); a run is 3 or more consecutive cards of
one suit, ace low, no wrap (A8.3, B-10).  A hit adds the missing rank to a
book (at most 4) or the next card of the suit at either end of a run (A9.2).
Spreads are never rearranged (B-32).
"""

from __future__ import annotations

from itertools import combinations

import msgspec

from .cards import ORDER_OF, RANK_OF, STANDARD_DECK, SUIT_OF, SUITS, card_for
from .errors import IllegalAction


class SpreadShape(msgspec.Struct, frozen=True):
    """A valid spread: ``kind`` (``book``/``run``), ``cards`` in table order
    (runs ascending, books as laid then hit) and the wild-card map."""

    kind: str
    cards: tuple[str, ...]
    jokers_as: dict[str, str] = {}


def _invalid(rule: str, why: str) -> IllegalAction:
    return IllegalAction("INVALID_SPREAD", rule, why)


def check_natural_spread(cards: list[str]) -> SpreadShape:
    """Classify natural cards as a book or a run, or raise INVALID_SPREAD.

    The rule cited: A8.1 for fewer than three cards or a card named twice,
    A8.2 when the cards look like a book (a rank repeats), A8.3 when they look
    like a run (all ranks differ).
    """
    n = len(cards)
    if n < 3:
        raise _invalid("A8.1", f"a spread needs at least three cards, not {n}")
    if len(set(cards)) != n:
        raise _invalid("A8.1", "a spread cannot use the same card twice")
    ranks = {RANK_OF[c] for c in cards}
    if len(ranks) == 1:
        if n > 4:
            raise _invalid("A8.2", "a book has three or four cards of one rank")
        return SpreadShape("book", tuple(cards))
    if len(ranks) < n:
        raise _invalid("A8.2", "a book needs every card of the same rank (" + " ".join(cards) + " mixes ranks)")
    suits = {SUIT_OF[c] for c in cards}
    if len(suits) != 1:
        raise _invalid("A8.3", "a run needs every card of the same suit (" + " ".join(cards) + " mixes suits)")
    ordered = sorted(cards, key=ORDER_OF.__getitem__)
    lo = ORDER_OF[ordered[0]]
    if ORDER_OF[ordered[-1]] - lo != n - 1:
        raise _invalid("A8.3", "a run needs consecutive ranks, ace low (" + " ".join(ordered) + " has a gap)")
    return SpreadShape("run", tuple(ordered))


def natural_hit_fits(kind: str, spread_cards: tuple[str, ...] | list[str], card: str) -> bool:
    """A9.2: a book takes a card of its rank while it holds fewer than four; a run takes the
    next card of its suit at either end (ace low, no wrap).  The one home of the hit rule:
    :func:`check_natural_hit` and the legal-action generator both ask it."""
    if kind == "book":
        return RANK_OF[card] == RANK_OF[spread_cards[0]] and len(spread_cards) < 4
    if SUIT_OF[card] != SUIT_OF[spread_cards[0]]:
        return False
    o = ORDER_OF[card]
    return o == ORDER_OF[spread_cards[-1]] + 1 or o == ORDER_OF[spread_cards[0]] - 1


def check_natural_hit(kind: str, spread_cards: tuple[str, ...] | list[str], card: str) -> SpreadShape:
    """The spread after hitting ``card`` on it, or raise HIT_DOES_NOT_FIT: rule A9.2, or A8.3
    when the card would fit only with the ace high or by wrapping (B-35)."""
    if natural_hit_fits(kind, spread_cards, card):
        if kind == "book":
            return SpreadShape("book", tuple(spread_cards) + (card,))
        if ORDER_OF[card] == ORDER_OF[spread_cards[-1]] + 1:
            return SpreadShape("run", tuple(spread_cards) + (card,))
        return SpreadShape("run", (card,) + tuple(spread_cards))
    # why it does not fit (the message and the rule cited; whether it fits is natural_hit_fits)
    if kind == "book":
        r = RANK_OF[spread_cards[0]]
        if RANK_OF[card] != r:
            raise IllegalAction("HIT_DOES_NOT_FIT", "A9.2", f"{card} is not of rank {r}, so it does not fit the book")
        raise IllegalAction("HIT_DOES_NOT_FIT", "A9.2", "the book already holds four cards")
    first, last = spread_cards[0], spread_cards[-1]
    o = ORDER_OF[card]
    if SUIT_OF[card] == SUIT_OF[first] and (
        (o == 1 and ORDER_OF[last] == 13) or (o == 13 and ORDER_OF[first] == 1)
    ):
        # B-35: a card that would fit only with the ace high (an ace on J-Q-K) or by
        # wrapping (a king below A-2-3) breaks the run rule itself (ace low, no wrap)
        raise IllegalAction(
            "HIT_DOES_NOT_FIT",
            "A8.3",
            f"{card} does not extend the run {first}-{last}: the ace is low and a run does not wrap around",
        )
    raise IllegalAction(
        "HIT_DOES_NOT_FIT",
        "A9.2",
        f"{card} does not extend the run {first}-{last} (the next card of the suit at either end, ace low)",
    )


# One bit per natural card, suit-major (suit * 16 + rank order): a hand's bits show at once
# whether it holds three consecutive cards of a suit.  And a count per rank, one 4-bit
# field per rank order (a natural card adds 1 << (rank order * 4)): a rank held three or
# four times shows as a field with its 4-bit or both its 2-bit and 1-bit set (a count of 3
# to 7; a deck of distinct cards gives at most 4, so no field overflows into the next).
# Both in one number per card (_SPREAD_BITS): the counts in bits 0-63, the run bits from
# bit 64 on, so a hand is one addition per card (the counts never carry into bit 64: the
# rank fields are 1-13 of 16, each at most 4).
_RUN_BIT = {c: 1 << (SUITS.index(SUIT_OF[c]) * 16 + ORDER_OF[c]) for c in STANDARD_DECK}
_RANK_COUNT = {c: 1 << (ORDER_OF[c] * 4) for c in STANDARD_DECK}
_SPREAD_BITS = {c: (_RUN_BIT[c] << 64) | _RANK_COUNT[c] for c in STANDARD_DECK}
_NIBBLE_LOW = sum(1 << (4 * i) for i in range(16))


def natural_spread_possible(hand: list[str]) -> bool:
    """Whether ``hand`` holds a spread at all: three consecutive ranks of one suit or three
    cards of one rank (A8.2, A8.3), answered on bit masks without grouping the cards.  A
    hand with any other card (a joker) is always worth asking about.  The candidates'
    generator below asks it first (most hands hold no spread)."""
    bits = 0
    try:  # one plain loop, one addition a card (cheaper than sum(map(...)) or two sums)
        for c in hand:
            bits += _SPREAD_BITS[c]
    except KeyError:  # the table's keys are the natural cards
        return True
    runs = bits >> 64
    if runs & (runs >> 1) & (runs >> 2):
        return True
    # a rank field >= 3: its 4-bit set, or its 2-bit and its 1-bit (the mask keeps the
    # fields' low bits, which only bits 0-62 reach: the run bits play no part)
    return bool(((bits >> 2) | ((bits >> 1) & bits)) & _NIBBLE_LOW)


def natural_spread_candidates(hand: list[str]) -> list[SpreadShape]:
    """Every book and run that can be laid from the natural cards of ``hand``."""
    if not natural_spread_possible(hand):
        return []
    by_rank: dict[str, list[str]] = {}
    by_suit: dict[str, list[str]] = {}
    for c in hand:
        r = RANK_OF[c]
        if r == "X":
            continue
        by_rank.setdefault(r, []).append(c)
        by_suit.setdefault(SUIT_OF[c], []).append(c)
    out: list[SpreadShape] = []
    for group in by_rank.values():
        if len(group) >= 3:
            for size in range(3, min(4, len(group)) + 1):
                for combo in combinations(group, size):
                    out.append(SpreadShape("book", combo))
    for group in by_suit.values():
        if len(group) < 3:
            continue
        group.sort(key=ORDER_OF.__getitem__)
        # split into maximal consecutive segments, then every sub-segment of 3+
        seg = [group[0]]
        segments = []
        for c in group[1:]:
            if ORDER_OF[c] == ORDER_OF[seg[-1]] + 1:
                seg.append(c)
            else:
                segments.append(seg)
                seg = [c]
        segments.append(seg)
        for seg in segments:
            n = len(seg)
            for i in range(n - 2):
                for j in range(i + 3, n + 1):
                    out.append(SpreadShape("run", tuple(seg[i:j])))
    return out


def run_neighbours(cards: tuple[str, ...]) -> list[str]:
    """The natural cards that would extend a run at either end."""
    s = SUIT_OF[cards[0]]
    out = []
    lo, hi = ORDER_OF[cards[0]], ORDER_OF[cards[-1]]
    if lo > 1:
        out.append(card_for(lo - 1, s))
    if hi < 13:
        out.append(card_for(hi + 1, s))
    return out
