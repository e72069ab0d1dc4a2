"""Helpers for building positions in the core tests."""

from __future__ import annotations

import pytest

from tonk.variants import load_ruleset
from tonk.core import Game
from tonk.core.events import SpreadFacts


def position(
    hands: dict[str, list[str]],
    *,
    top: str | None = "KH",
    stock_top: tuple[str, ...] = (),
    empty_stock: bool = False,
    table: tuple[tuple[str, str, tuple[str, ...]], ...] = (),
    to_act: str | None = None,
    dealer: str | None = None,
    variants: tuple[str, ...] = (),
    options: dict | None = None,
) -> Game:
    """A game at the start of ``to_act``'s turn.  Cards not placed go into the stock
    (after ``stock_top``), or under the discard top with ``empty_stock``."""
    ruleset = load_ruleset(variants, options)
    players = list(hands)
    used = {c for h in hands.values() for c in h} | set(stock_top) | {c for _, _, cs in table for c in cs}
    if top:
        used.add(top)
    rest = [c for c in ruleset.deck if c not in used]
    if empty_stock:
        stock: list[str] = list(stock_top)
        discard = ([top] if top else []) + rest
    else:
        stock = list(stock_top) + rest
        discard = [top] if top else []
    spreads = []
    for sid, owner, cards in table:
        shape = ruleset.check_spread(list(cards), {})
        spreads.append(SpreadFacts(sid, owner, shape.kind, tuple(shape.cards)))
    dealer = dealer or players[-1]
    return Game.from_position(
        players,
        dealer=dealer,
        hands=hands,
        stock=stock,
        discard=discard,
        table=tuple(spreads),
        to_act=to_act or players[(players.index(dealer) + 1) % len(players)],
        ruleset=ruleset,
    )


@pytest.fixture(name="position")
def position_fixture():
    """``position(hands, ...)``: build a game at a mid-hand position."""
    return position
