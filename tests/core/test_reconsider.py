"""Re-adjudicating a recorded game under other house rules (tonk.application.reconsider)."""

from __future__ import annotations

import random
import types

import msgspec
import pytest

from tonk.variants import load_ruleset
from tonk.core import Game, IllegalAction, RulesetError
from tonk.core.cards import RANK_OF
from tonk.core.commands import Discard, DrawStock, Knock
from tonk.application.reconsider import reconsider, to_builtins
from tonk.variants.loading import build_ruleset, parse_option_pairs
from tonk.variants import VariantInfo, hookimpl
from tonk.variants.registry import Registry


def kings_stay_variant() -> types.ModuleType:
    """A test house rule: kings may not be discarded."""
    mod = types.ModuleType("kings_stay")
    mod.VARIANT = VariantInfo("kings-stay", "kings may not be discarded")

    @hookimpl
    def tonk_veto(state, command, ruleset):
        if isinstance(command, Discard) and RANK_OF.get(command.card) == "K":
            return IllegalAction("NO_KING_DISCARD", "V:kings-stay", f"{command.card}: kings may not be discarded")
        return None

    mod.tonk_veto = tonk_veto
    return mod


@pytest.fixture
def registry() -> Registry:
    import tonk.variants.classic as classic

    reg = Registry()
    reg.add(classic, "tonk", "0.1.0", "builtin")
    reg.add(kings_stay_variant(), "tests", "1", "test")
    return reg


def play_game(seed: int, *, hands: int = 2, policy=None, options=None, registry=None) -> Game:
    ruleset = load_ruleset((), options, registry=registry) if registry else load_ruleset((), options)
    game = Game.new(["ann", "bob", "cy"], ruleset=ruleset, seed=seed, dealer="cy")
    rng = random.Random(seed)
    for _ in range(hands):
        game.deal()
        while game.in_hand:
            actions = game.legal_actions()
            game.play(policy(game, actions, rng) if policy else rng.choice(actions))
    game.end()
    return game


def discard_kings_first(game, actions, rng):
    """Draw, then discard a king when holding one, else knock late in the hand."""
    if any(isinstance(a, DrawStock) for a in actions):
        if game.state.turn_no > 9:
            return next(a for a in actions if isinstance(a, Knock))
        return next(a for a in actions if isinstance(a, DrawStock))
    kings = [a for a in actions if isinstance(a, Discard) and RANK_OF[a.card] == "K"]
    discards = [a for a in actions if isinstance(a, Discard)]
    return kings[0] if kings else discards[0]


def test_the_same_rules_change_nothing():
    game = play_game(11, hands=3)
    result = reconsider(game.events, load_ruleset((), dict(game.events[0].ruleset.options)))
    assert [h.status for h in result.hands] == ["same"] * 3
    assert not result.changed and result.complete
    assert result.net == result.recorded_net == game.net
    for h in result.hands:
        assert h.replayed == h.actions and h.unplayed == 0 and not h.illegal and not h.differences


def test_an_illegal_action_is_named_and_stops_its_hand(registry):
    game = play_game(5, hands=2, policy=discard_kings_first, registry=registry)
    rules = build_ruleset(["kings-stay"], registry=registry)
    result = reconsider(game.events, rules)
    stopped = [h for h in result.hands if h.status == "stopped"]
    assert stopped, "the policy discards a king in some hand"
    h = stopped[0]
    (step,) = h.illegal
    assert (step.code, step.rule) == ("NO_KING_DISCARD", "V:kings-stay")
    assert step.action.startswith("discard K")
    recorded = game.events[step.seq - 1]
    assert isinstance(recorded, msgspec.Struct) and type(recorded).__name__ == "CardDiscarded"
    assert recorded.card == step.action.split()[-1] and recorded.player == step.player
    assert h.reconsidered is None and h.recorded is not None
    assert h.replayed + 1 + h.unplayed == h.actions
    assert not result.complete
    assert result.rules.variants == ("kings-stay",)


