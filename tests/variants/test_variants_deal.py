"""Variants of the deal, the deck, card values and the initial tonk (rules.md C1.1, C2, C3.8, C3.11, C4),
each judged on hand records of its own and against the base game."""

from __future__ import annotations

import pytest
from variant_helpers import STANDARD, act, dealt, judge, ledger, position, record

from tonk.variants import load_ruleset
from tonk.core import RulesetError
from tonk.application.adjudicate import adjudicate

P3 = ["P1", "P2", "P3"]

# --- no-initial-discard ---------------------------------------------------------------------

NO_UPCARD_HANDS = {"P1": "2C 3D 4H 5S 9C", "P2": "KS QD JH 10S 8S", "P3": "AD 2D 3S 6H 7C"}


def test_no_initial_discard_empty_pile_is_its_own_violation_then_play_goes_on():
    case = record(
        ["no-initial-discard"],
        dealt(NO_UPCARD_HANDS, dealer="P3", players=P3, after="7D"),
        [
            act("P1", "draw_discard", code="DISCARD_PILE_EMPTY", rule="V:no-initial-discard"),
            act("P1", "draw_stock", drawn="7D"),
            act("P1", "discard", card="9C"),
            act("P2", "draw_discard", drawn="9C"),
            act("P2", "discard", card="KS"),
            act("P3", "knock"),
        ],
        expected={
            "deal": {
                "hands": {"P1": ["2C", "3D", "4H", "5S", "9C"], "P2": ["KS", "QD", "JH", "10S", "8S"], "P3": ["AD", "2D", "3S", "6H", "7C"]},
                "discard_top": None,
                "stock_size": 37,
                "stock_top": "7D",
            },
            "end": {"type": "knock", "player": "P3", "outcome": "knocker_won"},
            "hand_totals": {"P1": 21, "P2": 47, "P3": 19},
            "final_piles": {"stock_size": 36, "discard_top": "KS"},
            "ledger": ledger("P1>P3 1 knock_win", "P2>P3 1 knock_win"),
            "net": {"P1": -1, "P2": -1, "P3": 2},
        },
    )
    judge(case)


def test_no_initial_discard_first_player_may_knock_b25():
    case = record(
        ["no-initial-discard"],
        dealt(NO_UPCARD_HANDS, dealer="P3", players=P3, after="7D"),
        [act("P1", "knock")],
        expected={"end": {"type": "knock", "player": "P1", "outcome": "knocker_caught"}, "hand_totals": {"P1": 23, "P2": 48, "P3": 19}},
    )
    judge(case)


def test_base_game_turns_the_same_card_up():
    case = record(
        [],
        dealt(NO_UPCARD_HANDS, dealer="P3", players=P3, after="7D"),
        [act("P1", "draw_discard", drawn="7D")],
        expected={"deal": {"hands": {p: h.split() for p, h in NO_UPCARD_HANDS.items()}, "discard_top": "7D", "stock_size": 36, "stock_top": STANDARD[0]}},
    )
    judge(case)


# --- more-players ------------------------------------------------------------------------------

FOUR = ["P1", "P2", "P3", "P4"]
FOUR_HANDS = {"P1": "AS 2H 3D 4C 5S", "P2": "AH 2D 3C 4S 6H", "P3": "KS KH QD 9H 8C", "P4": "2C 3S 4H 5D AD"}


def test_more_players_four_seats_knocker_tied_by_the_dealer():
    case = record(
        ["more-players"],
        dealt(FOUR_HANDS, dealer="P4", players=FOUR, after="10C JC"),
        [act("P1", "knock")],
        players=FOUR,
        options={"max_players": 4},
        expected={
            "deal": {"hands": {p: h.split() for p, h in FOUR_HANDS.items()}, "discard_top": "10C", "stock_size": 31, "stock_top": "JC"},
            "end": {"type": "knock", "player": "P1", "outcome": "knocker_caught"},
            "hand_totals": {"P1": 15, "P2": 16, "P3": 47, "P4": 15},
            "ledger": ledger("P1>P4 2 caught_penalty", "P1>P4 1 low_hand", "P2>P4 1 low_hand", "P3>P4 1 low_hand"),
            "net": {"P1": -3, "P2": -1, "P3": -1, "P4": 5},
            "next_dealer": "P1",
        },
    )
    judge(case)


