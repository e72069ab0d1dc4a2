"""``one-hit-per-turn`` (rules.md C5.22, B-15): at most one card may be added to spreads per turn.

Violation: ``HIT_LIMIT_REACHED``, rule ``V:one-hit-per-turn``.  New
spreads are not limited.

Decisions:

* A hit on a spread laid earlier in the same turn counts (E6 default yes);
  ``count_hits_on_new_spreads: false`` exempts such hits (they neither
  count nor are limited).
* The hit count is per turn, whoever owns the spread.
"""

from __future__ import annotations

from ..core.commands import Hit
from ..core.events import CardHit
from . import OptionSpec, VariantInfo, _facts, hookimpl

VARIANT = VariantInfo(
    name="one-hit-per-turn",
    summary="At most one hit per turn.",
    options=(OptionSpec("count_hits_on_new_spreads", "bool", True, "whether a hit on a spread laid this turn counts (E6)"),),
    doc=__doc__,
)


@hookimpl
def tonk_veto(state, command, ruleset):
    if type(command) is not Hit or state.turn_hits == 0:
        return None
    if not ruleset.options["count_hits_on_new_spreads"]:
        new = state.turn_spreads
        if command.target in new:
            return None
        if not any(type(e) is CardHit and e.spread_id not in new for e in _facts.turn_events(state)):
            return None
    return VARIANT.illegal("HIT_LIMIT_REACHED", "only one card may be hit onto spreads per turn, and this turn already has its hit")