def test_a_different_payout_scheme_changes_the_ledger_not_the_play():
    # find a recorded knock that was caught: the caught schemes differ there
    for seed in range(60):
        game = play_game(seed, hands=1)
        end = game.last_ending
        if end.end == "knock" and end.outcome != "knocker_won":
            break
    else:  # pragma: no cover
        pytest.fail("no caught knock in 60 random games")
    spec = game.events[0].ruleset
    result = reconsider(game.events, build_ruleset((), ["caught_scheme=double_flat"], carry_from=spec))
    (h,) = result.hands
    assert h.replayed == h.actions
    assert h.reconsidered.end == h.recorded.end == "knock"
    assert h.reconsidered.totals == h.recorded.totals
    # pagat (recorded) and double_flat pay a caught knocker's debts differently
    assert h.status == "different"
    assert any(d.startswith("payout to") for d in h.differences)
    assert sum(h.reconsidered.net.values()) == 0
    assert result.net != result.recorded_net


def test_a_turn_cap_ends_a_hand_early():
    game = play_game(8, hands=1, policy=discard_kings_first)
    assert game.last_ending.end == "knock"
    result = reconsider(game.events, build_ruleset((), ["max_turns_per_hand=3"]))
    (h,) = result.hands
    assert h.status == "ended_early"
    assert h.reconsidered.end == "turn_cap" and h.reconsidered.net == {"ann": 0, "bob": 0, "cy": 0}
    assert h.unplayed > 0 and h.replayed + h.unplayed == h.actions
    assert h.differences[0].startswith(f"the hand ends after {h.replayed} of {h.actions}")


def test_a_hand_the_recording_capped_is_unfinished_without_the_cap():
    game = play_game(8, hands=1, policy=discard_kings_first, options={"max_turns_per_hand": 4})
    assert game.last_ending.end == "turn_cap"
    result = reconsider(game.events, build_ruleset((), ["max_turns_per_hand=0"], carry_from=game.events[0].ruleset))
    (h,) = result.hands
    assert h.status == "unfinished" and h.reconsidered is None and h.replayed == h.actions


def test_recorded_options_are_carried_unless_overridden():
    spec = load_ruleset((), {"base_stake": 3, "max_turns_per_hand": 50}).spec
    carried = build_ruleset((), [], carry_from=spec)
    assert carried.options["base_stake"] == 3 and carried.options["max_turns_per_hand"] == 50
    overridden = build_ruleset((), ["base_stake=2"], carry_from=spec)
    assert overridden.options["base_stake"] == 2 and overridden.options["max_turns_per_hand"] == 50
    assert build_ruleset((), []).options["base_stake"] == 1


def test_a_different_deal_size_deals_other_hands_from_the_same_deck():
    game = play_game(3, hands=1)
    result = reconsider(game.events, build_ruleset((), ["cards_per_player=7"]))
    (h,) = result.hands
    assert h.note == "the same deck order deals other hands under these rules"
    assert h.status != "same"


def test_bad_option_text_is_a_ruleset_error():
    with pytest.raises(RulesetError, match="NAME=VALUE"):
        parse_option_pairs(["base_stake"])
    with pytest.raises(RulesetError, match="unknown option 'nope'"):
        build_ruleset((), ["nope=1"])
    with pytest.raises(RulesetError, match="whole number"):
        build_ruleset((), ["base_stake=two"])
    with pytest.raises(RulesetError, match="given twice"):
        build_ruleset((), ["base_stake=2"], options={"base_stake": 3})
    with pytest.raises(RulesetError, match="unknown variant"):
        build_ruleset(["no-such-variant"], [])


def test_json_shape_is_plain_data():
    game = play_game(2, hands=1)
    data = to_builtins(reconsider(game.events, build_ruleset((), ["caught_scheme=double_flat"])))
    assert set(data) == {"game_id", "recorded_rules", "rules", "hands", "recorded_net", "net", "complete"}
    (h,) = data["hands"]
    assert set(h) == {
        "hand_no", "dealer", "status", "actions", "replayed", "unplayed",
        "recorded", "reconsidered", "illegal", "differences", "note",
    }
    assert set(h["recorded"]) == {"end", "player", "players", "outcome", "totals", "ledger", "net"}
