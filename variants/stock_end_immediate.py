"""``stock-end-immediate`` (rules.md C6.32, zdnet reading of A11): the hand ends as soon as the stock is empty.

The player who draws the last stock card finishes that turn (spreads, hits,
discard); the hand then ends as an exhausted stock (``stock_exhausted``,
A12.8: the lowest collects the base stake from each player), with no
further play from the discard pile.

Decisions:

* The end comes after the discard of the turn that emptied the stock; the
  ending's ``player`` is the one who drew the last card.  Going out during
  that turn (tonk out, out by discard) takes precedence, and so does a knock.
* In an explicit position whose stock is already empty the hand ends after
  the first discard; asking for the empty stock ends it at once, as in the
  base game.
* Ties are settled by ``stock_tie`` as in the base game (B-06).
"""

from __future__ import annotations

from ..core.settlement import Ending
from . import VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="stock-end-immediate",
    summary="The hand ends (as a dry stock) after the turn in which the last stock card is drawn.",
    doc=__doc__,
)


@hookimpl
def tonk_turn_end(state, player, ruleset):
    if state.stock:
        return None
    return Ending(end="stock_exhausted", seats=state.players, player=player)
