"""Which rule an illegal action cites (rules.md B-35), and the B-23 / B-24 / C31 readings, as hand records."""

from __future__ import annotations

import pytest

from variant_helpers import act, judge, ledger, position, record

# P1 to act; P2 owns a run J-Q-K of hearts, P3 a run A-2-3 of diamonds and a book of fives
HANDS = {"P1": "AH KD 2S 2H 3S 4S 9C", "P2": "5H 6H", "P3": "7D 8D"}
TABLE = (("S1", "P2", "JH QH KH"), ("S2", "P3", "AD 2D 3D"), ("S3", "P3", "5C 5D 5S"))


def test_every_violation_code_cites_the_rule_b35_names():
    actions = [
        act("P2", "draw_stock", code="NOT_YOUR_TURN", rule="A6.1"),
        act("P1", "spread", cards="2S 3S 4S", code="MUST_DRAW_FIRST", rule="A7.3"),
        act("P1", "hit", card="9C", target="S1", code="MUST_DRAW_FIRST", rule="A7.3"),
        act("P1", "discard", card="9C", code="MUST_DRAW_FIRST", rule="A7.4"),
        act("P1", "draw_stock", drawn="10C"),
        act("P1", "knock", code="KNOCK_NOT_AT_TURN_START", rule="A7.1"),
        act("P1", "draw_stock", code="ALREADY_DREW", rule="A7.2"),
        act("P1", "draw_discard", code="ALREADY_DREW", rule="A7.2"),
        act("P1", "spread", cards="6S 7S 8S", code="CARD_NOT_IN_HAND", rule="A7.3"),
        act("P1", "hit", card="10H", target="S1", code="CARD_NOT_IN_HAND", rule="A9.1"),
        act("P1", "discard", card="6S", code="CARD_NOT_IN_HAND", rule="A7.4"),
        act("P1", "spread", cards="2S 3S", code="INVALID_SPREAD", rule="A8.1"),
        act("P1", "spread", cards="2S 2S 3S", code="INVALID_SPREAD", rule="A8.1"),
        act("P1", "spread", cards="2S 2H 3S", code="INVALID_SPREAD", rule="A8.2"),
        act("P1", "spread", cards="KD 9C 2S", code="INVALID_SPREAD", rule="A8.3"),
        act("P1", "spread", cards="2S 4S 9C", code="INVALID_SPREAD", rule="A8.3"),
        act("P1", "hit", card="9C", target="S9", code="NO_SUCH_SPREAD", rule="A9.1"),
        # an ace above a king, a king below an ace: they would fit only ace-high or by wrapping
        act("P1", "hit", card="AH", target="S1", code="HIT_DOES_NOT_FIT", rule="A8.3"),
        act("P1", "hit", card="KD", target="S2", code="HIT_DOES_NOT_FIT", rule="A8.3"),
        act("P1", "hit", card="9C", target="S1", code="HIT_DOES_NOT_FIT", rule="A9.2"),
        act("P1", "hit", card="2S", target="S3", code="HIT_DOES_NOT_FIT", rule="A9.2"),
        act("P1", "hit", card="4S", target="S2", code="HIT_DOES_NOT_FIT", rule="A9.2"),
        act("P1", "discard", card="9C"),
        act("P2", "knock"),
        act("P3", "draw_stock", code="HAND_OVER", rule="A12"),
    ]
    judge(record([], position(HANDS, stock="10C", discard="9S", table=TABLE), actions, expected={"end": {"type": "knock", "player": "P2", "outcome": "knocker_won"}}))


def test_an_empty_discard_pile_cites_the_draw_rule():
    hands = {"P1": "9C 9D", "P2": "5H 6H", "P3": "7D 8D"}
    judge(record([], position(hands, discard="", stock="2C"), [act("P1", "draw_discard", code="DISCARD_PILE_EMPTY", rule="A7.2")]))


# --- B-23: whole_hand counts the spreads of an explicit position for their owner -------------------

