"""``more-players`` (rules.md C2.6, B-22).

Allows tables of 2 up to ``max_players`` seats (base: 2-3).  Payouts need no
change: they scale with the number of payers (A12, B-03).

Decisions:

* ``max_players`` defaults to 4 (pagat "maybe 4", Wikipedia 2-4); larger
  tables are allowed up to the deck's capacity (B-22: with 5 cards and the
  upcard at most 10 players on 52 cards).  The capacity is checked by the
  ruleset for every seat count it allows, with the actual deal size and
  deck, so ``more-players`` with 7-card deals or a 40-card deck is refused
  with a clear message when ``max_players`` is too high.
"""

from __future__ import annotations

from . import OptionSpec, VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="more-players",
    summary="Allow 4 or more players, up to max_players (and what the deck can deal, B-22).",
    options=(OptionSpec("max_players", "int", 4, "the most seats at the table (the deck must still leave a stock)", minimum=2, maximum=25),),
    doc=__doc__,
)


@hookimpl
def tonk_player_range(ruleset):
    return (2, ruleset.options["max_players"])
