"""Wild cards, shared by ``jokers-wild`` and ``deuces-wild`` (a helper module, not a variant).

Both variants import the hook implementations below (``tonk_check_spread``,
``tonk_check_hit``, ``tonk_spread_candidates``, ``tonk_hit_options``), so
both register the same functions; each reads the wild
cards of the whole ruleset (``ruleset.wild_cards``, the union of every
``tonk_wild_cards`` answer), so whichever of them pluggy asks first gives the
answer both would give, and the two compose.

The model: a spread's ``jokers_as`` maps each wild card used as wild to the
standard card it stands for (its *represented* card).  The represented cards
must form a valid spread of natural cards (A8, B-10, B-11): a wild card
cannot stand for a card already in the spread, and no wrap K-A-2.  A deuce
under ``deuces-wild`` that is not named stands for itself (a natural 2).  A
joker that a spread does not name is inferred when exactly one set of cards
makes the spread valid (``5H 7H X1``: 6H), otherwise the spread is refused
and must name it; a joker hit without ``joker_as`` (the case format has no
such field for hits) stands for the card above a run, or below it if the run
ends at the king, and for the first missing suit of a book in the order
S, H, D, C; the choice is recorded in the event.  A spread needs at least ``min_natural_cards``
cards that stand for themselves.  Hits work the same way on the represented
cards (``joker_as`` names what a wild card stands for).  A wild card on the
table is never replaced or moved (B-32).
"""

from __future__ import annotations

from itertools import combinations

from ..core.cards import JOKERS, RANK_OF, RANKS, STANDARD_DECK, SUITS, card_for, is_joker
from ..core.errors import IllegalAction
from ..core.spreads import SpreadShape, check_natural_hit, check_natural_spread, run_neighbours
from . import OptionSpec, hookimpl

MIN_NATURAL = OptionSpec(
    "min_natural_cards",
    "int",
    1,
    "cards of a spread that must stand for themselves (not wild); Bicycle Tunk uses 2",
    minimum=0,
    maximum=4,
)

_NATURAL = frozenset(STANDARD_DECK)


def _rule(card: str) -> str:
    return "V:jokers-wild" if is_joker(card) else "V:deuces-wild"


def _bad_spread(card: str, why: str) -> IllegalAction:
    return IllegalAction("INVALID_SPREAD", _rule(card), why)


def _bad_hit(card: str, why: str) -> IllegalAction:
    return IllegalAction("HIT_DOES_NOT_FIT", _rule(card), why)


def _as_map(cards, jokers_as: dict[str, str], wild: frozenset[str]) -> dict[str, str]:
    """The checked wild-card map of a new spread (identity mappings dropped, unnamed jokers inferred)."""
    out: dict[str, str] = {}
    for k, v in jokers_as.items():
        if k not in cards:
            raise _bad_spread(k, f"jokers_as names {k}, which is not one of the spread's cards")
        if k not in wild:
            raise IllegalAction("INVALID_SPREAD", "A8.1", f"{k} is not a wild card and stands only for itself")
        if v not in _NATURAL:
            raise _bad_spread(k, f"{k} must stand for a card of the standard deck, not {v}")
        if v != k:
            out[k] = v
    unnamed = [c for c in cards if is_joker(c) and c not in out]
    if unnamed:
        out.update(_infer(cards, out, unnamed))
    return out


def _infer(cards, named: dict[str, str], unnamed: list[str]) -> dict[str, str]:
    """Stand-ins for jokers a spread does not name: only when exactly one set of cards fits."""
    rep = [named.get(c, c) for c in cards if c not in unnamed]
    ranks = {RANK_OF[r] for r in rep}
    suits = {r[-1] for r in rep}
    pool = [c for c in STANDARD_DECK if (RANK_OF[c] in ranks or c[-1] in suits) and c not in rep]
    fits = set()
    for combo in combinations(pool, len(unnamed)):
        try:
            check_natural_spread(rep + list(combo))
        except IllegalAction:
            continue
        fits.add(combo)
    if len(fits) != 1:
        some = " or ".join(" ".join(f) for f in sorted(fits)[:3])
        why = f"it could stand for {some}" if fits else "no card makes this a spread"
        raise _bad_spread(unnamed[0], f"say which card {' and '.join(unnamed)} stand(s) for (jokers_as): {why}")
    return dict(zip(unnamed, fits.pop()))


