"""Every hook of variants/hookspecs.py: documented, and exercised by a test named after it
(``test_<hook name>...``), through a small plugin registered beside the built-ins."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from types import SimpleNamespace

import pytest
from variant_helpers import STANDARD, act, dealt, judge, ledger, position, record

from tonk.variants import load_ruleset
from tonk.core import Game, RulesetError
from tonk.core.events import Payment
from tonk.core.legal import legal_actions
from tonk.core.commands import Discard, LaySpread
from tonk.core.settlement import Ending
from tonk.core.spreads import SpreadShape
from tonk.variants import OptionSpec, VariantInfo, hookimpl, hookspecs
from tonk.variants.registry import HOOK_NAMES, default_registry

HERE = Path(__file__).parent


def plugin(name: str, options=(), **hooks):
    """A variant object with the given hook implementations (plain functions)."""
    return SimpleNamespace(VARIANT=VariantInfo(name=name, summary=f"test plugin {name}", options=tuple(options)), **{k: hookimpl(v) for k, v in hooks.items()})


def registry_with(*plugins):
    reg = default_registry().copy()
    for p in plugins:
        reg.add(p, "test-plugins", "1.0", "test")
    return reg


def ruleset_with(*plugins, options=None, variants=None):
    reg = registry_with(*plugins)
    rs = load_ruleset(variants or [p.VARIANT.name for p in plugins], options, registry=reg)
    rs.test_registry = reg  # the registry the test's hand records are judged with
    return rs


# --- the meta tests ------------------------------------------------------------------------------


def test_every_hook_is_documented_with_its_answer_semantics():
    specs = {n: vars(hookspecs.TonkHooks)[n] for n in HOOK_NAMES}
    assert len(specs) >= 17
    for name, fn in specs.items():
        doc = inspect.getdoc(fn) or ""
        assert len(doc) > 80, f"{name} lacks a docstring"
        first = getattr(fn, "tonk_spec")["firstresult"]
        assert ("First answer wins" in doc) == first, f"{name}: the docstring must say whether the first answer wins"
        assert first or "Collected" in doc, f"{name}: a collected hook must say so"
        assert "Classic" in doc, f"{name}: the docstring must give the base game's answer"


def test_every_hook_has_a_test_of_its_own():
    names = set()
    for path in HERE.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                names.add(node.name)
    missing = [h for h in HOOK_NAMES if not any(n.startswith(f"test_{h}") for n in names)]
    assert not missing, f"hooks without a test named test_<hook>...: {missing}"


def test_the_classic_plugin_answers_every_first_answer_hook():
    from tonk.variants import classic
    from tonk.variants.registry import hooks_of

    first = [n for n in HOOK_NAMES if getattr(vars(hookspecs.TonkHooks)[n], "tonk_spec")["firstresult"]]
    assert set(first) <= set(hooks_of(classic))


# --- one test per hook ------------------------------------------------------------------------------


def test_tonk_deck_replaces_and_wrappers_adjust_the_deck():
    short = [c for c in STANDARD if c[:-1] in ("A", "2", "3", "4", "5", "6")]
    rs = ruleset_with(plugin("short-deck", tonk_deck=lambda ruleset: list(short)))
    assert rs.deck == tuple(short)
    g = Game.new(["a", "b"], ruleset=rs, dealer="b", seed=1)
    g.deal(seed=4)
    assert len(g.state.stock) == 24 - 11
    # forty-card-deck and jokers-wild are wrappers around the deck below: they compose
    both = load_ruleset(["forty-card-deck", "jokers-wild"], {"joker_value": 0})
    assert len(both.deck) == 42 and both.deck[-2:] == ("X1", "X2")
    assert load_ruleset().deck == tuple(STANDARD)


def test_tonk_card_points_first_answer_for_each_card():
    rs = ruleset_with(plugin("aces-eleven", tonk_card_points=lambda card, ruleset: 11 if card.startswith("A") else None))
    assert rs.hand_total(["AS", "KD", "2C"]) == 23
    assert load_ruleset().hand_total(["AS", "KD", "2C"]) == 13
    assert load_ruleset(["face-cards-11-12-13"]).hand_total(["JS", "QS", "KS", "10S"]) == 46


def test_tonk_player_range_seats_more_players():
    rs = ruleset_with(plugin("six-seats", tonk_player_range=lambda ruleset: (2, 6)))
    Game.new(list("abcdef"), ruleset=rs, dealer="f")
    assert load_ruleset().player_range == (2, 3)
    with pytest.raises(RulesetError, match="leave no stock"):
        ruleset_with(plugin("eleven-seats", tonk_player_range=lambda ruleset: (2, 11)))


def test_tonk_deal_size_per_player_count():
    rs = ruleset_with(plugin("fours", tonk_deal_size=lambda num_players, ruleset: 4))
    case = record(["fours"], dealt({"P1": "AS 2S 3S 4S", "P2": "AH 2H 3H 4H", "P3": "AD 2D 3D 4D"}, dealer="P3", players=["P1", "P2", "P3"], after="KC"), expected={"deal": {"hands": {"P1": ["AS", "2S", "3S", "4S"], "P2": ["AH", "2H", "3H", "4H"], "P3": ["AD", "2D", "3D", "4D"]}, "discard_top": "KC", "stock_size": 39, "stock_top": "5S"}})
    judge(case, registry=rs.test_registry)
    assert load_ruleset().deal_size(3) == 5


def test_tonk_upcard_decides_the_first_discard():
    assert load_ruleset().upcard is True
    assert load_ruleset(["no-initial-discard"]).upcard is False
    rs = ruleset_with(plugin("face-down", tonk_upcard=lambda ruleset: False))
    g = Game.new(["a", "b"], ruleset=rs, dealer="b")
    g.deal(seed=2)
    assert g.state.discard == [] and len(g.state.stock) == 42


def test_tonk_wild_cards_are_the_union_of_every_answer():
    rs = ruleset_with(plugin("kings-wild", tonk_wild_cards=lambda ruleset: ["KS", "KH"]), plugin("queens-wild", tonk_wild_cards=lambda ruleset: ["QS"]))
    assert rs.wild_cards == {"KS", "KH", "QS"}
    assert load_ruleset().wild_cards == frozenset()
    with pytest.raises(RulesetError, match="wild cards that are not in the deck: X1"):
        ruleset_with(plugin("ghost-wild", tonk_wild_cards=lambda ruleset: ["X1"]))


def test_tonk_initial_tonks_names_the_tonkers():
    plug = plugin("p2-always", tonk_initial_tonks=lambda hands, totals, ruleset: ["P2"])
    case = record(["p2-always"], dealt({"P1": "AS 2S 3S 4S 5S", "P2": "AH 2H 3H 4H 5H", "P3": "AD 2D 3D 4D 5D"}, dealer="P3", players=["P1", "P2", "P3"]), expected={"end": {"type": "initial_tonk", "player": "P2"}, "ledger": ledger("P1>P2 2 initial_tonk", "P3>P2 2 initial_tonk")})
    judge(case, registry=registry_with(plug))


def _pairs(cards, jokers_as, ruleset):
    if len(cards) == 2 and cards[0][:-1] == cards[1][:-1]:
        return SpreadShape("book", tuple(cards))
    return None


def test_tonk_check_spread_can_accept_what_the_base_game_refuses():
    reg = registry_with(plugin("pairs", tonk_check_spread=_pairs))
    hands = {"P1": "5S 5H 9C", "P2": "AC", "P3": "AD"}
    judge(record(["pairs"], position(hands), [act("P1", "draw_stock"), act("P1", "spread", cards="5S 5H", spread_id="S1")]), registry=reg)
    judge(record([], position(hands), [act("P1", "draw_stock"), act("P1", "spread", cards="5S 5H", code="INVALID_SPREAD", rule="A8.1")]))


def test_tonk_check_hit_can_refuse_or_accept_a_hit():
    def any_on_books(spread, card, joker_as, ruleset):
        return SpreadShape("book", spread.cards + (card,)) if spread.kind == "book" else None

    reg = registry_with(plugin("anything-on-books", tonk_check_hit=any_on_books))
    table = (("S1", "P2", "QS QH QD"),)
    hands = {"P1": "2C 9D", "P2": "AC", "P3": "AD"}
    judge(record(["anything-on-books"], position(hands, table=table), [act("P1", "draw_stock"), act("P1", "hit", card="2C", target="S1")]), registry=reg)
    judge(record([], position(hands, table=table), [act("P1", "draw_stock"), act("P1", "hit", card="2C", target="S1", code="HIT_DOES_NOT_FIT", rule="A9.2")]))


def test_tonk_spread_candidates_feed_the_legal_actions():
    def pair_candidates(hand, ruleset):
        return [SpreadShape("book", (a, b)) for i, a in enumerate(hand) for b in hand[i + 1 :] if a[:-1] == b[:-1]]

    rs = ruleset_with(plugin("pairs", tonk_check_spread=_pairs, tonk_spread_candidates=pair_candidates))
    g = Game.new(["a", "b"], ruleset=rs, dealer="b")
    g.deal(deck=["5S", "KD", "5H", "KC", "9C", "QD", "JC", "QH", "8D", "2H", "3C"] + [c for c in STANDARD if c not in ("5S", "KD", "5H", "KC", "9C", "QD", "JC", "QH", "8D", "2H", "3C")])
    g.act("draw_stock")
    spreads = [a for a in legal_actions(g.state, rs) if isinstance(a, LaySpread)]
    assert [set(a.cards) for a in spreads] == [{"5S", "5H"}]


def test_tonk_hit_options_list_what_a_wild_card_may_stand_for():
    rs = ruleset_with(
        plugin("kings-wild", tonk_wild_cards=lambda ruleset: ["KS"]),
        variants=["kings-wild", "jokers-wild"],
        options={"joker_value": 0},
    )
    from tonk.core.state import Spread

    run = Spread("S1", "P1", "run", ("5H", "6H", "7H"))
    assert rs.hit_options(run, "KS") == [None, "4H", "8H"]  # itself, or a stand-in (jokers-wild answers for every wild card)
    assert rs.hit_options(run, "X1") == ["4H", "8H"]  # a joker never stands for itself
    assert rs.hit_options(run, "9C") == [None]
    assert load_ruleset().hit_options(run, "8H") == [None]


def test_tonk_knock_timing_before_discard():
    rs = ruleset_with(plugin("late-knock", tonk_knock_timing=lambda ruleset: "before_discard"))
    assert rs.knock_timing == "before_discard"
    judge(record(["late-knock"], position({"P1": "AS 2C", "P2": "KS QS", "P3": "KD QD"}), [act("P1", "draw_stock"), act("P1", "knock")]), registry=rs.test_registry)
    with pytest.raises(RulesetError, match="neither start_of_turn nor before_discard"):
        ruleset_with(plugin("whenever", tonk_knock_timing=lambda ruleset: "whenever"))


def test_tonk_veto_forbids_with_its_own_code_and_rule():
    def keep_kings(state, command, ruleset):
        if isinstance(command, Discard) and command.card.startswith("K"):
            return veto.VARIANT.illegal("KING_KEPT", "kings stay in hand")
        return None

    veto = plugin("keep-kings", tonk_veto=keep_kings)
    reg = registry_with(veto)
    hands = {"P1": "KS 2C", "P2": "AC", "P3": "AD"}
    judge(record(["keep-kings"], position(hands), [act("P1", "draw_stock"), act("P1", "discard", card="KS", code="KING_KEPT", rule="V:keep-kings"), act("P1", "discard", card="2C")]), registry=reg)


def test_tonk_turn_end_can_end_the_hand_after_a_discard():
    plug = plugin("one-round", tonk_turn_end=lambda state, player, ruleset: Ending(end="knock", seats=state.players, player=player) if state.to_act == state.dealt.first_player else None)
    reg = registry_with(plug)
    hands = {"P1": "AS 2C 9D", "P2": "KS QS", "P3": "KD QD"}
    actions = [act("P1", "draw_stock"), act("P1", "discard", card="9D"), act("P2", "draw_stock"), act("P2", "discard", card="KS"), act("P3", "draw_stock"), act("P3", "discard", card="KD")]
    verdict = judge(record(["one-round"], position(hands, stock="3S 4S 5S"), actions, expected={"end": {"type": "knock", "player": "P3", "outcome": "knocker_caught"}}), registry=reg)
    assert verdict["hand_totals"] == {"P1": 6, "P2": 14, "P3": 15}


def test_tonk_turn_end_a_knock_must_name_its_knocker():
    plug = plugin("nameless-knock", tonk_turn_end=lambda state, player, ruleset: Ending(end="knock", seats=state.players))
    game = Game.new(["P1", "P2"], ruleset=ruleset_with(plug), seed=3)
    game.deal()
    game.play(next(a for a in game.legal_actions() if type(a).__name__ == "DrawStock"))
    discard = next(a for a in game.legal_actions() if type(a).__name__ == "Discard")
    with pytest.raises(RulesetError, match="without naming the knocker"):
        game.play(discard)


def test_tonk_knock_outcome_decides_won_or_caught():
    plug = plugin("ties-win", tonk_knock_outcome=lambda knocker, totals, ruleset: "knocker_won" if all(totals[knocker] <= t for t in totals.values()) else None)
    hands = {"P1": "AS 2C", "P2": "3S", "P3": "KD"}
    judge(record(["ties-win"], position(hands), [act("P1", "knock")], expected={"end": {"type": "knock", "player": "P1", "outcome": "knocker_won"}}), registry=registry_with(plug))
    judge(record([], position(hands), [act("P1", "knock")], expected={"end": {"type": "knock", "player": "P1", "outcome": "knocker_caught"}}))


def test_tonk_settle_replaces_or_wraps_the_ledger():
    def doubled(ending, state, ruleset):
        ledger_ = yield
        return [Payment(p.from_, p.to, p.amount * 2, p.reason) for p in ledger_]

    plug = SimpleNamespace(VARIANT=VariantInfo("double-stakes", "test plugin"), tonk_settle=hookimpl(wrapper=True)(doubled))
    hands = {"P1": "AS 2C", "P2": "KS", "P3": "KD"}
    judge(record(["double-stakes"], position(hands), [act("P1", "knock")], expected={"ledger": ledger("P2>P1 2 knock_win", "P3>P1 2 knock_win")}), registry=registry_with(plug))
    nothing = plugin("free", tonk_settle=lambda ending, state, ruleset: [])
    judge(record(["free"], position(hands), [act("P1", "knock")], expected={"ledger": []}), registry=registry_with(nothing))


def test_tonk_check_options_complaints_refuse_the_ruleset():
    plug = plugin("even-stakes", options=[OptionSpec("stake_parity", "str", "even", choices=("even", "odd"))], tonk_check_options=lambda options, variants: None if options["base_stake"] % 2 == 0 else "even-stakes needs an even base_stake")
    assert ruleset_with(plug, options={"base_stake": 2}).options["stake_parity"] == "even"
    with pytest.raises(RulesetError, match="even-stakes needs an even base_stake"):
        ruleset_with(plug)


def test_a_check_options_complaint_names_the_variant_that_made_it():
    """A complaint that does not name its variant ("removed_ranks cannot remove every rank")
    is told with the variant's name; one that does keeps its words; each variant's in order."""
    with pytest.raises(RulesetError, match=r"^variant forty-card-deck: removed_ranks cannot remove every rank$"):
        load_ruleset(["forty-card-deck"], {"removed_ranks": list(range(1, 14))})
    quiet = plugin("quiet-rule", tonk_check_options=lambda options: "the table must be quiet")
    even = plugin("even-stakes", tonk_check_options=lambda options, variants: "even-stakes needs an even base_stake")
    with pytest.raises(RulesetError) as refused:
        ruleset_with(quiet, even, options={"base_stake": 3})
    assert str(refused.value) == "variant quiet-rule: the table must be quiet; even-stakes needs an even base_stake"


def test_a_wrapper_of_check_options_still_sees_and_changes_the_complaints():
    def louder(options, variants):
        said = yield
        return [c.upper() for c in said]

    quiet = plugin("quiet-rule", tonk_check_options=lambda options: "the table must be quiet")
    loud = SimpleNamespace(VARIANT=VariantInfo("loud-rule", "test plugin"), tonk_check_options=hookimpl(wrapper=True)(louder))
    with pytest.raises(RulesetError, match="^THE TABLE MUST BE QUIET$"):
        ruleset_with(quiet, loud)
