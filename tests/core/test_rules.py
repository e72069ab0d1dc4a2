"""One test (at least) per base rule of rules.md section A and per violation code."""

from __future__ import annotations

import pytest

from tonk.variants import load_ruleset
from tonk.core import Game, IllegalAction, SetupError
from tonk.core.cards import STANDARD_DECK
from tonk.core.commands import DealHand, Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread


def ledger(game: Game) -> list[tuple[str, str, int, str]]:
    return sorted((p.from_, p.to, p.amount, p.reason) for p in game.last_ending.ledger)


def illegal(game: Game, command) -> IllegalAction:
    before = game.state.snapshot()
    n = len(game.events)
    with pytest.raises(IllegalAction) as info:
        game.play(command)
    # B-26: nothing changes, the same player is still to act
    assert game.state.snapshot() == before
    assert len(game.events) == n
    return info.value


# --- A1 equipment and values ---------------------------------------------------------


def test_a1_1_one_standard_deck_without_jokers():
    deck = load_ruleset().deck
    assert len(deck) == 52 and len(set(deck)) == 52
    assert not any(c.startswith("X") for c in deck)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d[:-1],  # a card short
        lambda d: d + d[:1],  # a card too many (doubled)
        lambda d: d[:-1] + d[:1],  # the right length, one card twice and one missing
        lambda d: d[:-1] + ("X1",),  # the right length, a card the deck does not hold (a joker)
        lambda d: d[:-1] + ("",),  # the right length, not a card at all
    ],
)
def test_a1_1_a_deal_from_a_deck_that_is_not_the_deck_is_refused(change):
    g = Game.new(["a", "b", "c"], seed=1, ruleset=load_ruleset())
    deck = tuple(STANDARD_DECK)
    with pytest.raises(SetupError, match="not exactly the ruleset's deck"):
        g.play(DealHand(deck=change(deck)))
    assert not g.in_hand and g.play(DealHand(deck=deck[::-1]))  # the deck itself, in any order, deals


def test_a1_2_card_points():
    pts = load_ruleset().points
    assert pts["AS"] == 1 and pts["7D"] == 7 and pts["10H"] == 10
    assert pts["JC"] == pts["QC"] == pts["KC"] == 10


def test_a1_3_ace_is_low_in_runs():
    rs = load_ruleset()
    assert rs.check_spread(["AS", "2S", "3S"], {}).kind == "run"
    for cards in (["QS", "KS", "AS"], ["KS", "AS", "2S"]):
        with pytest.raises(IllegalAction) as info:
            rs.check_spread(cards, {})
        assert info.value.code == "INVALID_SPREAD" and info.value.rule == "A8.3"


# --- A2, A3 players and dealer -------------------------------------------------------


@pytest.mark.parametrize("n", [1, 4])
def test_a2_1_two_or_three_players(n):
    with pytest.raises(SetupError, match="2 to 3"):
        Game.new([f"p{i}" for i in range(n)], seed=1, ruleset=load_ruleset())


def test_a3_1_first_dealer_by_cut_highest_card_ace_low():
    for seed in range(20):
        g = Game.new(["a", "b", "c"], seed=seed, ruleset=load_ruleset())
        started = g.events[0]
        last_cut = started.cut[-1]
        ranks = [STANDARD_DECK.index(c) % 13 for c in last_cut]
        assert ranks.count(max(ranks)) == 1  # ties cut again (B-20)
        assert started.dealer in g.players


def test_a3_1_the_cut_samples_the_decks_cards_that_have_a_rank():
    """The cut's cards are ``Random("cut:<seed>").sample`` of the deck's cards with a rank
    (never a joker), whichever deck was cut from before (``cut_cards`` keeps its last answer)."""
    import random

    from tonk.core.cards import ORDER_OF
    from tonk.core.dealing import cut_cards, cut_for_dealer

    plain = load_ruleset().deck
    jokers = load_ruleset(["jokers-wild"], {"joker_value": 15, "jokers": 2}).deck
    assert [c for c in jokers if c not in cut_cards(jokers, ORDER_OF)] == ["X1", "X2"]
    for deck in (plain, jokers, jokers, plain):
        _, cuts = cut_for_dealer(("a", "b", "c"), deck, 7, ORDER_OF)
        assert cuts[0] == tuple(random.Random("cut:7").sample([c for c in deck if ORDER_OF.get(c, 0) > 0], 3))


