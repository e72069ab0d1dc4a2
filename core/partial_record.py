"""Reading a partial-knowledge explicit setup (cases/README.md, "Partial knowledge",
``format_version`` 2): places that hold cards nobody can name.

* ``stock``: a list of cards (top first) or ``{"unknown": N}``;
* a hand: a list, ``{"unknown": N}`` or ``{"cards": [...], "unknown": N}``;
* ``discard``: a list (top first) or ``{"cards": [top, ...], "unknown": N}``.

The named cards go to the record's ``hands``/``stock``/``discard`` and the counts to
``hand_unknown``/``stock_unknown``/``discard_unknown``.  That the counts add up to the
unseen cards of the deck is checked when the ruleset (and so the deck) is known
(:func:`tonk.core.partial.check_accounting`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .safe_json import json_shown

if TYPE_CHECKING:
    from .handrecord import HandRecord, RecordContext


def _count(ctx: "RecordContext", value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ctx.err(where, f"must be a whole number of cards, 0 or more, not {value!r}")
    return value


def _place(ctx: "RecordContext", value: Any, where: str, allowed: set[str]) -> tuple[list[str], int]:
    """A place's named cards and its unknown count: a list of cards, or an object with
    the ``allowed`` keys (``unknown`` required)."""
    if isinstance(value, list):
        return ctx.cards(value, where), 0
    if not isinstance(value, dict):
        shapes = "a list of cards or " + ('{"cards": [...], "unknown": N}' if "cards" in allowed else '{"unknown": N}')
        raise ctx.err(where, f"must be {shapes}, not {json_shown(value)}")
    extra = set(value) - allowed
    if extra:
        raise ctx.err(where, f"unknown field(s) {', '.join(sorted(map(str, extra)))} (allowed: {', '.join(sorted(allowed))})")
    if "unknown" not in value:
        raise ctx.err(f"{where}.unknown", "missing (the number of cards nobody can name)")
    cards = ctx.cards(value.get("cards", []), f"{where}.cards")
    return cards, _count(ctx, value["unknown"], f"{where}.unknown")


def read_partial_position(ctx: "RecordContext", setup: dict[str, Any], rec: "HandRecord") -> None:
    """An explicit setup of format version 2 into ``rec``; every named card at most once."""
    from .handrecord import read_table_and_turn

    players = rec.players
    known_fields = {"mode", "hands", "stock", "discard", "table", "to_act"}
    extra = set(setup) - known_fields
    if extra:
        raise ctx.err("setup", f"unknown field(s) {', '.join(sorted(map(str, extra)))}")
    hands = setup.get("hands")
    if not isinstance(hands, dict):
        raise ctx.err("setup.hands", "must map each player to a hand")
    for p in hands:
        if p not in players:
            raise ctx.err(f"setup.hands.{p}", "is not one of the players")
    for p in players:
        rec.hands[p], rec.hand_unknown[p] = _place(ctx, hands.get(p, []), f"setup.hands.{p}", {"cards", "unknown"})
    rec.stock, rec.stock_unknown = _place(ctx, setup.get("stock", []), "setup.stock", {"unknown"})
    rec.discard, rec.discard_unknown = _place(ctx, setup.get("discard", []), "setup.discard", {"cards", "unknown"})
    read_table_and_turn(ctx, setup, rec)
    # each card named at most once, the place named in the error
    where_of: dict[str, str] = {}
    places = [(f"setup.hands.{p}", rec.hands[p]) for p in players] + [("setup.stock", rec.stock), ("setup.discard", rec.discard)]
    places += [(f"setup.table[{i}]", s.cards) for i, s in enumerate(rec.table)]
    for where, cards in places:
        for c in cards:
            if c in where_of:
                raise ctx.err(where, f"card {c} is named twice (also in {where_of[c]})")
            where_of[c] = where
