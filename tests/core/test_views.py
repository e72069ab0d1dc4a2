"""Per-player views: a player never sees another player's hidden cards or the stock.

The property test plays random games and checks, after every event, the view
of that event and of the table for every player.  A card counts as hidden from
a player while the hand is in play if it lies in the stock, or in another
player's hand without having been shown in the open (the upcard, a discard, a
spread, a hit, a card taken from the discard pile).  The stock stays hidden
even after the hand ends; the hands are exposed at the end (A12.3).
"""

from __future__ import annotations

from random_games import random_game as shared_random_game

import random

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from tonk.variants import load_ruleset
from tonk.core import Game
from tonk.core.commands import Discard, DrawStock, Hit, Knock, LaySpread
from tonk.core.events import CardDiscarded, CardDrawn, CardHit, HandDealt, SpreadLaid
from tonk.core.views import AUDITOR, HIDDEN, event_view, player_view, visible_cards


def pick(rng: random.Random, actions: list):
    """A playful but not suicidal policy: seldom knock, often spread or hit, mostly draw from the stock."""
    melds = [a for a in actions if isinstance(a, (LaySpread, Hit))]
    if melds and rng.random() < 0.8:
        return rng.choice(melds)
    knocks = [a for a in actions if isinstance(a, Knock)]
    if knocks and rng.random() < 0.04:
        return knocks[0]
    draws = [a for a in actions if isinstance(a, DrawStock)]
    if draws and rng.random() < 0.7:
        return draws[0]
    discards = [a for a in actions if isinstance(a, Discard)]
    if discards and rng.random() < 0.9:
        return rng.choice(discards)
    return rng.choice([a for a in actions if not isinstance(a, Knock)] or actions)


def random_game(seed: int, players: int, hands: int, options: dict) -> Game:
    return shared_random_game(seed, players=["ann", "bob", "cy"][:players], hands=hands, options=options, max_turns=40, pick=pick)


def check_views(game: Game) -> int:
    """Check every view of every event; return the number of views checked."""
    replay = Game.replay([])
    public: set[str] = set()
    checked = 0
    for event in game.events:
        replay._apply(event)
        state = replay.state
        t = type(event)
        if t is HandDealt:
            public = set(event.discard[:1]) | {c for s in event.table for c in s.cards}
        elif t is CardDiscarded or (t is CardDrawn and event.source == "discard"):
            public.add(event.card)
        elif t is SpreadLaid:
            public |= set(event.cards)
        elif t is CardHit:
            public.add(event.card)
        stock = set(state.stock)
        for viewer in state.players:
            hidden = set(stock)
            if state.in_hand:
                for p, h in state.hands.items():
                    if p != viewer:
                        hidden |= set(h) - public
            ev = event_view(event, viewer)
            pv = msgspec.to_builtins(player_view(state, viewer))
            for what, data in (("event", ev), ("table", pv)):
                leaked = visible_cards(data) & hidden
                assert not leaked, f"{viewer} sees {sorted(leaked)} in the {what} view after {event!r}"
                checked += 1
            # the viewer's own hand is always shown to them, exactly
            assert sorted(pv["hand"]) == sorted(state.hands.get(viewer, []))
        # the auditor sees everything, including the whole stock in order
        av = player_view(state, AUDITOR)
        assert list(av.stock or ()) == list(reversed(state.stock))
        assert event_view(event, AUDITOR) == msgspec.to_builtins(event)
    return checked


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    players=st.integers(min_value=2, max_value=3),
    hands=st.integers(min_value=1, max_value=3),
    knock_timing=st.sampled_from(["start_of_turn", "before_discard"]),
)
def test_no_view_shows_another_players_hidden_cards(seed, players, hands, knock_timing):
    game = random_game(seed, players, hands, {"knock_timing": knock_timing})
    assert check_views(game) > 0


def test_stock_draws_are_hidden_from_the_others_and_shown_to_the_drawer():
    game = Game.new(["ann", "bob"], seed=1, dealer="bob", ruleset=load_ruleset())
    game.deal()
    assert game.in_hand
    (drawn,) = game.act("draw_stock")
    assert drawn.player == "ann"
    assert event_view(drawn, "ann")["card"] == drawn.card
    assert event_view(drawn, "bob")["card"] == HIDDEN
    assert player_view(game.state, "ann").drawn_card == drawn.card
    assert player_view(game.state, "bob").drawn_card is None
    assert player_view(game.state, "bob").hand_sizes["ann"] == 6


def test_the_deal_shows_a_player_only_their_own_hand_and_the_upcard():
    game = Game.new(["ann", "bob", "cy"], seed=4, dealer="cy", ruleset=load_ruleset())
    (dealt, *_) = game.deal()
    view = event_view(dealt, "bob")
    assert view["hands"]["bob"] == list(dealt.hands["bob"])
    assert view["hands"]["ann"] == [HIDDEN] * 5
    assert view["deck"] == [] and set(view["stock"]) == {HIDDEN}
    assert view["discard"] == [dealt.discard[0]]
    assert visible_cards(view) - {HIDDEN} <= set(dealt.hands["bob"]) | {dealt.discard[0]} | {
        "bob", "ann", "cy", "hand_dealt", dealt.commitment,
    }


def test_a_card_taken_from_the_discard_pile_is_seen_by_everyone():
    game = Game.new(["ann", "bob"], seed=2, dealer="bob", ruleset=load_ruleset())
    game.deal()
    top = game.state.discard_top
    (drawn,) = game.act("draw_discard")
    assert event_view(drawn, "bob")["card"] == top
    assert player_view(game.state, "bob").drawn_card == top


def test_hands_are_exposed_to_everyone_when_the_hand_ends_but_the_stock_is_not():
    game = Game.new(["ann", "bob"], seed=3, dealer="bob", ruleset=load_ruleset())
    game.deal()
    if game.in_hand:
        game.act("knock")
    view = player_view(game.state, "bob")
    assert view.hands is not None and set(view.hands) == {"ann", "bob"}
    assert view.stock is None
    assert player_view(game.state, AUDITOR).stock is not None


def test_a_stranger_has_no_view():
    game = Game.new(["ann", "bob"], seed=3, ruleset=load_ruleset())
    try:
        player_view(game.state, "eve")
    except KeyError as exc:
        assert "eve" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("a stranger got a view")