def test_a3_2_b21_deal_passes_left_every_hand():
    g = Game.new(["a", "b", "c"], dealer="b", seed=3, ruleset=load_ruleset())
    dealers = []
    for _ in range(4):
        g.deal()
        dealers.append(g.state.dealt.dealer)
        while g.in_hand:
            g.play(Knock(g.to_act))
    assert dealers == ["b", "c", "a", "b"]


# --- A4 the deal ---------------------------------------------------------------------


def test_a4_deal_one_at_a_time_from_the_dealers_left_then_upcard_then_stock():
    g = Game.new(["P1", "P2", "P3"], dealer="P3", seed=0, ruleset=load_ruleset())
    deck = list(STANDARD_DECK)
    deck[0:5] = ["2C", "3C", "4C", "5C", "6C"]  # avoid an initial tonk
    deck = list(dict.fromkeys(deck + list(STANDARD_DECK)))
    g.deal(deck=deck)
    dealt = g.state.dealt
    assert dealt.hands["P1"] == tuple(deck[0:15:3])
    assert dealt.hands["P2"] == tuple(deck[1:15:3])
    assert dealt.hands["P3"] == tuple(deck[2:15:3])  # the dealer gets the last card of each round
    assert dealt.discard == (deck[15],)
    assert dealt.stock == tuple(deck[16:])
    assert g.to_act == "P1"
    assert len(dealt.commitment) == 64


# --- A5 initial tonk -----------------------------------------------------------------


