"""``low-initial-tonk`` (rules.md C4.14): a dealt hand totalling ``low_tonk_max`` or less is an initial tonk.

It is paid like any initial tonk: double from each other player (A5.2).
The 49/50 totals (``initial_tonk_totals``) still count as well.

Decisions:

* ``low_tonk_max`` defaults to 13 (Wikipedia, pagat fragment); SPENO and
  French Wikipedia use 15.
* Two or more tonks of either kind are a draw (A5.3, B-19; French
  Wikipedia: "if another player has a Tonk, the deal is void"), unless
  ``multiple-initial-tonks-all-paid`` is also named.
* Declared in conflict with ``no-initial-tonk``.
"""

from __future__ import annotations

from . import OptionSpec, VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="low-initial-tonk",
    summary="A dealt total of low_tonk_max (13) or less is also an initial tonk, paid double.",
    options=(OptionSpec("low_tonk_max", "int", 13, "the highest dealt total that is a low initial tonk", minimum=0, maximum=100),),
    conflicts=("no-initial-tonk",),
    doc=__doc__,
)


@hookimpl
def tonk_initial_tonks(hands, totals, ruleset):
    high = set(ruleset.options["initial_tonk_totals"])
    low = ruleset.options["low_tonk_max"]
    return [p for p, t in totals.items() if t in high or t <= low]
