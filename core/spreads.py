"""Spreads (A8) and hits (A9) of the base game: books and runs of natural cards.

A book is 3-4 cards of one rank (A8.2); a run is 3 or more consecutive cards of
one suit, ace low, no wrap (A8.3, B-10).  A hit adds the missing rank to a
book (at most 4) or the next card of the suit at either end of a run (A9.2).
Spreads are never rearranged (B-32).
"""

from __future__ import annotations

from itertools import combinations

import msgspec

from .cards import ORDER_OF, RANK_OF, SUIT_OF, card_for
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


def check_natural_hit(kind: str, spread_cards: tuple[str, ...] | list[str], card: str) -> SpreadShape:
    """The spread after hitting ``card`` on it, or raise HIT_DOES_NOT_FIT: rule A9.2, or A8.3
    when the card would fit only with the ace high or by wrapping (B-35)."""
    if kind == "book":
        r = RANK_OF[spread_cards[0]]
        if RANK_OF[card] != r:
            raise IllegalAction("HIT_DOES_NOT_FIT", "A9.2", f"{card} is not of rank {r}, so it does not fit the book")
        if len(spread_cards) >= 4:
            raise IllegalAction("HIT_DOES_NOT_FIT", "A9.2", "the book already holds four cards")
        return SpreadShape("book", tuple(spread_cards) + (card,))
    first, last = spread_cards[0], spread_cards[-1]
    s = SUIT_OF[first]
    if SUIT_OF[card] == s:
        o = ORDER_OF[card]
        if o == ORDER_OF[last] + 1:
            return SpreadShape("run", tuple(spread_cards) + (card,))
        if o == ORDER_OF[first] - 1:
            return SpreadShape("run", (card,) + tuple(spread_cards))
        if (o == 1 and ORDER_OF[last] == 13) or (o == 13 and ORDER_OF[first] == 1):
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


def natural_spread_candidates(hand: list[str]) -> list[SpreadShape]:
    """Every book and run that can be laid from the natural cards of ``hand``."""
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
