"""Random legal play under random combinations of compatible variants keeps the base game's invariants:
every card exactly once, zero-sum ledgers, fold(events) == live state, a clean audit, every hand ends,
and a player to act always has a legal action."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from variant_helpers import CATALOGUE

from tonk.variants import load_ruleset
from tonk.core import Game, Ruleset, RulesetError
from tonk.core.audit import conservation_problem
from tonk.application.audit import audit_pinned
from tonk.core.commands import Knock
from tonk.core.events import HandEnded
from tonk.core.legal import legal_actions

MAX_TURNS = 70


def _options(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Options worth varying for a variant (required ones always given)."""
    b = st.booleans()
    return {
        "jokers-wild": st.fixed_dictionaries({"joker_value": st.sampled_from([0, 1, 25]), "min_natural_cards": st.sampled_from([1, 2])}),
        "deuces-wild": st.fixed_dictionaries({"deuce_value": st.sampled_from([0, 2])}),
        "caught-scheme": st.fixed_dictionaries({"caught_scheme": st.sampled_from(["pagat", "double_to_catchers_only", "double_to_low_only", "dropper_pays_all_stakes", "pagat_without_knocker_base"])}),
        "cards-per-player": st.fixed_dictionaries({"cards_per_player": st.sampled_from([3, 5, 7])}),
        "mandatory-laydown": st.fixed_dictionaries({"reading": st.sampled_from(["spread", "ace"]), "check_point": st.sampled_from(["after_discard", "before_discard"]), "enforce_at_knock": b, "exempt_three_aces": b}),
        "discard-pick-must-meld": st.fixed_dictionaries({"pick_may_hit": b}),
        "hit-penalty": st.fixed_dictionaries({"turns_per_hit": st.sampled_from([1, 3]), "stacking": st.sampled_from(["additive", "none"]), "count_own_hits": b}),
        "one-hit-per-turn": st.fixed_dictionaries({"count_hits_on_new_spreads": b}),
        "more-players": st.fixed_dictionaries({"max_players": st.sampled_from([4, 5])}),
        "knock-limit": st.fixed_dictionaries({"max_knock_count": st.sampled_from([5, 20])}),
        "double-requires-new-spread": st.fixed_dictionaries({"new_spread_scope": st.sampled_from(["going_out_turn", "final_action", "whole_hand"])}),
        "low-initial-tonk": st.fixed_dictionaries({"low_tonk_max": st.sampled_from([13, 18])}),
        "initial-tonk-totals": st.fixed_dictionaries({"initial_tonk_totals": st.sampled_from([[49, 50, 11], [30]])}),
    }.get(name, st.just({}))


@st.composite
def rulesets(draw) -> Ruleset:
    names = draw(st.lists(st.sampled_from(CATALOGUE), max_size=5, unique=True))
    options: dict[str, Any] = {"max_turns_per_hand": MAX_TURNS}
    for n in names:
        options.update(draw(_options(n)))
    try:
        return load_ruleset(names, options)
    except RulesetError:  # a declared conflict or an over-full table: not a compatible combination
        assume(False)
        raise  # pragma: no cover


def _check_hand_end(game: Game) -> None:
    ended = game.events[-1]
    assert isinstance(ended, HandEnded)
    assert sum(p.amount for p in ended.ledger) >= 0 and all(p.amount > 0 and p.from_ != p.to for p in ended.ledger)
    net = dict.fromkeys(game.players, 0)
    for p in ended.ledger:
        net[p.from_] -= p.amount
        net[p.to] += p.amount
    assert sum(net.values()) == 0
    assert ended.totals == {p: game.ruleset.hand_total(ended.hands[p]) for p in game.players}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rs=rulesets(), data=st.data())
def test_random_play_under_compatible_variants_keeps_the_invariants(rs, data):
    lo, hi = rs.player_range
    n = data.draw(st.integers(lo, min(hi, 5)), label="players")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    rng = random.Random(seed)
    game = Game.new([f"p{i}" for i in range(n)], ruleset=rs, seed=seed)
    for _ in range(2):
        game.deal()
        assert conservation_problem(game.state, rs.deck) is None
        steps = 0
        while game.in_hand:
            acts = legal_actions(game.state, rs)
            assert acts, f"{game.to_act} has no legal action under {rs.variants}"
            calm = [a for a in acts if not isinstance(a, Knock)]
            game.play(rng.choice(calm if calm and rng.random() < 0.95 else acts))
            problem = conservation_problem(game.state, rs.deck)
            assert problem is None, problem
            steps += 1
            assert steps <= MAX_TURNS * 40, "the hand did not end"
        _check_hand_end(game)
    assert sum(game.net.values()) == 0
    assert game.fold() == game.state
    report = audit_pinned(game.events)
    assert report.clean, report.findings
