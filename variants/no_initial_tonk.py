"""``no-initial-tonk`` (rules.md C4.15): no premium for a dealt 49/50; every hand is played.

Decisions:

* No dealt hand ends the hand, whatever its total (the check is skipped).
* Declared in conflict with ``initial-tonk-50-only``, ``initial-tonk-totals``
  and ``low-initial-tonk``, which define initial tonks this variant abolishes.
"""

from __future__ import annotations

from . import VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="no-initial-tonk",
    summary="No initial tonk: a dealt 49 or 50 is played like any other hand.",
    conflicts=("initial-tonk-50-only", "initial-tonk-totals", "low-initial-tonk"),
    doc=__doc__,
)


@hookimpl
def tonk_initial_tonks(hands, totals, ruleset):
    return []
