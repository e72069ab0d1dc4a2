"""``cards-per-player`` (rules.md C2.5): a fixed hand size N for every table.

An option preset: the base game already reads ``cards_per_player`` (A4.1,
default 5).  Naming the variant says the table plays another hand size, so
the option must then be given explicitly (a ruleset naming
``cards-per-player`` without ``cards_per_player`` is refused rather than
silently dealing 5).

Decisions:

* With ``deal-size-by-player-count`` as well, its map wins for the player
  counts it lists and N applies to the others.
* The initial-tonk totals stay 49/50 (B-19); the ruleset refuses a size that
  leaves no stock for a seat count it allows (B-22).
"""

from __future__ import annotations

from . import OptionSpec, VariantInfo

VARIANT = VariantInfo(
    name="cards-per-player",
    summary="Deal a fixed number of cards to each player (option cards_per_player, required).",
    options=(
        OptionSpec("cards_per_player", "int", 7, "cards dealt to each player (A4.1); must be given", minimum=1, maximum=25, required=True),
    ),
    doc=__doc__,
)