TONK_OUT = [act("P1", "draw_stock", drawn="10C"), act("P1", "hit", card="9C", target="S1"), act("P1", "hit", card="10C", target="S1")]


@pytest.mark.parametrize(
    "scope, owner, paid",
    [
        ("whole_hand", "P1", 2),  # P1 laid S1 earlier in this hand
        ("whole_hand", "P2", 1),  # somebody else's spread is not P1's
        ("going_out_turn", "P1", 1),  # not laid during the going-out turn
        ("final_action", "P1", 1),
    ],
)
def test_b23_spreads_on_an_explicit_table_count_for_their_owner_under_whole_hand(scope, owner, paid):
    setup = position({"P1": "9C", "P2": "5H 6H", "P3": "7D 8D"}, stock="10C", table=(("S1", owner, "6C 7C 8C"),))
    want = ledger(f"P2>P1 {paid} tonk_out", f"P3>P1 {paid} tonk_out")
    judge(record(["double-requires-new-spread"], setup, TONK_OUT, options={"new_spread_scope": scope}, expected={"end": {"type": "tonk_out", "player": "P1"}, "ledger": want}))


# --- B-24: mandatory-laydown under reading: ace -------------------------------------------------------

LAYDOWN = "V:mandatory-laydown"


def test_b24_ace_reading_after_discard_judges_the_hand_before_the_discard():
    # A♠ 2♠ 3♠ Q♦: discarding the 3♠ leaves the ace, which could have gone down in A-2-3♠ this turn
    setup = position({"P1": "AS 2S 3S", "P2": "5H 6H", "P3": "7D 8D"}, stock="QD")
    opts = {"reading": "ace", "check_point": "after_discard"}
    judge(record(["mandatory-laydown"], setup, [act("P1", "draw_stock", drawn="QD"), act("P1", "discard", card="3S", code="MUST_LAY_DOWN_SPREAD", rule=LAYDOWN)], options=opts))
    # the spread reading lets the same discard through: A♠ 2♠ Q♦ holds no spread
    judge(record(["mandatory-laydown"], setup, [act("P1", "draw_stock", drawn="QD"), act("P1", "discard", card="3S")], options={"check_point": "after_discard"}))


@pytest.mark.parametrize(
    "hand, table, legal",
    [
        ("AS 2S 3S KD", (), False),  # the ace fits a spread formed from the hand
        ("AH 9C", (("S1", "P2", "2H 3H 4H"),), False),  # the ace fits a hit on the table
        ("AH 9C", (("S1", "P2", "5H 6H 7H"),), True),  # the ace fits nothing
        ("AS AH AD 9C", (), True),  # exactly three aces may be held
    ],
)
def test_b24_ace_reading_enforced_at_a_knock_before_drawing(hand, table, legal):
    setup = position({"P1": hand, "P2": "10D JD", "P3": "7D 8D"}, table=table)
    knock = act("P1", "knock") if legal else act("P1", "knock", code="MUST_LAY_DOWN_SPREAD", rule=LAYDOWN)
    judge(record(["mandatory-laydown"], setup, [knock], options={"reading": "ace", "enforce_at_knock": True}))


def test_b24_ace_reading_does_not_touch_a_knock_without_enforce_at_knock():
    setup = position({"P1": "AS 2S 3S KD", "P2": "10D JD", "P3": "7D 8D"})
    judge(record(["mandatory-laydown"], setup, [act("P1", "knock")], options={"reading": "ace"}))


# --- C31: naming stock-tie alone selects draw -----------------------------------------------------------


def test_c31_naming_stock_tie_alone_makes_a_tie_at_a_dry_stock_a_draw():
    hands = {"P1": "5S 6S", "P2": "5H 6H", "P3": "KD QD"}
    end = {"end": {"type": "stock_exhausted", "player": "P1"}, "ledger": []}
    judge(record(["stock-tie"], position(hands, rest="discard"), [act("P1", "draw_stock", effect="ends_hand_stock_exhausted")], expected=end))
