"""``knock-limit`` (rules.md C5.20): a knock is allowed only with a hand total of ``max_knock_count`` or less.

Violation: ``KNOCK_LIMIT``, rule ``V:knock-limit``.

Decisions (no Tonk source imposes a limit; the rule comes from related games):

* ``max_knock_count`` defaults to 10 (gin rummy); Bicycle Tunk's 5 is an
  option value.
* The total is the knocker's hand as it stands when knocking, counted with
  the ruleset's card values (face-cards-11-12-13, joker_value apply); under
  ``knock-before-discard`` that includes the card drawn.
"""

from __future__ import annotations

from ..core.commands import Knock
from . import OptionSpec, VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="knock-limit",
    summary="Knock only with a hand total of max_knock_count (10) or less.",
    options=(OptionSpec("max_knock_count", "int", 10, "the highest hand total that may knock", minimum=0, maximum=200),),
    doc=__doc__,
)


@hookimpl
def tonk_veto(state, command, ruleset):
    if type(command) is not Knock:
        return None
    limit = ruleset.options["max_knock_count"]
    total = ruleset.hand_total(state.hands[command.player])
    if total > limit:
        return VARIANT.illegal("KNOCK_LIMIT", f"a knock needs a hand total of {limit} or less; {command.player} holds {total}")
    return None
