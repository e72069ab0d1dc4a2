"""``deal-size-by-player-count`` (rules.md C2.4).

Each player is dealt ``deal_sizes[str(n)]`` cards at a table of ``n``
players (coololdgames: 9 for two, 7 for three, 5 for four, the default).

Decisions:

* A player count missing from ``deal_sizes`` is dealt ``cards_per_player``
  (5 unless set, or set by ``cards-per-player``), so the two variants
  compose: the map overrides the fixed size where it has an entry.
* The initial-tonk totals stay 49/50 whatever the hand size (C2.4 "kept by
  default", B-19); change them with ``initial_tonk_totals``.
* Keys must be player counts of at least 2; the ruleset refuses a size that
  leaves no stock for a seat count it allows (B-22).
"""

from __future__ import annotations

from . import OptionSpec, VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="deal-size-by-player-count",
    summary="Hand size depends on the number of players (deal_sizes, e.g. 2:9, 3:7, 4:5).",
    options=(
        OptionSpec(
            "deal_sizes",
            "int_map",
            {"2": 9, "3": 7, "4": 5},
            "cards dealt to each player, keyed by the number of players; other counts get cards_per_player",
            minimum=1,
            maximum=25,
        ),
    ),
    doc=__doc__,
)


@hookimpl
def tonk_deal_size(num_players, ruleset):
    return ruleset.options["deal_sizes"].get(str(num_players))


@hookimpl
def tonk_check_options(options, variants):
    bad = [k for k in options["deal_sizes"] if int(k) < 2]
    if bad:
        return f"deal_sizes is keyed by player counts of 2 or more, not {', '.join(bad)}"
    return None