def test_four_players_without_more_players_is_refused():
    case = record([], dealt(FOUR_HANDS, dealer="P4", players=FOUR), players=FOUR)
    verdict = adjudicate(case)
    assert verdict["status"] == "error"
    assert "seats 2 to 3 players, not 4" in verdict["message"]


def test_more_players_capacity_b22():
    assert load_ruleset(["more-players"], {"max_players": 10}).player_range == (2, 10)
    with pytest.raises(RulesetError, match=r"11 players dealt 5 cards each plus the upcard leave no stock from a 52-card deck \(B-22\)"):
        load_ruleset(["more-players"], {"max_players": 11})
    with pytest.raises(RulesetError, match="8 players dealt 7 cards"):
        load_ruleset(["more-players", "cards-per-player"], {"max_players": 8, "cards_per_player": 7})
    # without the upcard one more card is left for the stock
    assert load_ruleset(["more-players", "no-initial-discard"], {"max_players": 10}).player_range == (2, 10)


def test_capacity_advice_names_only_options_the_ruleset_has():
    """Without more-players the seats cannot be lowered, and max_players would be an unknown
    option: the advice is to deal fewer cards."""
    with pytest.raises(RulesetError, match=r"3 players dealt 17 cards each .*\(B-22\): deal fewer cards$"):
        load_ruleset(["cards-per-player"], {"cards_per_player": 17})
    with pytest.raises(RulesetError, match=r"seat fewer players \(max_players\) or deal fewer cards$"):
        load_ruleset(["more-players"], {"max_players": 11})


def test_more_players_default_seats_four():
    case = record(["more-players"], {"mode": "deck", "deck": STANDARD}, players=FOUR + ["P5"])
    verdict = adjudicate(case)
    assert verdict["status"] == "error" and "seats 2 to 4 players, not 5" in verdict["message"]


# --- deal sizes -------------------------------------------------------------------------------------

SEVENS = {"P1": "AS 2S 3S 4S 5S 6S 7S", "P2": "AH 2H 3H 4H 5H 6H 7H", "P3": "AD 2D 3D 4D 5D 6D 7D"}


def test_deal_size_by_player_count_deals_seven_to_three_and_a_seven_card_run_goes_out():
    case = record(
        ["deal-size-by-player-count"],
        dealt(SEVENS, dealer="P3", players=P3, after="8C 9C"),
        [
            act("P1", "draw_stock", drawn="9C"),
            act("P1", "spread", cards="AS 2S 3S 4S 5S 6S 7S", spread_id="S1"),
            act("P1", "discard", card="9C"),
        ],
        options={"deal_sizes": {"2": 9, "3": 7, "4": 5}},
        expected={
            "deal": {"hands": {p: h.split() for p, h in SEVENS.items()}, "discard_top": "8C", "stock_size": 30, "stock_top": "9C"},
            "end": {"type": "out_by_discard", "player": "P1"},
            "final_table": [{"id": "S1", "owner": "P1", "kind": "run", "cards": "AS 2S 3S 4S 5S 6S 7S".split()}],
            "ledger": ledger("P2>P1 1 out_by_discard", "P3>P1 1 out_by_discard"),
        },
    )
    judge(case)


def test_deal_size_map_falls_back_to_cards_per_player():
    rs = load_ruleset(["deal-size-by-player-count", "more-players"], {"max_players": 5})
    assert [rs.deal_size(n) for n in (2, 3, 4, 5)] == [9, 7, 5, 5]
    rs = load_ruleset(["deal-size-by-player-count", "cards-per-player"], {"deal_sizes": {"3": 6}, "cards_per_player": 4})
    assert [rs.deal_size(n) for n in (2, 3)] == [4, 6]
    with pytest.raises(RulesetError, match="player counts of 2 or more"):
        load_ruleset(["deal-size-by-player-count"], {"deal_sizes": {"1": 5}})


