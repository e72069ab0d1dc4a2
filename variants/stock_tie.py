"""``stock-tie`` (rules.md C6.31, B-06): a tie for lowest when the stock runs dry.

An option preset of the base option ``stock_tie``: naming the variant makes
``draw`` the default (nobody pays when two or more players tie for
lowest), the one alternative to the base ``split_as_catch``.

Decisions:

* ``draw`` applies whenever two or more players tie for lowest at a dry
  stock (also under ``stock-end-immediate``); a single lowest player is
  paid as usual (A12.8).
* ``stock_tie: split_as_catch`` may still be given explicitly.
"""

from __future__ import annotations

from ..core.settlement import STOCK_TIES
from . import OptionSpec, VariantInfo

VARIANT = VariantInfo(
    name="stock-tie",
    summary="A tie for lowest at a dry stock is a draw (option stock_tie, default draw under this variant).",
    options=(OptionSpec("stock_tie", "str", "draw", "a tie for lowest when the stock runs dry (B-06)", choices=STOCK_TIES),),
    doc=__doc__,
)
