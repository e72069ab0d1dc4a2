"""``initial-tonk-50-only`` (rules.md C4.12): only a dealt total of exactly 50 is an initial tonk.

An option preset: it sets ``initial_tonk_totals`` to [50] (the base game
reads that option, A5.1).

Decisions:

* Giving ``initial_tonk_totals`` other than [50] together with this variant
  is a contradiction and is refused (name the totals without the variant
  instead).
* Declared in conflict with ``no-initial-tonk``.  With ``low-initial-tonk``
  it composes: a dealt 50 or a total at or below ``low_tonk_max``.
"""

from __future__ import annotations

from . import OptionSpec, VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="initial-tonk-50-only",
    summary="Only a dealt 50 is an initial tonk (not 49).",
    options=(OptionSpec("initial_tonk_totals", "int_list", [50], "dealt totals that are an initial tonk: [50] under this variant", minimum=0),),
    conflicts=("no-initial-tonk",),
    doc=__doc__,
)


@hookimpl
def tonk_check_options(options, variants):
    if options["initial_tonk_totals"] != [50]:
        return f"initial-tonk-50-only makes only 50 an initial tonk, but initial_tonk_totals is {options['initial_tonk_totals']}"
    return None
