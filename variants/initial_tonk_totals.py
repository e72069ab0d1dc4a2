"""``initial-tonk-totals`` (rules.md C4.13): the set of dealt totals that are an initial tonk.

An option preset, the general form of ``initial-tonk-50-only``: the base
game already reads ``initial_tonk_totals`` (A5.1, default [49, 50]).  Naming
the variant says the table plays other totals (digitalprank: "49 or 11"), so
the option must then be given explicitly (a ruleset naming
``initial-tonk-totals`` without ``initial_tonk_totals`` is refused rather
than silently keeping 49/50).

Decisions:

* Only the dealt cards count and two or more tonks are a draw, as in the
  base game (A5.1, A5.3, B-19); ``multiple-initial-tonks-all-paid`` and
  ``low-initial-tonk`` compose with it.
* Declared in conflict with ``no-initial-tonk``.  Named with
  ``initial-tonk-50-only`` it is refused as a contradiction (both set the
  option): name the totals alone instead.
"""

from __future__ import annotations

from . import OptionSpec, VariantInfo

VARIANT = VariantInfo(
    name="initial-tonk-totals",
    summary="Choose the dealt totals that are an initial tonk (option initial_tonk_totals, required).",
    options=(
        OptionSpec(
            "initial_tonk_totals",
            "int_list",
            [49, 50, 11],
            "dealt totals that are an initial tonk (A5.1, C4.13); must be given",
            minimum=0,
            required=True,
        ),
    ),
    conflicts=("no-initial-tonk",),
    doc=__doc__,
)
