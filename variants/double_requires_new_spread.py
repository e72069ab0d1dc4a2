"""``double-requires-new-spread`` (rules.md C1.3, seeds A13.3, B-23); alias ``double-for-new-spread``.

A tonk out pays double (2) only if the player laid a new spread; going out
by hits only pays the basic stake (1, reason ``tonk_out``).

``new_spread_scope`` says which spread counts (B-23):

* ``going_out_turn`` (default): a spread laid during the going-out turn
  (T13: a spread from an earlier turn does not count; T14: spread then a
  final hit pays double);
* ``final_action``: the going-out action itself is a new spread;
* ``whole_hand``: the player laid a spread at any time in this hand.

Decisions:

* Only ``tonk_out`` changes; going out by a discard (1) and every other
  ending are paid as in the base game.
* Spreads already on the table in an explicit position were laid earlier
  in this hand by their owner (spreads never carry over between hands,
  B-23): under ``whole_hand`` they count for their owner; under
  ``going_out_turn`` and ``final_action`` they never count (they were not
  laid during the going-out turn).
"""

from __future__ import annotations

from ..core.events import SpreadLaid
from ..core.settlement import from_each
from . import OptionSpec, VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="double-requires-new-spread",
    summary="A tonk out pays double only with a new spread (new_spread_scope); by hits only it pays the base stake.",
    options=(
        OptionSpec(
            "new_spread_scope",
            "str",
            "going_out_turn",
            "which spread earns the double (B-23)",
            choices=("going_out_turn", "final_action", "whole_hand"),
        ),
    ),
    aliases=("double-for-new-spread",),
    doc=__doc__,
)


def laid_new_spread(player, state, scope) -> bool:
    """Whether ``player`` laid a spread that counts under ``scope`` (``state``: the position at the end)."""
    if scope == "going_out_turn":
        return bool(state.turn_spreads)
    if scope == "final_action":
        return type(state.hand_log[-1]) is SpreadLaid
    if any(type(e) is SpreadLaid and e.player == player for e in state.hand_log):
        return True
    dealt = state.dealt  # an explicit position's table: laid earlier in this hand by its owner
    return dealt is not None and any(s.owner == player for s in dealt.table)


@hookimpl
def tonk_settle(ending, state, ruleset):
    if ending.end != "tonk_out" or laid_new_spread(ending.player, state, ruleset.options["new_spread_scope"]):
        return None
    return from_each(ending.player, ending.seats, 1, "tonk_out")
