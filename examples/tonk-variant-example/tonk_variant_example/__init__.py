"""``first-round-no-knock``: nobody may knock until every player has had ``rounds`` turns.

A house rule some tables play so that a lucky deal cannot end the hand
before anyone has drawn.  It is the worked example of
``docs/variant-authoring.md``.

Decisions:

* The count is of turns in the hand in play (``state.turn_no`` starts at 1
  on the first turn after the deal), so with 3 players and ``rounds: 1`` the
  first knock may come on turn 4.
* A refused knock is ``KNOCK_TOO_EARLY``, rule ``V:first-round-no-knock``.
"""

from tonk.core.commands import Knock
from tonk.variants import OptionSpec, VariantInfo, hookimpl

__version__ = "0.1.0"

VARIANT = VariantInfo(
    name="first-round-no-knock",
    summary="No knock until every player has had `rounds` turns (default 1).",
    options=(OptionSpec("rounds", "int", 1, "full rounds of turns before anyone may knock", minimum=0, maximum=10),),
    doc=__doc__,
)


@hookimpl
def tonk_veto(state, command, ruleset):
    if type(command) is not Knock:
        return None
    first_allowed = ruleset.options["rounds"] * len(state.players) + 1
    if state.turn_no < first_allowed:
        return VARIANT.illegal(
            "KNOCK_TOO_EARLY",
            f"no knock before turn {first_allowed} of the hand (every player first has {ruleset.options['rounds']} turn(s))",
        )
    return None
