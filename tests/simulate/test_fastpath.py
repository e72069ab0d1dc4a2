"""The fast paths of legal-action generation and of hook calls agree with the reference paths.

``legal_actions`` (no ``decide`` per candidate) must give exactly the list of
``legal_actions_checked`` (every candidate confirmed by ``decide``), in the
same order; and ``decide`` with direct hook calls must give exactly the events
it gives when every hook goes through pluggy.  Checked on random positions
under every installed variant and a spread of options.
"""

from __future__ import annotations

import random

import pytest

from tonk.variants import load_ruleset
from tonk.core import DealHand, Game, IllegalAction, Ruleset, decide
from tonk.core.legal import candidate_actions, legal_actions, legal_actions_checked
from sim_helpers import required_options
from tonk.variants.registry import default_registry

OPTION_SETS = [
    {},
    {"knock_timing": "before_discard"},
    {"cards_per_player": 7},
    {"max_turns_per_hand": 3},
    {"stock_tie": "draw", "caught_scheme": "double_to_low_only"},
]


def rulesets():
    out = [(name, (), opts) for name, opts in [("classic", o) for o in OPTION_SETS]]
    for name in default_registry().names():
        if name != "classic":
            out.append((name, (name,), required_options(name)))
    return out


def _build(variants, options, *, trace=False):
    """The ruleset (a variant that cannot be built is a failure, never a skip)."""
    return load_ruleset(variants, options, trace=trace)


def _walk(ruleset: Ruleset, seed: int, hands: int):
    """Yield every position of ``hands`` random hands (patient play: few knocks)."""
    rng = random.Random(seed)
    lo, hi = ruleset.player_range
    players = [f"P{i}" for i in range(1, rng.randint(lo, min(hi, 4)) + 1)]
    game = Game.new(players, ruleset=ruleset, seed=seed)
    for _ in range(hands):
        game.deal()
        steps = 0
        while game.in_hand and steps < 400:
            yield game
            legal = game.legal_actions()
            patient = [a for a in legal if type(a).__name__ != "Knock"]
            game.play(rng.choice(patient if patient and rng.random() < 0.95 else legal))
            steps += 1
        while game.in_hand:  # the empty-stock dance went on: end it with a knock
            game.play(_end_now(game))


def _end_now(game):
    from tonk.core import Knock

    return Knock(game.to_act) if not game.state.drew else next(a for a in game.legal_actions() if type(a).__name__ == "Discard")


@pytest.mark.parametrize("label,variants,options", rulesets())
def test_fast_legal_actions_equal_the_checked_ones(label, variants, options):
    ruleset = _build(variants, options)
    positions = 0
    for seed in range(6):
        for game in _walk(ruleset, seed, hands=4):
            fast = legal_actions(game.state, ruleset)
            checked = legal_actions_checked(game.state, ruleset)
            assert fast == checked
            positions += 1
    assert positions > 50


@pytest.mark.parametrize("label,variants,options", rulesets())
def test_every_candidate_outside_the_fast_list_is_rejected_by_decide(label, variants, options):
    ruleset = _build(variants, options)
    for seed in range(3):
        for game in _walk(ruleset, 100 + seed, hands=3):
            fast = legal_actions(game.state, ruleset)
            for cmd in candidate_actions(game.state, ruleset):
                try:
                    decide(game.state, cmd, ruleset)
                    accepted = True
                except IllegalAction:
                    accepted = False
                assert accepted == (cmd in fast), cmd


@pytest.mark.parametrize("label,variants,options", rulesets())
def test_direct_hook_calls_give_the_same_events_as_pluggy(label, variants, options):
    fast_rs = _build(variants, options)
    slow_rs = _build(variants, options, trace=True)
    assert _through_pluggy(slow_rs) and not _through_pluggy(fast_rs)  # really the two paths
    compared = 0
    for seed in range(4):
        for game in _walk(fast_rs, 200 + seed, hands=4):
            for cmd in legal_actions(game.state, fast_rs):
                assert decide(game.state, cmd, fast_rs) == decide(game.state, cmd, slow_rs)
                compared += 1
    assert compared > 100


def _through_pluggy(ruleset: Ruleset) -> bool:
    """Whether a knock outcome asked of ``ruleset`` goes through pluggy's hook caller (its call
    monitoring sees it)."""
    seen: list[str] = []
    undo = ruleset.pm.add_hookcall_monitoring(lambda name, impls, kwargs: seen.append(name), lambda *a: None)
    try:
        ruleset.knock_outcome("a", {"a": 1, "b": 2})
    finally:
        undo()
    return seen == ["tonk_knock_outcome"]


