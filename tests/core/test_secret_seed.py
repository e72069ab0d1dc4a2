"""Deals that are secret as long as they must be: a game started without a seed draws one from
the OS CSPRNG, keeps it out of the log while the game is live and records it at its end."""

from __future__ import annotations

import uuid

from tonk.core import Game
from tonk.variants import load_ruleset
from tonk.core.events import GameEnded, HandDealt, encode


def _play_hands(g: Game, hands: int) -> None:
    for _ in range(hands):
        g.deal()
        while g.in_hand:
            g.play(g.legal_actions()[0])


def test_unseeded_games_do_not_share_a_cut_or_a_first_dealer():
    games = [Game.new(["ann", "bob"], ruleset=load_ruleset()) for _ in range(40)]
    assert len({g.events[0].cut for g in games}) > 30
    assert {g.events[0].dealer for g in games} == {"ann", "bob"}


def test_a_live_unseeded_game_records_no_seed_and_a_random_id():
    g = Game.new(["ann", "bob", "cy"], ruleset=load_ruleset())
    _play_hands(g, 2)
    assert uuid.UUID(g.game_id).version == 4
    seed = g._seed  # the secret, known only to the engine while the game is live
    assert all(str(seed) not in encode(e).decode() for e in g.events)


def test_the_seed_recorded_at_the_end_reproduces_the_cut_and_every_deck():
    g = Game.new(["ann", "bob", "cy"], ruleset=load_ruleset())
    _play_hands(g, 3)
    ended = g.end()
    assert ended.seed.isdigit() and int(ended.seed) >= 0
    again = Game.new(["ann", "bob", "cy"], ruleset=load_ruleset(), seed=int(ended.seed), game_id=g.game_id)
    assert again.events[0] == g.events[0]  # the same cut, the same first dealer
    decks = [e.deck for e in g.events if isinstance(e, HandDealt)]
    for deck in decks:
        again.deal()
        assert again.state.dealt.deck == deck
        while again.in_hand:  # the hands play on, so the next deal follows
            again.play(again.legal_actions()[0])


def test_a_seeded_game_ends_without_a_seed_field_in_its_bytes():
    g = Game.new(["ann", "bob"], ruleset=load_ruleset(), seed=5)
    ended = g.end()
    assert ended.seed == ""
    assert b"seed" not in encode(ended)
    assert encode(ended) == encode(GameEnded(reason="closed", net=dict(ended.net)))


def test_a_games_own_shuffle_seeds_are_the_draws_of_its_seed_in_order():
    """``Game.deal()`` without a deck or a seed takes each hand's shuffle seed from
    ``random.Random(game seed)``, draw after draw; a hand dealt from a given deck draws none
    (the source is made at the first deal that needs it: the decks are those of a source
    made with the game)."""
    import random

    from tonk.core.dealing import shuffled

    ruleset = load_ruleset()
    g = Game.new(["ann", "bob", "cy"], ruleset=ruleset, seed=11)
    source = random.Random(11)
    g.deal(deck=list(reversed(ruleset.deck)))
    for _ in range(3):
        while g.in_hand:
            g.play(g.legal_actions()[0])
        g.deal()
        assert g.state.dealt is not None
        assert g.state.dealt.deck == tuple(shuffled(ruleset.deck, source.getrandbits(63)))
