"""How a hand ends and who pays whom (A12, with B-01 to B-06 and the caught schemes of C6).

Amounts are in base-stake units (B-27); each payment is one ledger line
(payer, payee, amount, reason) and every ledger is zero-sum.
"""

from __future__ import annotations

from typing import Iterable

import msgspec

from .events import Payment

CAUGHT_SCHEMES = (
    "pagat",
    "double_to_catchers_only",
    "double_to_low_only",
    "double_to_low_plus_others_base",
    "dropper_pays_all_stakes",
    "double_flat",
    "pagat_without_knocker_base",
)
STOCK_TIES = ("split_as_catch", "draw")


class Ending(msgspec.Struct):
    """The facts a settlement needs.

    ``end``: ``initial_tonk``, ``initial_tonk_draw``, ``tonk_out``,
    ``out_by_discard``, ``knock``, ``stock_exhausted`` or ``turn_cap``;
    ``player``: the tonker, the player going out, the knocker, or who asked
    for the empty stock; ``players``: the tonkers of a draw; ``outcome`` of a
    knock; ``totals``: every hand total; ``seats``: players in seat order.
    """

    end: str
    seats: tuple[str, ...]
    totals: dict[str, int] = {}
    player: str | None = None
    players: tuple[str, ...] = ()
    outcome: str | None = None


def from_each(winner: str, seats: tuple[str, ...], amount: int, reason: str) -> list[Payment]:
    """``amount`` from every other player to ``winner``."""
    # plain loops here and below: a comprehension builds a function at every call in
    # Python 3.11, and a hand's settlement runs once a hand (the same lists)
    ledger = []
    for p in seats:
        if p != winner:
            ledger.append(Payment(p, winner, amount, reason))
    return ledger


def lowest(players: list[str] | tuple[str, ...], totals: dict[str, int]) -> list[str]:
    """The players with the lowest total among ``players``, in seat order."""
    low: list[str] = []
    low_total = 0
    for p in players:
        t = totals[p]
        if not low or t < low_total:
            low, low_total = [p], t
        elif t == low_total:
            low.append(p)
    return low


def to_lowest(low: list[str], payers: list[str] | tuple[str, ...], amount: int, reason: str) -> list[Payment]:
    """Each of ``low`` gets ``amount`` from every payer not in ``low`` (tied players do not pay each other, B-03)."""
    ledger = []
    for w in low:
        for p in payers:
            if p not in low:
                ledger.append(Payment(p, w, amount, reason))
    return ledger


def knock_outcome_strict(knocker: str, totals: dict[str, int]) -> str:
    """The knocker wins only when strictly lower than every other player (A12.4, B-01)."""
    mine = totals[knocker]
    for p, t in totals.items():
        if t <= mine and p != knocker:
            return "knocker_caught"
    return "knocker_won"


def settle_caught(knocker: str, seats: tuple[str, ...], totals: dict[str, int], scheme: str) -> list[Payment]:
    """Payments when the knocker is not strictly lowest (A12.5-A12.7, B-02 to B-04, C6 ``caught-scheme``).

    The catchers are the others at or below the knocker; the lowest of the others are
    found by :func:`lowest`."""
    others = list(seats)  # the seats but the knocker (each seat is there once), in seat order
    if knocker in others:
        others.remove(knocker)
    low = lowest(others, totals)
    ledger: list[Payment] = []
    if scheme in ("pagat", "double_to_catchers_only", "double_flat", "pagat_without_knocker_base"):
        k = totals[knocker]
        for p in others:
            if totals[p] <= k:  # a catcher
                ledger.append(Payment(knocker, p, 2, "caught_penalty"))
        if scheme == "pagat":
            ledger += to_lowest(low, seats, 1, "low_hand")
        elif scheme == "pagat_without_knocker_base":
            ledger += to_lowest(low, others, 1, "low_hand")
    elif scheme == "double_to_low_only":
        ledger += [Payment(knocker, p, 2, "caught_penalty") for p in low]
    elif scheme == "double_to_low_plus_others_base":
        ledger += [Payment(knocker, p, 2, "caught_penalty") for p in low]
        ledger += to_lowest(low, others, 1, "low_hand")
    elif scheme == "dropper_pays_all_stakes":
        ledger += [Payment(knocker, p, len(seats) - 1, "caught_penalty") for p in low]
    else:  # pragma: no cover - options are validated
        raise ValueError(f"unknown caught scheme {scheme!r}")
    return ledger


def _ender(ending: Ending) -> str:
    """The player who ended the hand: the tonker, the player going out, the knocker."""
    if ending.player is None:
        raise ValueError(f"a {ending.end} ending names no player")
    return ending.player


def settle_classic(ending: Ending, options: dict) -> list[Payment]:
    """The base game's ledger for any ending (A5.2, A5.3, A12)."""
    e = ending.end
    seats = ending.seats
    if e == "initial_tonk":
        return from_each(_ender(ending), seats, 2, "initial_tonk")
    if e == "tonk_out":
        return from_each(_ender(ending), seats, 2, "tonk_out")
    if e == "out_by_discard":
        return from_each(_ender(ending), seats, 1, "out_by_discard")
    if e == "knock":
        if ending.outcome == "knocker_won":
            return from_each(_ender(ending), seats, 1, "knock_win")
        return settle_caught(_ender(ending), seats, ending.totals, options.get("caught_scheme", "pagat"))
    if e == "stock_exhausted":
        low = lowest(seats, ending.totals)
        if len(low) > 1 and options.get("stock_tie", "split_as_catch") == "draw":
            return []
        return to_lowest(low, seats, 1, "stock_exhausted_low")
    # initial_tonk_draw, turn_cap: nobody pays
    return []


def initial_tonkers(totals: dict[str, int], wanted) -> list[str]:
    """A5.1: the players whose dealt total is one of the ``wanted`` totals (the option
    ``initial_tonk_totals``), in seat order: the base game's answer to ``tonk_initial_tonks``."""
    tonkers = []
    for p, t in totals.items():
        if t in wanted:
            tonkers.append(p)
    return tonkers


def add_ledger(net: dict[str, int], ledger: Iterable[Payment]) -> dict[str, int]:
    """Add a ledger's payments to ``net`` (player -> net, changed in place and returned):
    the one home of ledger-to-net (the state's running net, a hand's net, the reports)."""
    for pay in ledger:
        net[pay.from_] -= pay.amount
        net[pay.to] += pay.amount
    return net


def net_of(seats: Iterable[str], ledger: list[Payment] | tuple[Payment, ...]) -> dict[str, int]:
    """Each seat's net of one ledger."""
    return add_ledger({p: 0 for p in seats}, ledger)
