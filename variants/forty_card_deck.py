"""``forty-card-deck`` (rules.md C3.11, "Reem Team Tonk"): the 8s, 9s and 10s are removed.

Decisions:

* ``removed_ranks`` lists rank numbers (A = 1 ... K = 13), default
  [8, 9, 10].  At least one rank must stay.
* Runs keep the natural rank order: with 8-10 removed, 7 and J are *not*
  consecutive, so no run crosses the gap (the source gives no rule for it).
* The deck is built as a wrapper around the deck below, so jokers added by
  ``jokers-wild`` stay in it.
"""

from __future__ import annotations

from ..core.cards import ORDER_OF, is_joker
from . import OptionSpec, VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="forty-card-deck",
    summary="Play without the 8s, 9s and 10s (removed_ranks): 40 cards.",
    options=(OptionSpec("removed_ranks", "int_list", [8, 9, 10], "rank numbers taken out of the deck (A=1 ... K=13)", minimum=1, maximum=13),),
    doc=__doc__,
)


@hookimpl(wrapper=True)
def tonk_deck(ruleset):
    deck = yield
    removed = set(ruleset.options["removed_ranks"])
    return [c for c in deck if is_joker(c) or ORDER_OF[c] not in removed]


@hookimpl
def tonk_check_options(options, variants):
    if len(options["removed_ranks"]) >= 13:
        return "removed_ranks cannot remove every rank"
    return None
