"""Properties of random legal play (hypothesis): conservation, zero-sum, replay, legality."""

from __future__ import annotations

import itertools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tonk.variants import load_ruleset
from tonk.core import Game, IllegalAction, decide
from tonk.application.audit import audit_pinned
from tonk.core.commands import Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
from tonk.core.legal import discard_commands, turn_start_commands
from tonk.core.settlement import net_of
from tonk.core.state import conservation_problem

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def every_command(game: Game) -> list:
    """A broad superset of what the player to act could ask: every action with every card."""
    st_ = game.state
    out = []
    for p in st_.players:
        out += [Knock(p), DrawStock(p), DrawDiscard(p)]
    p = st_.to_act
    hand = st_.hands[p]
    for card in hand + ["AS", "KD"]:
        out.append(Discard(p, card))
        for sid in list(st_.table) + ["S99"]:
            out.append(Hit(p, card, sid))
    for size in (2, 3, 4):
        for combo in itertools.combinations(hand, size):
            out.append(LaySpread(p, combo))
    return out


def key(cmd) -> object:
    """Commands compared as the rules see them: a spread's cards in any order."""
    if isinstance(cmd, LaySpread):
        return ("spread", cmd.player, frozenset(cmd.cards))
    return repr(cmd)


def play_random_game(seed: int, players: int, hands: int, check_legal_sets: bool = False) -> Game:
    rng = random.Random(seed)
    names = [f"p{i}" for i in range(players)]
    game = Game.new(names, seed=seed, ruleset=load_ruleset((), {"max_turns_per_hand": 120}))
    for _ in range(hands):
        game.deal()
        assert conservation_problem(game.state, game.ruleset.deck) is None
        steps = 0
        while game.in_hand:
            legal = game.legal_actions()
            assert legal, "a player in a live hand always has a legal action"
            if check_legal_sets:
                legal_set = set(map(key, legal))
                for cmd in every_command(game):
                    try:
                        decide(game.state, cmd, game.ruleset)
                        accepted = True
                    except IllegalAction:
                        accepted = False
                    # every generated action is accepted, every rejected one is absent
                    assert accepted == (key(cmd) in legal_set), cmd
            patient = [a for a in legal if not isinstance(a, Knock)]
            game.play(rng.choice(patient if patient and rng.random() < 0.97 else legal))
            assert conservation_problem(game.state, game.ruleset.deck) is None
            steps += 1
            assert steps < 1000
        ending = game.last_ending
        assert all(p.from_ != p.to and p.amount > 0 for p in ending.ledger)
        assert sum(net_of(game.players, ending.ledger).values()) == 0
        assert sum(game.net.values()) == 0
    game.end()
    return game


@SETTINGS
@given(seed=st.integers(0, 2**32), players=st.integers(2, 3))
def test_random_play_keeps_the_invariants(seed, players):
    game = play_random_game(seed, players, hands=3)
    # fold(events) equals the live state
    assert game.fold() == game.state
    # every recorded game audits clean
    assert audit_pinned(game.events).findings == []


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 3))
def test_legal_actions_are_exactly_what_decide_accepts(seed, players):
    play_random_game(seed, players, hands=1, check_legal_sets=True)


def test_the_shared_commands_are_the_commands_their_names_build():
    """``turn_start_commands`` and ``discard_commands`` (used by legal_actions and the audit)
    give the values new commands would have, each built once per player (and card)."""
    start = turn_start_commands("ann")
    assert start == (Knock("ann"), DrawStock("ann"), DrawDiscard("ann"))
    assert turn_start_commands("ann") is start
    discard = discard_commands("ann")["7H"]
    assert discard == Discard("ann", "7H")
    assert discard_commands("ann")["7H"] is discard
    assert discard_commands("bob")["7H"] == Discard("bob", "7H")


def test_same_seed_same_game():
    a = play_random_game(123, 3, hands=2)
    b = play_random_game(123, 3, hands=2)
    assert a.events == b.events