def test_cards_per_player_requires_its_option_and_deals_it():
    with pytest.raises(RulesetError, match="variant cards-per-player needs the option cards_per_player"):
        load_ruleset(["cards-per-player"])
    hands = {"P1": "AS 5H 9C", "P2": "2S 6H 10C", "P3": "3S 7H JC"}
    case = record(
        ["cards-per-player"],
        dealt(hands, dealer="P3", players=P3, after="KD QD"),
        [act("P1", "draw_stock", drawn="QD")],
        options={"cards_per_player": 3},
        expected={"deal": {"hands": {p: h.split() for p, h in hands.items()}, "discard_top": "KD", "stock_size": 42, "stock_top": "QD"}},
    )
    judge(case)


# --- card values and the deck --------------------------------------------------------------------------

FACE_KNOCK = {"P1": "JS AS", "P2": "10D 2C", "P3": "KD 5C"}


def test_face_cards_count_11_12_13_so_the_knocker_is_tied():
    case = record(
        ["face-cards-11-12-13"],
        position(FACE_KNOCK),
        [act("P1", "knock")],
        expected={
            "end": {"type": "knock", "player": "P1", "outcome": "knocker_caught"},
            "hand_totals": {"P1": 12, "P2": 12, "P3": 18},
            "ledger": ledger("P1>P2 2 caught_penalty", "P1>P2 1 low_hand", "P3>P2 1 low_hand"),
            "net": {"P1": -3, "P2": 4, "P3": -1},
        },
    )
    judge(case)


def test_base_values_make_the_same_knock_a_win():
    case = record(
        [],
        position(FACE_KNOCK),
        [act("P1", "knock")],
        expected={"end": {"type": "knock", "player": "P1", "outcome": "knocker_won"}, "hand_totals": {"P1": 11, "P2": 12, "P3": 15}},
    )
    judge(case)


FACE_DEAL = {"P1": "KS QS JS 10S 4S", "P2": "AH 2H 3H 4H 5H", "P3": "AD 2D 3D 4D 5D"}


def test_face_cards_reach_50_for_an_initial_tonk_where_the_base_count_is_44():
    case = record(
        ["face-cards-11-12-13"],
        dealt(FACE_DEAL, dealer="P3", players=P3),
        expected={"end": {"type": "initial_tonk", "player": "P1"}, "hand_totals": {"P1": 50, "P2": 15, "P3": 15}, "ledger": ledger("P2>P1 2 initial_tonk", "P3>P1 2 initial_tonk")},
    )
    judge(case)
    base = judge(record([], dealt(FACE_DEAL, dealer="P3", players=P3), expected={"end": None, "hand_totals": {"P1": 44, "P2": 15, "P3": 15}}))
    assert base["end"] is None


FORTY = [c for c in STANDARD if c[:-1] not in ("8", "9", "10")]


def test_forty_card_deck_has_no_8_9_10_and_runs_do_not_bridge_the_gap():
    rs = load_ruleset(["forty-card-deck"])
    assert len(rs.deck) == 40 and not any(c[:-1] in ("8", "9", "10") for c in rs.deck)
    case = record(
        ["forty-card-deck"],
        position({"P1": "7S JS QS KS 2C", "P2": "AH 2H", "P3": "AD 2D"}, stock="3C", deck=FORTY),
        [
            act("P1", "draw_stock", drawn="3C"),
            act("P1", "spread", cards="7S JS QS", code="INVALID_SPREAD", rule="A8.3"),
            act("P1", "spread", cards="JS QS KS", spread_id="S1"),
            act("P1", "discard", card="7S"),
        ],
        expected={"final_piles": {"stock_size": 40 - 9 - 1 - 1, "discard_top": "7S"}},
    )
    judge(case)