def _deck_giving(hands_in_deal_order: list[list[str]], upcard: str) -> list[str]:
    n = len(hands_in_deal_order)
    top = [hands_in_deal_order[i % n][i // n] for i in range(5 * n)] + [upcard]
    return top + [c for c in STANDARD_DECK if c not in top]


def test_a5_1_a5_2_initial_tonk_paid_double():
    deck = _deck_giving([["2C", "3C", "4C", "5C", "6C"], ["KS", "QH", "JD", "10C", "9S"], ["AS", "2S", "3S", "4S", "5S"]], "7H")
    g = Game.new(["P1", "P2", "P3"], dealer="P3", seed=0, ruleset=load_ruleset())
    g.deal(deck=deck)
    end = g.last_ending
    assert end.end == "initial_tonk" and end.player == "P2" and end.totals["P2"] == 49
    assert ledger(g) == [("P1", "P2", 2, "initial_tonk"), ("P3", "P2", 2, "initial_tonk")]
    assert not g.in_hand


def test_a5_3_two_initial_tonks_is_a_draw_and_the_deal_passes():
    deck = _deck_giving([["KC", "QD", "JC", "10D", "10H"], ["KH", "QS", "JH", "JS", "9H"], ["2C", "3D", "4C", "5D", "6C"]], "7S")
    g = Game.new(["P1", "P2", "P3"], dealer="P3", seed=0, ruleset=load_ruleset())
    g.deal(deck=deck)
    end = g.last_ending
    assert end.end == "initial_tonk_draw" and end.players == ("P1", "P2")
    assert end.ledger == () and end.next_dealer == "P1"


def test_a5_4_a_total_of_50_reached_in_play_is_nothing_special(position):
    g = position({"P1": ["KS", "QS", "JS", "10S"], "P2": ["AC", "2C"], "P3": ["3C", "4C"]}, stock_top=("10D",))
    g.play(DrawStock("P1"))
    assert g.in_hand  # 50 in hand during play: no tonk


# --- A6 turn order ---------------------------------------------------------------------


def test_a6_1_only_the_player_to_act_may_act(position):
    g = position({"P1": ["2C", "3C"], "P2": ["4C", "5C"], "P3": ["6C", "7C"]})
    err = illegal(g, DrawStock("P2"))
    assert (err.code, err.rule) == ("NOT_YOUR_TURN", "A6.1")
    err = illegal(g, Knock("nobody"))
    assert err.code == "NOT_YOUR_TURN"


# --- A7 the turn ---------------------------------------------------------------------------


def test_a7_1_knock_at_start_of_turn_only(position):
    g = position({"P1": ["2C", "3C"], "P2": ["4C", "5C"], "P3": ["6C", "7C"]})
    g.play(DrawStock("P1"))
    err = illegal(g, Knock("P1"))
    assert (err.code, err.rule) == ("KNOCK_NOT_AT_TURN_START", "A7.1")


def test_a7_2_exactly_one_draw_from_stock_or_discard(position):
    g = position({"P1": ["2C", "3C"], "P2": ["4C", "5C"], "P3": ["6C", "7C"]}, top="9D", stock_top=("8H",))
    events = g.play(DrawDiscard("P1"))
    assert events[0].card == "9D" and "9D" in g.state.hands["P1"]
    for cmd in (DrawStock("P1"), DrawDiscard("P1")):
        err = illegal(g, cmd)
        assert (err.code, err.rule) == ("ALREADY_DREW", "A7.2")


def test_b29_draw_from_empty_discard_pile_is_illegal(position):
    g = position({"P1": ["2C", "3C"], "P2": ["4C", "5C"], "P3": ["6C", "7C"]}, top=None)
    err = illegal(g, DrawDiscard("P1"))
    assert err.code == "DISCARD_PILE_EMPTY"


def test_a7_3_b14_spreads_and_hits_only_after_drawing(position):
    g = position(
        {"P1": ["4H", "5H", "6H", "7C"], "P2": ["4C", "5C"], "P3": ["6C", "8C"]},
        table=(("S1", "P2", ("9S", "10S", "JS")),),
        stock_top=("QS",),
    )
    err = illegal(g, LaySpread("P1", ("4H", "5H", "6H")))
    assert (err.code, err.rule) == ("MUST_DRAW_FIRST", "A7.3")
    err = illegal(g, Hit("P1", "7C", "S1"))
    assert err.code == "MUST_DRAW_FIRST"
    err = illegal(g, Discard("P1", "7C"))
    assert err.code == "MUST_DRAW_FIRST"


def test_a7_4_discard_ends_the_turn(position):
    g = position({"P1": ["2C", "3C"], "P2": ["4C", "5C"], "P3": ["6C", "7C"]}, stock_top=("8H",))
    g.play(DrawStock("P1"))
    g.play(Discard("P1", "8H"))
    assert g.to_act == "P2" and g.state.discard_top == "8H"


def test_a7_5_only_the_top_discard_can_be_taken(position):
    g = position({"P1": ["2C", "3C"], "P2": ["4C", "5C"], "P3": ["6C", "7C"]}, top="9D", empty_stock=True)
    assert g.play(DrawDiscard("P1"))[0].card == "9D"


def test_card_not_in_hand(position):
    g = position({"P1": ["2C", "3C"], "P2": ["4C", "5C"], "P3": ["6C", "7C"]}, stock_top=("8H",))
    g.play(DrawStock("P1"))
    err = illegal(g, Discard("P1", "AS"))
    assert err.code == "CARD_NOT_IN_HAND"
    err = illegal(g, LaySpread("P1", ("2C", "3C", "4C")))
    assert err.code == "CARD_NOT_IN_HAND"


# --- A8 spreads ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cards, rule",
    [
        (["5H", "6H"], "A8.1"),
        (["5H", "5C"], "A8.1"),
        (["5H", "5C", "6D"], "A8.2"),
        (["5D", "6D", "7C"], "A8.3"),
        (["5D", "6D", "8D"], "A8.3"),
    ],
)
def test_a8_invalid_spreads(cards, rule):
    with pytest.raises(IllegalAction) as info:
        load_ruleset().check_spread(cards, {})
    assert (info.value.code, info.value.rule) == ("INVALID_SPREAD", rule)


def test_a8_2_books_of_three_or_four():
    rs = load_ruleset()
    assert rs.check_spread(["JH", "JS", "JC"], {}).kind == "book"
    assert rs.check_spread(["4H", "4S", "4C", "4D"], {}).kind == "book"


def test_a8_3_runs_of_three_or_more_in_suit_any_order_stored_ascending():
    shape = load_ruleset().check_spread(["7S", "5S", "6S", "4S"], {})
    assert shape.kind == "run" and shape.cards == ("4S", "5S", "6S", "7S")
    assert load_ruleset().check_spread(list(STANDARD_DECK[:13]), {}).kind == "run"  # A..K of spades


def test_a8_spread_gets_the_next_id_and_leaves_the_hand(position):
    g = position(
        {"P1": ["4H", "5H", "6H", "7C", "8C"], "P2": ["4C", "5C"], "P3": ["6C", "9C"]},
        table=(("S4", "P2", ("9S", "10S", "JS")),),
        stock_top=("QS",),
    )
    g.play(DrawStock("P1"))
    ev = g.play(LaySpread("P1", ("6H", "4H", "5H")))[0]
    assert ev.spread_id == "S5" and ev.cards == ("4H", "5H", "6H")
    assert sorted(g.state.hands["P1"]) == ["7C", "8C", "QS"]


# --- A9 hits -------------------------------------------------------------------------------


def test_a9_1_hit_any_spread_including_one_laid_this_turn_and_others(position):
    g = position(
        {"P1": ["4H", "5H", "6H", "7H", "QS", "2C"], "P2": ["4C", "5C"], "P3": ["6C", "9C"]},
        table=(("S1", "P2", ("9S", "10S", "JS")),),
        stock_top=("3H",),
    )
    g.play(DrawStock("P1"))
    g.play(LaySpread("P1", ("4H", "5H", "6H")))
    g.play(Hit("P1", "7H", "S2"))  # own spread, laid this turn (B-15)
    g.play(Hit("P1", "3H", "S2"))  # at the low end
    g.play(Hit("P1", "QS", "S1"))  # another player's spread (B-13)
    assert g.state.table["S2"].cards == ("3H", "4H", "5H", "6H", "7H")
    assert g.state.table["S1"].cards == ("9S", "10S", "JS", "QS")
    err = illegal(g, Hit("P1", "2C", "S9"))
    assert (err.code, err.rule) == ("NO_SUCH_SPREAD", "A9.1")


def test_a9_2_hit_must_fit(position):
    g = position(
        {"P1": ["KS", "AD", "5C", "2D"], "P2": ["4C", "6C"], "P3": ["7C", "9C"]},
        table=(("S1", "P2", ("10S", "JS", "QS")), ("S2", "P3", ("8H", "8S", "8C", "8D"))),
        stock_top=("3C",),
    )
    g.play(DrawStock("P1"))
    g.play(Hit("P1", "KS", "S1"))  # 10-J-Q + K
    err = illegal(g, Hit("P1", "AD", "S1"))  # no wrap K-A (B-10)
    assert (err.code, err.rule) == ("HIT_DOES_NOT_FIT", "A9.2")
    err = illegal(g, Hit("P1", "5C", "S2"))  # wrong rank and the book is full
    assert err.code == "HIT_DOES_NOT_FIT"


def test_b32_a_book_of_four_takes_no_more_and_runs_do_not_wrap():
    rs = load_ruleset()
    from tonk.core.state import Spread

    with pytest.raises(IllegalAction):
        rs.check_hit(Spread("S1", "P1", "run", ("JS", "QS", "KS")), "AS", None)


# --- A10 going out ---------------------------------------------------------------------------


def test_a10_1_a12_1_tonk_out_by_spread_pays_double(position):
    g = position({"P1": ["4H", "5H"], "P2": ["4C", "5C"], "P3": ["6C", "9C"]}, stock_top=("6H",))
    g.play(DrawStock("P1"))
    events = g.play(LaySpread("P1", ("4H", "5H", "6H")))
    assert [type(e).__name__ for e in events] == ["SpreadLaid", "HandEnded"]
    assert g.last_ending.end == "tonk_out" and g.last_ending.totals["P1"] == 0
    assert ledger(g) == [("P2", "P1", 2, "tonk_out"), ("P3", "P1", 2, "tonk_out")]


def test_a10_1_tonk_out_by_hit(position):
    g = position({"P1": ["7H"], "P2": ["4C", "5C"], "P3": ["6C", "9C"]}, table=(("S1", "P2", ("4H", "5H", "6H")),), stock_top=("8H",))
    g.play(DrawStock("P1"))
    g.play(Hit("P1", "7H", "S1"))
    g.play(Hit("P1", "8H", "S1"))
    assert g.last_ending.end == "tonk_out"


def test_a10_2_a12_2_out_by_discard_pays_base(position):
    g = position({"P1": ["4H"], "P2": ["4C", "5C"], "P3": ["6C", "9C"]}, table=(("S1", "P2", ("5H", "6H", "7H")),), stock_top=("KD",))
    g.play(DrawStock("P1"))
    g.play(Hit("P1", "4H", "S1"))
    g.play(Discard("P1", "KD"))
    assert g.last_ending.end == "out_by_discard"
    assert ledger(g) == [("P2", "P1", 1, "out_by_discard"), ("P3", "P1", 1, "out_by_discard")]


# --- A11 exhausted stock ----------------------------------------------------------------------


def test_a11_b18_b30_last_stock_card_then_play_on_from_the_discard_then_empty_stock_ends(position):
    g = position({"P1": ["2C", "3H", "9D"], "P2": ["4S", "5D"], "P3": ["KC", "QD", "JH"]}, stock_top=("6H",), empty_stock=True)
    g.play(DrawStock("P1"))  # the last stock card is an ordinary draw
    g.play(Discard("P1", "9D"))
    g.play(DrawDiscard("P2"))  # play continues while players take the discard
    g.play(Discard("P2", "9D"))
    events = g.play(DrawStock("P3"))  # asks for the empty stock: the hand ends at once
    assert [type(e).__name__ for e in events] == ["EmptyStockCalled", "HandEnded"]
    end = g.last_ending
    assert end.end == "stock_exhausted" and end.player == "P3"
    assert end.totals == {"P1": 11, "P2": 9, "P3": 30}
    assert ledger(g) == [("P1", "P2", 1, "stock_exhausted_low"), ("P3", "P2", 1, "stock_exhausted_low")]


# --- A12 / B worked payout examples (rules.md, "Worked 3-player payout examples") -------------

WORKED = [
    # knocker A; totals; ledger; net
    ("knock won", {"A": 9, "B": 35, "C": 31}, [("B", "A", 1, "knock_win"), ("C", "A", 1, "knock_win")], (2, -1, -1)),
    (
        "knock lost, one lower",
        {"A": 12, "B": 9, "C": 35},
        [("A", "B", 2, "caught_penalty"), ("A", "B", 1, "low_hand"), ("C", "B", 1, "low_hand")],
        (-3, 4, -1),
    ),
    (
        "knock lost, both at or below",
        {"A": 15, "B": 10, "C": 12},
        [("A", "B", 2, "caught_penalty"), ("A", "C", 2, "caught_penalty"), ("A", "B", 1, "low_hand"), ("C", "B", 1, "low_hand")],
        (-5, 4, 1),
    ),
    (
        "knock lost, tie with knocker",
        {"A": 10, "B": 10, "C": 35},
        [("A", "B", 2, "caught_penalty"), ("A", "B", 1, "low_hand"), ("C", "B", 1, "low_hand")],
        (-3, 4, -1),
    ),
    (
        "catch (tie for low)",
        {"A": 21, "B": 9, "C": 9},
        [("A", "B", 2, "caught_penalty"), ("A", "C", 2, "caught_penalty"), ("A", "B", 1, "low_hand"), ("A", "C", 1, "low_hand")],
        (-6, 3, 3),
    ),
]


@pytest.mark.parametrize("name, totals, expected, net", WORKED, ids=[w[0] for w in WORKED])
def test_a12_worked_knock_examples(name, totals, expected, net):
    from tonk.core.settlement import Ending, net_of, settle_classic

    rs = load_ruleset()
    outcome = rs.knock_outcome("A", totals)
    ending = Ending(end="knock", seats=("A", "B", "C"), totals=totals, player="A", outcome=outcome)
    got = settle_classic(ending, rs.options)
    assert sorted((p.from_, p.to, p.amount, p.reason) for p in got) == sorted(expected)
    assert tuple(net_of(("A", "B", "C"), got).values()) == net


@pytest.mark.parametrize(
    "totals, expected",
    [
        ({"A": 11, "B": 9, "C": 30}, [("A", "B", 1), ("C", "B", 1)]),
        ({"A": 11, "B": 14, "C": 11}, [("B", "A", 1), ("B", "C", 1)]),
        ({"A": 5, "B": 5, "C": 5}, []),
    ],
)
def test_a12_8_b06_stock_exhausted_lowest_collects_ties_split(totals, expected):
    from tonk.core.settlement import Ending, settle_classic

    ending = Ending(end="stock_exhausted", seats=("A", "B", "C"), totals=totals, player="A")
    got = settle_classic(ending, load_ruleset().options)
    assert sorted((p.from_, p.to, p.amount) for p in got) == sorted(expected)


def test_b06_stock_tie_option_draw_pays_nothing_on_a_tie():
    from tonk.core.settlement import Ending, settle_classic

    ending = Ending(end="stock_exhausted", seats=("A", "B", "C"), totals={"A": 11, "B": 14, "C": 11}, player="A")
    assert settle_classic(ending, load_ruleset(options={"stock_tie": "draw"}).options) == []


def test_two_player_caught_knocker_pays_three(position):
    g = position({"P1": ["9C", "3D"], "P2": ["2C", "AD"]}, dealer="P2")
    g.play(Knock("P1"))
    assert g.last_ending.outcome == "knocker_caught"
    assert sorted(p.amount for p in g.last_ending.ledger) == [1, 2]
    assert g.net == {"P1": -3, "P2": 3}


@pytest.mark.parametrize(
    "scheme, expected",
    [
        ("pagat", [("A", "B", 2, "caught_penalty"), ("A", "B", 1, "low_hand"), ("C", "B", 1, "low_hand")]),
        ("double_to_catchers_only", [("A", "B", 2, "caught_penalty")]),
        ("double_flat", [("A", "B", 2, "caught_penalty")]),
        ("double_to_low_only", [("A", "B", 2, "caught_penalty")]),
        ("double_to_low_plus_others_base", [("A", "B", 2, "caught_penalty"), ("C", "B", 1, "low_hand")]),
        ("dropper_pays_all_stakes", [("A", "B", 2, "caught_penalty")]),
        ("pagat_without_knocker_base", [("A", "B", 2, "caught_penalty"), ("C", "B", 1, "low_hand")]),
    ],
)
def test_c6_caught_schemes(scheme, expected):
    from tonk.core.settlement import settle_caught

    got = settle_caught("A", ("A", "B", "C"), {"A": 12, "B": 9, "C": 35}, scheme)
    assert sorted((p.from_, p.to, p.amount, p.reason) for p in got) == sorted(expected)


# --- hand over, safeguard, options ---------------------------------------------------------------


def test_hand_over_rejects_further_actions(position):
    g = position({"P1": ["2C", "3C"], "P2": ["4C", "5C"], "P3": ["6C", "7C"]})
    g.play(Knock("P1"))
    err = illegal(g, DrawStock("P2"))
    assert (err.code, err.rule) == ("HAND_OVER", "A12")


def test_b31_turn_cap_ends_the_hand_without_payments_and_is_recorded(position):
    g = position(
        {"P1": ["2C", "3C"], "P2": ["4C", "5C"], "P3": ["6C", "7C"]},
        top="9D",
        empty_stock=True,
        options={"max_turns_per_hand": 4},
    )
    assert g.events[0].ruleset.options["max_turns_per_hand"] == 4
    for _ in range(3):
        g.play(DrawDiscard(g.to_act))
        g.play(Discard(g.to_act, "9D"))
    assert g.in_hand
    g.play(DrawDiscard("P1"))
    g.play(Discard("P1", "9D"))
    assert g.last_ending.end == "turn_cap" and g.last_ending.ledger == ()


def test_unknown_option_and_bad_values_are_errors():
    from tonk.core import RulesetError

    with pytest.raises(RulesetError, match="unknown option 'stke'"):
        load_ruleset(options={"stke": 2})
    with pytest.raises(RulesetError, match="caught_scheme must be one of"):
        load_ruleset(options={"caught_scheme": "nonsense"})
    with pytest.raises(RulesetError, match="base_stake must be at least 1"):
        load_ruleset(options={"base_stake": 0})
    with pytest.raises(RulesetError, match="jokers"):
        load_ruleset(options={"jokers": 2})


def test_unknown_variant_is_an_error():
    from tonk.core import UnknownVariant

    with pytest.raises(UnknownVariant, match="no-such-rule"):
        load_ruleset(["no-such-rule"])