@hookimpl
def tonk_check_spread(cards, jokers_as, ruleset) -> SpreadShape | None:
    wild = ruleset.wild_cards
    if not jokers_as and not any(c in wild for c in cards):
        return None  # natural cards only: the base game decides
    ja = _as_map(cards, jokers_as, wild)
    need = ruleset.options.get("min_natural_cards", 1)
    naturals = sum(1 for c in cards if c not in ja)
    if naturals < need:
        some = next(iter(ja))
        raise _bad_spread(some, f"a spread needs at least {need} card(s) standing for themselves, not {naturals}")
    rep = [ja.get(c, c) for c in cards]
    shape = check_natural_spread(rep)  # A8: books, runs, no duplicates
    back = dict(zip(rep, cards))
    return SpreadShape(shape.kind, tuple(back[r] for r in shape.cards), ja)


def represented(spread) -> tuple[str, ...]:
    return tuple(spread.jokers_as.get(c, c) for c in spread.cards)


@hookimpl
def tonk_check_hit(spread, card, joker_as, ruleset) -> SpreadShape | None:
    wild = ruleset.wild_cards
    if card not in wild and joker_as is None and not spread.jokers_as:
        return None  # a natural card on a natural spread: the base game decides
    if joker_as is not None and card not in wild:
        raise IllegalAction("HIT_DOES_NOT_FIT", "A9.2", f"{card} is not a wild card and stands only for itself")
    if joker_as is not None and joker_as not in _NATURAL:
        raise _bad_hit(card, f"{card} must stand for a card of the standard deck, not {joker_as}")
    rep = represented(spread)
    if is_joker(card) and joker_as is None:
        joker_as = default_stand_in(spread.kind, rep)
        if joker_as is None:
            raise IllegalAction("HIT_DOES_NOT_FIT", "A9.2", f"{spread.id} cannot grow, so {card} does not fit it")
    rep_card = joker_as if joker_as is not None else card
    if rep_card in rep:
        raise IllegalAction("HIT_DOES_NOT_FIT", "A9.2", f"the spread already holds {rep_card}")
    shape = check_natural_hit(spread.kind, rep, rep_card)
    back = dict(zip(rep, spread.cards))
    back[rep_card] = card
    ja = dict(spread.jokers_as)
    if rep_card != card:
        ja[card] = rep_card
    return SpreadShape(shape.kind, tuple(back[r] for r in shape.cards), ja)


def _fits(kind: str, rep: tuple[str, ...]) -> list[str]:
    """The cards that would extend a spread of represented cards ``rep``: a book's missing
    suits (S, H, D, C order), a run's card below then above."""
    if kind == "book":
        r = RANK_OF[rep[0]]
        return [r + s for s in SUITS if r + s not in rep] if len(rep) < 4 else []
    return run_neighbours(rep)


def default_stand_in(kind: str, rep: tuple[str, ...]) -> str | None:
    """What a joker hit without ``joker_as`` stands for: the card above a run (below if the run
    ends at the king), the first missing suit of a book (S, H, D, C)."""
    fits = _fits(kind, rep)
    if not fits:
        return None
    return fits[-1] if kind == "run" else fits[0]


@hookimpl
def tonk_hit_options(spread, card, ruleset) -> list[str | None] | None:
    if card not in ruleset.wild_cards:
        return None
    out: list[str | None] = [] if is_joker(card) else [None]
    return out + [c for c in _fits(spread.kind, represented(spread)) if c != card]


def _targets() -> list[tuple[str, tuple[str, ...]]]:
    """Every book and run of the standard deck, as represented cards."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for r in RANKS:
        out.append(("book", tuple(r + s for s in SUITS)))
        for drop in SUITS:
            out.append(("book", tuple(r + s for s in SUITS if s != drop)))
    for s in SUITS:
        for lo in range(1, 12):
            for hi in range(lo + 2, 14):
                out.append(("run", tuple(card_for(o, s) for o in range(lo, hi + 1))))
    return out


_TARGETS = _targets()


@hookimpl
def tonk_spread_candidates(hand, ruleset) -> list[SpreadShape] | None:
    wild = ruleset.wild_cards
    wilds = sorted(c for c in hand if c in wild)
    if not wilds:
        return None  # natural cards only: the base game lists them
    held = {c for c in hand if not is_joker(c)}
    need = ruleset.options.get("min_natural_cards", 1)
    out: list[SpreadShape] = []
    for kind, target in _TARGETS:
        natural = [r for r in target if r in held]
        k = len(target) - len(natural)
        if len(natural) < need or k > len(wilds):
            continue
        missing = [r for r in target if r not in held]
        pool = [w for w in wilds if w not in natural]
        for combo in combinations(pool, k):
            ja = dict(zip(combo, missing))
            stand_in = dict(zip(missing, combo))
            cards = tuple(stand_in.get(r, r) for r in target)
            out.append(SpreadShape(kind, cards, ja))
    return out


def jokers_in(deck) -> list[str]:
    return [c for c in deck if c in JOKERS]
