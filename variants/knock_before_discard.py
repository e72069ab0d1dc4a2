"""``knock-before-discard`` (rules.md C5.19, B-08): a knock is also allowed after drawing, before discarding.

The player may knock at the start of the turn as in the base game, or after
drawing (and after any spreads and hits), instead of discarding.  The hand
is then counted as it stands (A12.3).

Decisions:

* The base option ``knock_timing`` is redeclared with the single choice
  ``before_discard``, so the pinned options say what is played and
  ``knock_timing: start_of_turn`` together with this variant is refused as
  a contradiction.
* A knock after drawing ends the hand with no discard; the drawn card is
  counted in the knocker's hand.
"""

from __future__ import annotations

from . import OptionSpec, VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="knock-before-discard",
    summary="Knock at the start of the turn or after drawing, before discarding.",
    options=(OptionSpec("knock_timing", "str", "before_discard", "when a knock is allowed (B-08): before_discard under this variant", choices=("before_discard",)),),
    doc=__doc__,
)


@hookimpl
def tonk_knock_timing(ruleset):
    return "before_discard"