def test_forty_card_deck_deal_leaves_24_in_stock_and_refuses_a_52_card_deck():
    hands = {"P1": "AS 2S 3S 4S 5S", "P2": "AH 2H 3H 4H 5H", "P3": "AD 2D 3D 4D 5D"}
    case = record(["forty-card-deck"], dealt(hands, dealer="P3", players=P3, after="JC QC", deck=FORTY), expected={"deal": {"hands": {p: h.split() for p, h in hands.items()}, "discard_top": "JC", "stock_size": 24, "stock_top": "QC"}})
    judge(case)
    wrong = record(["forty-card-deck"], dealt(hands, dealer="P3", players=P3))
    verdict = adjudicate(wrong)
    assert verdict["status"] == "error" and "is not a card of this ruleset's deck" in verdict["message"]


# --- the initial tonk -----------------------------------------------------------------------------------

T49 = "KS QS JS 10S 9S"
T50 = "KH QH JH 10H 10D"
LOW = "AD 2D 3D 4D 5D"  # 15


def test_initial_tonk_50_only_plays_a_dealt_49_and_pays_a_dealt_50():
    hands = {"P1": T49, "P2": T50, "P3": LOW}
    case = record(
        ["initial-tonk-50-only"],
        dealt(hands, dealer="P3", players=P3),
        expected={"end": {"type": "initial_tonk", "player": "P2"}, "hand_totals": {"P1": 49, "P2": 50, "P3": 15}, "ledger": ledger("P1>P2 2 initial_tonk", "P3>P2 2 initial_tonk")},
    )
    judge(case)
    base = record([], dealt(hands, dealer="P3", players=P3), expected={"end": {"type": "initial_tonk_draw", "players": ["P1", "P2"]}, "ledger": []})
    judge(base)
    only49 = record(["initial-tonk-50-only"], dealt({"P1": T49, "P2": LOW, "P3": "AC 2C 3C 4C 6C"}, dealer="P3", players=P3, after="7H 7S"), [act("P1", "draw_stock", drawn="7S")], expected={"end": None})
    judge(only49)


def test_initial_tonk_50_only_refuses_other_totals():
    assert load_ruleset(["initial-tonk-50-only"]).options["initial_tonk_totals"] == [50]
    with pytest.raises(RulesetError, match=r"initial-tonk-50-only makes only 50 an initial tonk, but initial_tonk_totals is \[49, 50\]"):
        load_ruleset(["initial-tonk-50-only"], {"initial_tonk_totals": [49, 50]})


def test_initial_tonk_totals_names_the_totals_of_a_hand_record():
    """C4.13 is a catalogue name a hand record may use: its totals replace 49/50, and it must
    be given them."""
    hands = {"P1": T49, "P2": "AS 2S 3S 4H AH", "P3": "KC QC JC 9C 8C"}  # 49, 11, 47
    case = record(
        ["initial-tonk-totals"],
        dealt(hands, dealer="P3", players=P3),
        options={"initial_tonk_totals": [11]},
        expected={"end": {"type": "initial_tonk", "player": "P2"}, "hand_totals": {"P1": 49, "P2": 11, "P3": 47}, "ledger": ledger("P1>P2 2 initial_tonk", "P3>P2 2 initial_tonk")},
    )
    judge(case)
    both = record(["initial-tonk-totals"], dealt(hands, dealer="P3", players=P3), options={"initial_tonk_totals": [49, 50, 11]}, expected={"end": {"type": "initial_tonk_draw", "players": ["P1", "P2"]}, "ledger": []})
    judge(both)
    with pytest.raises(RulesetError, match="variant initial-tonk-totals needs the option initial_tonk_totals"):
        load_ruleset(["initial-tonk-totals"])
    with pytest.raises(RulesetError, match="contradict each other"):
        load_ruleset(["initial-tonk-totals", "no-initial-tonk"], {"initial_tonk_totals": [11]})


