"""``deuces-wild`` (rules.md C3.10): the four 2s are wild.

With ``jokers-wild`` as well there are six wild cards (coololdgames).  A
deuce used as wild names its stand-in in ``jokers_as`` / ``joker_as``
exactly like a joker; a deuce that is not named there is an ordinary 2
(so 2-3-4 of a suit is still a run).  The shared model is in
:mod:`tonk.variants._wild`.

Decisions (section C leaves them open):

* Only the 2s: the catalogue names no other wild rank.
* ``deuce_value`` (default 2, Bicycle Tunk) is a deuce's count in a hand.
* ``min_natural_cards`` (default 1) as for ``jokers-wild`` (the same option;
  Bicycle's "two natural cards" is 2).  A deuce standing for itself counts
  as natural.
* Wild deuces are never replaced or moved on the table (B-32).
* Refused together with a ``forty-card-deck`` that removes the 2s.
"""

from __future__ import annotations

from ..core.cards import RANK_OF
from . import OptionSpec, VariantInfo, _wild, hookimpl
from ._wild import tonk_check_hit, tonk_check_spread, tonk_hit_options, tonk_spread_candidates  # noqa: F401  (shared wild-card hooks)

VARIANT = VariantInfo(
    name="deuces-wild",
    summary="The four 2s are wild (with jokers-wild: six wild cards); deuce_value is their count in hand.",
    options=(
        OptionSpec("deuce_value", "int", 2, "a deuce's value in a hand total", minimum=0, maximum=50),
        _wild.MIN_NATURAL,
    ),
    doc=__doc__,
)


@hookimpl
def tonk_card_points(card, ruleset):
    return ruleset.options["deuce_value"] if RANK_OF[card] == "2" else None


@hookimpl
def tonk_wild_cards(ruleset):
    return [c for c in ruleset.deck if RANK_OF[c] == "2"]


@hookimpl
def tonk_check_options(options, variants):
    if "forty-card-deck" in variants and 2 in options.get("removed_ranks", ()):
        return "deuces-wild needs the 2s, but forty-card-deck removes them (removed_ranks)"
    return None

