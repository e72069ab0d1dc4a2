"""``discard-pick-must-meld`` (rules.md C5.23, pagat Variations): the discard top may be taken only to use it at once.

Engine reading (C5.23): ``draw_discard`` is legal only if the card can be
used at once (``DISCARD_PICK_NOT_USABLE``), and the next action must use it
(``DISCARD_PICK_MUST_BE_USED``); both cite ``V:discard-pick-must-meld``.
A card is used by a new spread that contains it or, with ``pick_may_hit``
(default true), by hitting it onto a spread on the table.

Decisions:

* "Can be used at once" means: right after taking it, some spread or hit
  with it would be legal under the whole ruleset (so ``hit-runs-only``,
  ``one-hit-per-turn`` and the like are respected and a pick can never
  leave the player without a legal move).
* "The next action" is literal: any other action first (another spread or
  hit, a knock under ``knock-before-discard``, a discard) is refused; once
  the card is used the turn goes on as usual.
* With an empty discard pile the base rule answers (``DISCARD_PILE_EMPTY``).
"""

from __future__ import annotations

from ..core.commands import DrawDiscard, Hit, LaySpread
from ..core.events import CardDrawn
from . import OptionSpec, VariantInfo, _facts, hookimpl

VARIANT = VariantInfo(
    name="discard-pick-must-meld",
    summary="Take the discard top only to use it at once in a spread (or a hit, pick_may_hit).",
    options=(OptionSpec("pick_may_hit", "bool", True, "whether hitting the picked card onto a spread counts as using it"),),
    doc=__doc__,
)


def pending_pick(state) -> str | None:
    """The card just taken from the discard pile, if the player has not acted since."""
    last = state.hand_log[-1] if state.hand_log else None
    if type(last) is CardDrawn and last.source == "discard" and last.player == state.to_act:
        return last.card
    return None


@hookimpl
def tonk_veto(state, command, ruleset):
    may_hit = ruleset.options["pick_may_hit"]
    t = type(command)
    if t is DrawDiscard:
        if not state.discard:
            return None
        card = state.discard[-1]
        taken = _facts.after(state, CardDrawn(player=command.player, source="discard", card=card))
        if _facts.can_lay_down(taken, card, ruleset, hits=may_hit):
            return None
        how = "a new spread or a hit" if may_hit else "a new spread"
        return VARIANT.illegal("DISCARD_PICK_NOT_USABLE", f"{card} cannot be used at once in {how}, so it may not be taken")
    card = pending_pick(state)
    if card is None:
        return None
    if t is LaySpread and card in command.cards:
        return None
    if t is Hit and may_hit and command.card == card:
        return None
    how = "spread or hit" if may_hit else "spread"
    return VARIANT.illegal("DISCARD_PICK_MUST_BE_USED", f"{card} was taken from the discard pile: the next action must {how} it")