def test_low_initial_tonk_pays_a_dealt_13_double():
    hands = {"P1": T49.replace("9S", "8S"), "P2": "AS 2S 3S 4H 3D", "P3": "KC QC JC 9C 8C"}
    case = record(
        ["low-initial-tonk"],
        dealt(hands, dealer="P3", players=P3),
        expected={"end": {"type": "initial_tonk", "player": "P2"}, "hand_totals": {"P1": 48, "P2": 13, "P3": 47}, "ledger": ledger("P1>P2 2 initial_tonk", "P3>P2 2 initial_tonk"), "net": {"P1": -2, "P2": 4, "P3": -2}},
    )
    judge(case)
    judge(record([], dealt(hands, dealer="P3", players=P3), expected={"end": None}))


def test_low_initial_tonk_limit_and_draw():
    hands = {"P1": "KS QS JS 9D 8D", "P2": "AS 2S 3S 4H 4D", "P3": "KH QH JH 9C 8C"}  # P2 has 14
    judge(record(["low-initial-tonk"], dealt(hands, dealer="P3", players=P3), expected={"end": None}))
    judge(record(["low-initial-tonk"], dealt(hands, dealer="P3", players=P3), options={"low_tonk_max": 15}, expected={"end": {"type": "initial_tonk", "player": "P2"}}))
    two = {"P1": "AC 2C 3C 4C 2H", "P2": "AS 2S 3S 4H 3D", "P3": "KH QH JH 9C 8C"}  # 12 and 13
    judge(record(["low-initial-tonk"], dealt(two, dealer="P3", players=P3), expected={"end": {"type": "initial_tonk_draw", "players": ["P1", "P2"]}, "ledger": []}))


def test_no_initial_tonk_plays_a_dealt_50():
    hands = {"P1": T50, "P2": LOW, "P3": "AC 2C 3C 4C 6C"}
    judge(record(["no-initial-tonk"], dealt(hands, dealer="P3", players=P3, after="7H 7S"), [act("P1", "draw_stock", drawn="7S")], expected={"end": None, "hand_totals": {"P1": 57, "P2": 15, "P3": 16}}))
    judge(record([], dealt(hands, dealer="P3", players=P3), expected={"end": {"type": "initial_tonk", "player": "P1"}}))


def test_multiple_initial_tonks_all_paid():
    hands = {"P1": T49, "P2": T50, "P3": LOW}
    case = record(
        ["multiple-initial-tonks-all-paid"],
        dealt(hands, dealer="P3", players=P3),
        expected={
            "end": {"type": "initial_tonk_draw", "players": ["P1", "P2"]},
            "ledger": ledger("P3>P1 2 initial_tonk", "P3>P2 2 initial_tonk"),
            "net": {"P1": 2, "P2": 2, "P3": -4},
            "next_dealer": "P1",
        },
    )
    judge(case)
    # a single tonk is paid as in the base game
    single = {"P1": T49, "P2": LOW, "P3": "AC 2C 3C 4C 6C"}
    judge(record(["multiple-initial-tonks-all-paid"], dealt(single, dealer="P3", players=P3), expected={"end": {"type": "initial_tonk", "player": "P1"}, "ledger": ledger("P2>P1 2 initial_tonk", "P3>P1 2 initial_tonk")}))
    # everyone a tonk: nobody pays
    both = {"P1": T49, "P2": T50}
    judge(record(["multiple-initial-tonks-all-paid"], dealt(both, dealer="P2", players=["P1", "P2"]), players=["P1", "P2"], expected={"end": {"type": "initial_tonk_draw", "players": ["P1", "P2"]}, "ledger": []}))


def test_multiple_initial_tonks_all_paid_with_low_initial_tonk():
    hands = {"P1": T49, "P2": "AS 2S 3S 4H 3D", "P3": "KC QC JC 9C 8C"}  # 49 and a low 13
    case = record(
        ["low-initial-tonk", "multiple-initial-tonks-all-paid"],
        dealt(hands, dealer="P3", players=P3),
        expected={"end": {"type": "initial_tonk_draw", "players": ["P1", "P2"]}, "ledger": ledger("P3>P1 2 initial_tonk", "P3>P2 2 initial_tonk")},
    )
    judge(case)
