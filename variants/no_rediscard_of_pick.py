"""``no-rediscard-of-pick`` (rules.md C5.25, B-09): the card taken from the discard pile may not be discarded that turn.

Violation: ``NO_REDISCARD_OF_PICK``, rule ``V:no-rediscard-of-pick``.

Decisions:

* When the picked card is the only card left in hand (everything else was
  laid down), discarding it is allowed (and goes out by discard): otherwise
  the player would have no legal action at all.
* Only the card taken this turn is protected; a card taken on an earlier
  turn may be discarded.
"""

from __future__ import annotations

from ..core.commands import Discard
from . import VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="no-rediscard-of-pick",
    summary="The card taken from the discard pile may not be discarded in the same turn.",
    doc=__doc__,
)


@hookimpl
def tonk_veto(state, command, ruleset):
    if (
        type(command) is Discard
        and state.drew == "discard"
        and command.card == state.drawn_card
        and len(state.hands[command.player]) > 1
    ):
        return VARIANT.illegal("NO_REDISCARD_OF_PICK", f"{command.card} was taken from the discard pile this turn; discard another card")
    return None
