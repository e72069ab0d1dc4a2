"""``multiple-initial-tonks-all-paid`` (rules.md C4.16): several initial tonks are all paid.

Instead of a draw (A5.3), every player without a tonk pays every tonk
player double (2 units, reason ``initial_tonk``).

Decisions:

* The hand's end type stays ``initial_tonk_draw`` (with ``players``): the
  hand is still not played; only the ledger changes.
* Tonk players do not pay each other; if every player has a tonk nobody
  pays.
* The deal passes to the left as after any hand (B-21).
"""

from __future__ import annotations

from ..core.events import Payment
from . import VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="multiple-initial-tonks-all-paid",
    summary="With several initial tonks, every other player pays each tonk player double (no draw payments).",
    doc=__doc__,
)


@hookimpl
def tonk_settle(ending, state, ruleset):
    if ending.end != "initial_tonk_draw":
        return None
    tonkers = ending.players
    return [Payment(p, w, 2, "initial_tonk") for w in tonkers for p in ending.seats if p not in tonkers]
