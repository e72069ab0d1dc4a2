"""Bots: names, legality of their choices, what they may see, and greedy beating random."""

from __future__ import annotations

import random

import msgspec
from hidden_cards import hidden_swapped
import pytest

from tonk.variants import load_ruleset
from tonk.core import Game
from tonk.core.errors import SetupError
from tonk.core.bots import BOTS, BotError, GreedyBot, RandomBot, bot_names, make_bot, register_bot
from tonk.core.commands import DrawDiscard, DrawStock, Knock
from tonk.application.simulate import SimConfig, play_game, simulate
from tonk.core.views import PlayerView, player_view, visible_cards

from sim_helpers import required_options


def test_bot_names_and_unknown_bot():
    assert {"random", "greedy"} <= set(bot_names())
    assert isinstance(make_bot("random"), RandomBot)
    assert isinstance(make_bot("greedy"), GreedyBot)
    with pytest.raises(BotError, match="unknown bot 'nope'"):
        make_bot("nope")


def _positions(seed: int, hands: int, players: int = 3, options=None):
    """Live positions of a game played by greedy bots (the bot under test acts in each)."""
    ruleset = load_ruleset((), options or {})
    game = Game.new([f"P{i}" for i in range(1, players + 1)], ruleset=ruleset, seed=seed)
    bot = make_bot("greedy", ruleset.points)
    rng = random.Random(seed)
    for _ in range(hands):
        game.deal()
        while game.in_hand:
            legal = game.legal_actions()
            view = player_view(game.state, game.to_act)
            yield game, view, legal
            game.play(bot.choose(view, legal, rng))


@pytest.mark.parametrize("options", [{}, {"knock_timing": "before_discard"}, {"cards_per_player": 7}])
def test_greedy_choice_is_always_one_of_the_legal_actions(options):
    greedy = make_bot("greedy")
    randbot = make_bot("random")
    n = 0
    for game, view, legal in _positions(11, hands=40, options=options):
        assert greedy.choose(view, legal, random.Random(n)) in legal
        assert randbot.choose(None, legal, random.Random(n)) in legal
        n += 1
    assert n > 300


def test_random_bot_reaches_every_legal_action():
    legal = [Knock("P1"), DrawStock("P1"), DrawDiscard("P1")]
    rng = random.Random(1)
    seen = {type(make_bot("random").choose(None, legal, rng)) for _ in range(200)}
    assert seen == {Knock, DrawStock, DrawDiscard}



def test_a_bot_sees_only_its_players_view_two_positions_differing_in_hidden_cards():
    greedy = make_bot("greedy")
    compared = 0
    for game, view, legal in _positions(5, hands=30):
        me = game.to_act
        swapped = hidden_swapped(game.state, me)
        assert swapped.hands != game.state.hands or not swapped.stock  # something really moved
        view2 = player_view(swapped, me)
        assert view2 == view  # the view hides exactly what was moved
        a = greedy.choose(view, legal, random.Random(compared))
        b = greedy.choose(view2, legal, random.Random(compared))
        assert a == b
        compared += 1
    assert compared > 200


class SpyBot:
    """Plays greedy and records what it was shown (registered as a bot for the simulator)."""

    name = "spy"
    uses_view = True
    seen: list = []

    def __init__(self, points=None):
        self.inner = GreedyBot(points)

    def choose(self, view, legal, rng):
        SpyBot.seen.append(view)
        return self.inner.choose(view, legal, rng)


def test_the_simulator_hands_a_bot_only_its_view_and_no_hidden_card(monkeypatch):
    monkeypatch.setitem(BOTS, "spy", SpyBot)
    SpyBot.seen = []
    config = SimConfig(hands=20, players=3, bots=("spy", "random", "random"), seed=4, hands_per_game=10)
    ruleset = config.ruleset()
    play_game(config, ruleset, 0)
    play_game(config, ruleset, 1)
    assert len(SpyBot.seen) > 30
    deck = set(ruleset.deck)
    for view in SpyBot.seen:
        assert isinstance(view, PlayerView)
        assert view.viewer == "P1" and view.to_act == "P1"
        assert view.hands is None and view.stock is None
        # every card the view mentions is the viewer's own, on the table, the discard top or
        # the card the viewer just drew; never one of another hand or of the stock
        public = set(view.hand or ()) | {c for s in view.table for c in s.cards} | {view.discard_top, view.drawn_card}
        shown = visible_cards(msgspec.to_builtins(view)) & deck
        assert shown <= public


def test_register_bot_adds_a_name(monkeypatch):
    monkeypatch.setitem(BOTS, "spy", SpyBot)
    assert "spy" in bot_names()
    register_bot("spy2", SpyBot)
    try:
        assert isinstance(make_bot("spy2"), SpyBot)
    finally:
        BOTS.pop("spy2")


def test_greedy_beats_random_clearly():
    two = simulate(SimConfig(hands=2000, players=2, bots=("greedy", "random"), seed=21))
    g, r = two["bots"]["greedy"], two["bots"]["random"]
    assert g["win_rate"] > 0.65 and r["win_rate"] < 0.35
    assert g["mean_net"] > 1.0 > -1.0 > r["mean_net"]
    three = simulate(SimConfig(hands=1500, players=3, bots=("greedy", "random", "random"), seed=22))
    assert three["bots"]["greedy"]["mean_net"] > 1.0 and three["bots"]["random"]["mean_net"] < 0
    assert three["bots"]["greedy"]["win_rate"] > 2 * three["bots"]["random"]["win_rate"]


def test_greedy_ends_every_hand_with_an_empty_stock():
    # no turn cap: greedy self-play must end every hand (the simulator raises on a runaway)
    rep = simulate(SimConfig(hands=600, players=3, bots=("greedy",), seed=8))
    assert rep["hands"] == 600
    assert sum(e["count"] for e in rep["endings"].values()) == 600


def _variants():
    from tonk.variants.registry import default_registry

    return [n for n in default_registry().names() if n != "classic"]


@pytest.mark.parametrize("variant", _variants())
@pytest.mark.parametrize("players", [2, 3])
def test_greedy_self_play_ends_every_hand_under_each_variant(variant, players):
    config = SimConfig(hands=60, players=players, bots=("greedy",), seed=31, hands_per_game=20, variants=(variant,), options=required_options(variant))
    try:
        config.check()
    except SetupError as exc:  # a variant that does not seat this many players (a broken one fails)
        pytest.skip(f"{variant} with {players} players: {exc}")
    rep = simulate(config)  # a runaway hand would raise SimulationError
    assert rep["hands"] == 60


def test_greedy_gives_up_table_takes_a_house_rule_forbids():
    bot = make_bot("greedy")
    assert bot.table_takes
    # hit-runs-only: greedy learns after one failed book extension, so self-play ends
    rep = simulate(SimConfig(hands=300, players=2, bots=("greedy",), seed=5, variants=("hit-runs-only",)))
    assert rep["hands"] == 300
