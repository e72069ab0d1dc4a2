"""``hit-runs-only`` (rules.md C5.24, SPENO via Wikipedia): cards may be hit only onto runs, not books.

Violation: ``HIT_DOES_NOT_FIT``, rule ``V:hit-runs-only`` (the card does not
fit the target under this rule).

Decisions:

* Books may still be laid; they just cannot grow.
* A hit that would not fit the book anyway is reported by the base rule
  (A9.2) first.
"""

from __future__ import annotations

from ..core.commands import Hit
from . import VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="hit-runs-only",
    summary="Hit only onto runs, never onto books.",
    doc=__doc__,
)


@hookimpl
def tonk_veto(state, command, ruleset):
    if type(command) is Hit and state.table[command.target].kind == "book":
        return VARIANT.illegal("HIT_DOES_NOT_FIT", f"{command.target} is a book, and only runs may be hit")
    return None
