"""``face-cards-11-12-13`` (rules.md C3.8): J = 11, Q = 12, K = 13 in every count.

Affects every hand total: the initial-tonk test, knocks and the exhausted
stock.

Decisions:

* The initial-tonk totals stay 49/50 (B-19 "whatever the card values"), so
  fewer dealt hands reach them; change ``initial_tonk_totals`` to adjust.
* Only the face cards change; wild cards keep the value their own variant
  gives them (``joker_value``, ``deuce_value``).
"""

from __future__ import annotations

from ..core.cards import RANK_OF
from . import VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="face-cards-11-12-13",
    summary="Count jacks 11, queens 12, kings 13.",
    doc=__doc__,
)

_VALUES = {"J": 11, "Q": 12, "K": 13}


@hookimpl
def tonk_card_points(card, ruleset):
    return _VALUES.get(RANK_OF[card])
