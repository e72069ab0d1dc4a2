"""``hit-penalty`` (rules.md C5.21): a player whose spread is hit by another may not knock for a while.

Semantics (as section C fixes them for the cases): every card another
player hits onto X's spread adds ``turns_per_hit`` to X's counter; if the
counter is above 0 at the start of X's turn, X may not knock during that
turn (``KNOCK_BLOCKED_BY_HIT``, rule ``V:hit-penalty``), and the counter
drops by 1 when that turn ends.  With ``turns_per_hit`` 1 this is pagat's
"wait until the start of their second turn after you hit them" (T32).

Options:

* ``turns_per_hit`` (1): pagat 1, 2008 Wikipedia *Tunk* 3.
* ``stacking``: ``additive`` (default: each hit adds, "multiple hits result
  in 6, 9, 12") or ``none`` (a hit sets the counter to ``turns_per_hit`` if
  it is lower: several hits before X's turn block no longer than one).
* ``count_own_hits`` (false): whether a hit on one's own spread counts.

Decisions:

* The counter is derived from the hand's events (``state.hand_log``), so it
  starts at 0 each hand; a hand dealt as an explicit position has no history.
* A spread's owner is whoever laid it (or the owner given in an explicit
  position); a hit counts for the owner whoever's turn it is.
* "Cannot lay down" is read as "cannot knock" (pagat), not "cannot lay
  spreads" (C5.21).
* With ``count_own_hits`` a hit made in one's own turn blocks from the next
  turn on (the counter is read at the start of a turn).
"""

from __future__ import annotations

from ..core.commands import Knock
from ..core.events import CardDiscarded, CardHit
from . import OptionSpec, VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="hit-penalty",
    summary="A player whose spread is hit by another may not knock for turns_per_hit of their next turns per hit.",
    options=(
        OptionSpec("turns_per_hit", "int", 1, "turns without knocking per card hit onto one's spread", minimum=1, maximum=50),
        OptionSpec("stacking", "str", "additive", "additive: each hit adds turns; none: a hit sets the count", choices=("additive", "none")),
        OptionSpec("count_own_hits", "bool", False, "whether hitting one's own spread counts"),
    ),
    doc=__doc__,
)


def blocked_turns(state, ruleset) -> int:
    """The counter of the player to act, as it stood at the start of the current turn."""
    opts = ruleset.options
    per_hit = opts["turns_per_hit"]
    additive = opts["stacking"] == "additive"
    own = opts["count_own_hits"]
    counter = dict.fromkeys(state.players, 0)
    at_start = 0  # the counter of the player whose turn is in play, at its start
    for e in state.hand_log:
        t = type(e)
        if t is CardHit:
            owner = state.table[e.spread_id].owner
            if owner != e.player or own:
                counter[owner] = counter[owner] + per_hit if additive else max(counter[owner], per_hit)
        elif t is CardDiscarded:
            if at_start > 0:
                counter[e.player] -= 1
            at_start = counter[state.left_of(e.player)]
    return at_start


@hookimpl
def tonk_veto(state, command, ruleset):
    if type(command) is not Knock:
        return None
    n = blocked_turns(state, ruleset)
    if n > 0:
        more = f" and {n - 1} more turn(s)" if n > 1 else ""
        return VARIANT.illegal("KNOCK_BLOCKED_BY_HIT", f"{command.player}'s spread was hit: no knock this turn{more}")
    return None
