"""``jokers-wild`` (rules.md C3.9): a 54-card deck; the jokers ``X1``, ``X2`` are wild.

A joker "can be played as any card needed": in a spread its stand-in is
named in ``jokers_as`` (``{"X1": "7H"}``), in a hit in ``joker_as``.  The
spread's represented cards must form a valid book or run (A8), see
:mod:`tonk.variants._wild` for the shared model.

Decisions (section C leaves them open):

* ``joker_value`` (a joker's count in a hand) is documented nowhere, so it
  has no default: a ruleset naming ``jokers-wild`` must set it (E4).
* ``jokers`` is 2 by default (1 is allowed).
* ``min_natural_cards`` (default 1): a spread needs at least that many
  cards standing for themselves.  With two jokers and three-card spreads the
  default never bites; Bicycle Tunk's "two natural cards" is
  ``min_natural_cards: 2``.
* A spread names each joker's stand-in in ``jokers_as``; an unnamed joker
  is inferred only when exactly one set of cards makes the spread valid
  (``5H 7H X1``: 6H), otherwise the spread is refused and must name it.
* A hit names the stand-in in ``joker_as``; the case format has no such
  field for hits, so without it a joker extends a run upwards (downwards if
  the run ends at the king) and fills a book's first missing suit in the
  order S, H, D, C.  The choice is recorded in the ``card_hit`` event.
* A joker cannot stand for a card already in the spread.  It may stand for
  a card held elsewhere (it is "any card needed").
* A joker on the table is never replaced, moved or taken back (B-32); the
  natural card it stands for can then no longer join that spread.
* A spread may hold both jokers.  Violations about the joker itself (an
  ambiguous stand-in, not a standard card, too few natural cards) cite
  ``V:jokers-wild``; a represented set that is not a book or run cites the
  base rule (A8.x, A9.2).
* Composes with ``deuces-wild`` (six wild cards) and ``forty-card-deck``
  (the jokers are added to whatever deck the other rules build).
"""

from __future__ import annotations

from ..core.cards import JOKERS, is_joker
from . import OptionSpec, VariantInfo, _wild, hookimpl
from ._wild import tonk_check_hit, tonk_check_spread, tonk_hit_options, tonk_spread_candidates  # noqa: F401  (shared wild-card hooks)

VARIANT = VariantInfo(
    name="jokers-wild",
    summary="Add jokers (X1, X2) to the deck as wild cards; joker_value (their count in hand) must be set.",
    options=(
        OptionSpec("jokers", "int", 2, "jokers added to the deck", minimum=1, maximum=2),
        OptionSpec("joker_value", "int", 0, "a joker's value in a hand total; no source gives one, so it must be set", minimum=0, maximum=50, required=True),
        _wild.MIN_NATURAL,
    ),
    doc=__doc__,
)


@hookimpl(wrapper=True)
def tonk_deck(ruleset):
    deck = yield
    return [c for c in deck if not is_joker(c)] + list(JOKERS[: ruleset.options["jokers"]])


@hookimpl
def tonk_card_points(card, ruleset):
    return ruleset.options["joker_value"] if is_joker(card) else None


@hookimpl
def tonk_wild_cards(ruleset):
    return _wild.jokers_in(ruleset.deck)