def test_the_classic_base_game_uses_direct_calls():
    from tonk.variants import classic

    rs = load_ruleset()
    assert rs.natural_hits and rs.natural_spreads
    assert not rs.settle_reads_state and not rs.has_turn_end and not rs.has_vetoes
    assert rs.hooks.tonk_knock_outcome is classic.tonk_knock_outcome  # the implementation itself, nothing between


def test_the_spread_precheck_is_exact_for_natural_hands():
    """``natural_spread_possible`` (bit masks) answers exactly whether some three cards of the
    hand pass the readable spread rule ``check_natural_spread``."""
    from itertools import combinations

    from tonk.core.cards import STANDARD_DECK
    from tonk.core.spreads import check_natural_spread, natural_spread_possible

    def holds_a_spread(hand):
        for three in combinations(hand, 3):
            try:
                check_natural_spread(list(three))
            except IllegalAction:
                continue
            return True
        return False

    rng = random.Random(5)
    for _ in range(3000):
        hand = rng.sample(STANDARD_DECK, rng.randint(0, 12))
        assert natural_spread_possible(hand) == holds_a_spread(hand), hand
    assert natural_spread_possible(["X1", "2S", "9D"])  # a joker: always ask the hook


def test_the_hit_rule_agrees_with_the_hit_check():
    """``natural_hit_fits`` (the generator's question) is true exactly when ``check_natural_hit``
    accepts the card, on every card against books and runs of every size."""
    from tonk.core.cards import STANDARD_DECK
    from tonk.core.spreads import check_natural_hit, natural_hit_fits

    spreads = [("book", ("7S", "7H", "7D")), ("book", ("7S", "7H", "7D", "7C")), ("run", ("AS", "2S", "3S")), ("run", ("JH", "QH", "KH")), ("run", ("4D", "5D", "6D", "7D"))]
    for kind, cards in spreads:
        for card in STANDARD_DECK:
            if card in cards:
                continue
            try:
                check_natural_hit(kind, cards, card)
                accepted = True
            except IllegalAction:
                accepted = False
            assert natural_hit_fits(kind, cards, card) == accepted, (kind, cards, card)


def test_state_copy_copies_every_slot_and_shares_no_mutable_part():
    from tonk.core.state import State

    ruleset = load_ruleset()
    for game in _walk(ruleset, 7, hands=2):
        st = game.state
        if st.table and st.drew:
            break
    cp = st.copy()
    for slot in State.__slots__:
        assert getattr(cp, slot) == getattr(st, slot), slot
    for slot in ("net", "hands", "stock", "discard", "table", "turn_spreads", "hand_log"):
        assert getattr(cp, slot) is not getattr(st, slot), slot
    for p in st.hands:
        assert cp.hands[p] is not st.hands[p]
    for k in st.table:
        assert cp.table[k] is not st.table[k]


@pytest.mark.parametrize("label,variants,options", rulesets() + [("classic-wide-tonks", (), {"initial_tonk_totals": [20, 30, 35, 40, 49, 50]})])
def test_deals_with_direct_hook_calls_give_the_same_events_as_pluggy(label, variants, options):
    """The deal and its initial-tonk check give the same events with the direct hook calls as
    through pluggy, on many decks (a wide option makes tonks common)."""
    fast_rs = _build(variants, options)
    slow_rs = _build(variants, options, trace=True)
    lo, _hi = fast_rs.player_range
    game = Game.new([f"P{i}" for i in range(1, max(lo, 3) + 1)], ruleset=fast_rs, seed=9)
    rng = random.Random(label)
    endings = 0
    for _ in range(300):
        deck = list(fast_rs.deck)
        rng.shuffle(deck)
        cmd = DealHand(deck=tuple(deck))
        got = decide(game.state, cmd, fast_rs)
        assert got == decide(game.state, cmd, slow_rs)
        endings += len(got) > 1
    if label == "classic-wide-tonks":
        assert endings > 10


def test_the_strict_knock_outcome_is_the_rule():
    from tonk.core.settlement import knock_outcome_strict

    rng = random.Random(3)
    for _ in range(5000):
        seats = [f"P{i}" for i in range(rng.randint(2, 6))]
        totals = {p: rng.randint(0, 12) for p in seats}
        knocker = rng.choice(seats)
        won = all(totals[knocker] < t for p, t in totals.items() if p != knocker)
        assert knock_outcome_strict(knocker, totals) == ("knocker_won" if won else "knocker_caught")
