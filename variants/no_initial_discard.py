"""``no-initial-discard`` (rules.md C1.1, seeds A13.1, B-12, B-25, B-29).

No card is turned up after the deal; the discard pile begins with the first
player's discard, and the stock holds every card not dealt (52 - 5n).

Decisions (where section C is silent):

* The first player may still knock (B-25); otherwise they must draw from the
  stock.  ``draw_discard`` on the empty pile is ``DISCARD_PILE_EMPTY`` citing
  this variant's rule ``V:no-initial-discard`` (the variant is why the pile
  is empty), as in case T30.
* The veto applies whenever the pile is empty, which in play happens only
  on the first turn (every later turn follows a discard).
"""

from __future__ import annotations

from ..core.commands import DrawDiscard
from . import VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="no-initial-discard",
    summary="No upcard after the deal: the first player draws from the stock (or knocks); the pile starts with the first discard.",
    doc=__doc__,
)


@hookimpl
def tonk_upcard(ruleset):
    return False


@hookimpl
def tonk_veto(state, command, ruleset):
    if type(command) is DrawDiscard and not state.discard:
        return VARIANT.illegal(
            "DISCARD_PILE_EMPTY",
            "no card was turned up after the deal and nobody has discarded yet: draw from the stock",
        )
    return None
