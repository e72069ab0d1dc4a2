"""Variants of the turn: what may be laid, hit, picked, discarded and when one may knock
(rules.md C1.2, C5.19-C5.25, C6.32), each against the base game too."""

from __future__ import annotations

import pytest
from variant_helpers import act, judge, ledger, position, record

from tonk.variants import load_ruleset
from tonk.core import RulesetError

# --- mandatory-laydown (B-24) ------------------------------------------------------------------

SEVENS = {"P1": "7S 7H 7D 2C 9D", "P2": "AC 2S", "P3": "AD 3S"}


def test_mandatory_laydown_a_held_spread_blocks_the_discard_until_laid_or_broken():
    case = record(
        ["mandatory-laydown"],
        position(SEVENS, stock="KC"),
        [
            act("P1", "draw_stock", drawn="KC"),
            act("P1", "discard", card="2C", code="MUST_LAY_DOWN_SPREAD", rule="V:mandatory-laydown"),
            act("P1", "discard", card="7S"),  # after_discard: the hand left holds no spread
            act("P2", "draw_stock"),
        ],
        expected={"final_hands": {"P1": ["7H", "7D", "2C", "9D", "KC"], "P2": ["AC", "2S", "AS"], "P3": ["AD", "3S"]}, "final_piles": {"stock_size": 52 - 9 - 1 - 2, "discard_top": "7S"}},
    )
    judge(case)
    judge(record([], position(SEVENS, stock="KC"), [act("P1", "draw_stock"), act("P1", "discard", card="2C")]))


def test_mandatory_laydown_before_discard_checks_the_whole_hand():
    case = record(
        ["mandatory-laydown"],
        position(SEVENS, stock="KC"),
        [
            act("P1", "draw_stock"),
            act("P1", "discard", card="7S", code="MUST_LAY_DOWN_SPREAD", rule="V:mandatory-laydown"),
            act("P1", "spread", cards="7S 7H 7D", spread_id="S1"),
            act("P1", "discard", card="2C"),
        ],
        options={"check_point": "before_discard"},
    )
    judge(case)


@pytest.mark.parametrize(
    "hand, options, code",
    [
        ("AS AH AD 9D", {}, None),  # exactly three aces are exempt
        ("AS AH AD 9D", {"exempt_three_aces": False}, "MUST_LAY_DOWN_SPREAD"),
        ("AS AH AD AC 9D", {}, "MUST_LAY_DOWN_SPREAD"),  # four aces are not
        ("AS AH AD 2S 3S 9D", {}, "MUST_LAY_DOWN_SPREAD"),  # A-2-3 of spades is a run
    ],
)
def test_mandatory_laydown_three_aces(hand, options, code):
    rule = "V:mandatory-laydown" if code else None
    case = record(["mandatory-laydown"], position({"P1": hand, "P2": "4C", "P3": "5C"}, stock="KC"), [act("P1", "draw_stock"), act("P1", "discard", card="9D", code=code, rule=rule)], options=options)
    judge(case)


def test_mandatory_laydown_alias_and_knock_enforcement():
    hands = {"P1": "7S 7H 7D 2C", "P2": "KC KD QH", "P3": "QC QD JH"}
    judge(record(["mandatory-ace-laydown"], position(hands), [act("P1", "knock")], expected={"end": {"type": "knock", "player": "P1", "outcome": "knocker_won"}}))
    judge(
        record(
            ["mandatory-ace-laydown"],
            position(hands),
            [act("P1", "knock", code="MUST_LAY_DOWN_SPREAD", rule="V:mandatory-laydown"), act("P1", "draw_stock")],
            options={"enforce_at_knock": True},
        )
    )
    assert load_ruleset(["mandatory-ace-laydown"]).variants == ("mandatory-laydown",)


def test_mandatory_laydown_ace_reading():
    table = (("S1", "P2", "2S 3S 4S"),)
    case = record(
        ["mandatory-laydown"],
        position({"P1": "AS 9D KC", "P2": "5C", "P3": "6C"}, stock="QC", table=table),
        [
            act("P1", "draw_stock", drawn="QC"),
            act("P1", "discard", card="9D", code="MUST_LAY_DOWN_SPREAD", rule="V:mandatory-laydown"),
            act("P1", "discard", card="AS"),  # an ace no longer held
        ],
        options={"reading": "ace"},
    )
    judge(case)
    # a held ace that cannot be laid down may stay; so may three aces
    judge(record(["mandatory-laydown"], position({"P1": "AH 9D KC", "P2": "5C", "P3": "6C"}, stock="QC", table=table), [act("P1", "draw_stock"), act("P1", "discard", card="9D")], options={"reading": "ace"}))
    judge(record(["mandatory-laydown"], position({"P1": "AS AH AD 9D", "P2": "5C", "P3": "6C"}, stock="QC", table=table), [act("P1", "draw_stock"), act("P1", "discard", card="9D")], options={"reading": "ace"}))
    # under the spread reading, an ace that only fits a hit is no spread held
    judge(record(["mandatory-laydown"], position({"P1": "AS 9D KC", "P2": "5C", "P3": "6C"}, stock="QC", table=table), [act("P1", "draw_stock"), act("P1", "discard", card="9D")]))


def test_mandatory_laydown_ace_reading_yields_to_one_hit_per_turn():
    table = (("S1", "P2", "2S 3S 4S"), ("S2", "P3", "6H 7H 8H"))
    hands = {"P1": "AS 9H 9D", "P2": "5C", "P3": "6C"}
    actions = [act("P1", "draw_stock"), act("P1", "hit", card="9H", target="S2")]
    judge(record(["mandatory-laydown", "one-hit-per-turn"], position(hands, stock="QC", table=table), actions + [act("P1", "discard", card="9D")], options={"reading": "ace"}))
    judge(record(["mandatory-laydown"], position(hands, stock="QC", table=table), actions + [act("P1", "discard", card="9D", code="MUST_LAY_DOWN_SPREAD", rule="V:mandatory-laydown")], options={"reading": "ace"}))


# --- knocking ------------------------------------------------------------------------------------------

KNOCKERS = {"P1": "AS 2C 3D", "P2": "KS QS", "P3": "KD QD"}


def test_knock_before_discard_after_drawing_and_spreading():
    case = record(
        ["knock-before-discard"],
        position({"P1": "7S 7H 7D AS 2C", "P2": "KS QS", "P3": "KD QD"}, stock="4H"),
        [act("P1", "draw_stock", drawn="4H"), act("P1", "spread", cards="7S 7H 7D", spread_id="S1"), act("P1", "knock")],
        expected={
            "end": {"type": "knock", "player": "P1", "outcome": "knocker_won"},
            "final_hands": {"P1": ["AS", "2C", "4H"], "P2": ["KS", "QS"], "P3": ["KD", "QD"]},
            "hand_totals": {"P1": 7, "P2": 20, "P3": 20},
            "ledger": ledger("P2>P1 1 knock_win", "P3>P1 1 knock_win"),
        },
    )
    judge(case)
    base = record([], position(KNOCKERS, stock="4H"), [act("P1", "draw_stock"), act("P1", "knock", code="KNOCK_NOT_AT_TURN_START", rule="A7.1"), act("P1", "discard", card="4H")])
    judge(base)
    # a knock at the start of the turn is still allowed
    judge(record(["knock-before-discard"], position(KNOCKERS), [act("P1", "knock")], expected={"hand_totals": {"P1": 6, "P2": 20, "P3": 20}}))


def test_knock_before_discard_refuses_the_contradicting_option():
    assert load_ruleset(["knock-before-discard"]).knock_timing == "before_discard"
    with pytest.raises(RulesetError, match="option knock_timing must be one of before_discard, not 'start_of_turn'"):
        load_ruleset(["knock-before-discard"], {"knock_timing": "start_of_turn"})


def test_knock_limit():
    hands = {"P1": "5S 6H", "P2": "KS QS", "P3": "KD QD"}
    judge(record(["knock-limit"], position(hands), [act("P1", "knock", code="KNOCK_LIMIT", rule="V:knock-limit"), act("P1", "draw_stock")]))
    judge(record(["knock-limit"], position(hands), [act("P1", "knock")], options={"max_knock_count": 11}, expected={"end": {"type": "knock", "player": "P1", "outcome": "knocker_won"}}))
    judge(record([], position(hands), [act("P1", "knock")]))
    # card values come from the ruleset: a jack is 11 with face-cards-11-12-13
    jack = {"P1": "JS", "P2": "KS QS", "P3": "KD QD"}
    judge(record(["knock-limit"], position(jack), [act("P1", "knock")]))
    judge(record(["knock-limit", "face-cards-11-12-13"], position(jack), [act("P1", "knock", code="KNOCK_LIMIT", rule="V:knock-limit")]))


# --- hit-penalty (C5.21) -------------------------------------------------------------------------------

HIT_TABLE = (("S1", "P1", "5S 6S 7S"),)
HIT_HANDS = {"P1": "AC 2C", "P2": "8S 9S 4C", "P3": "KC QC"}
ROUND = "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AH 2H 3H 4H 5H 6H"


def _turn(player: str, card: str) -> list[dict]:
    return [act(player, "draw_stock", drawn=card), act(player, "discard", card=card)]


def _two_hits_then(knocks: list[str | None]) -> list[dict]:
    """P2 hits P1's run twice; then rounds in which P1 tries to knock (code or legal)."""
    actions = [act("P2", "draw_stock", drawn="2D"), act("P2", "hit", card="8S", target="S1"), act("P2", "hit", card="9S", target="S1"), act("P2", "discard", card="2D")]
    actions += _turn("P3", "3D")
    stock = iter(ROUND.split()[2:])
    for code in knocks:
        if code is None:
            return actions + [act("P1", "knock")]
        actions += [act("P1", "knock", code=code, rule="V:hit-penalty")] + _turn("P1", next(stock)) + _turn("P2", next(stock)) + _turn("P3", next(stock))
    return actions


BLOCK = "KNOCK_BLOCKED_BY_HIT"


def test_hit_penalty_additive_two_hits_block_two_turns():
    case = record(
        ["hit-penalty"],
        position(HIT_HANDS, stock=ROUND, table=HIT_TABLE, to_act="P2"),
        _two_hits_then([BLOCK, BLOCK, None]),
        options={"turns_per_hit": 1, "stacking": "additive"},
        expected={"end": {"type": "knock", "player": "P1", "outcome": "knocker_won"}, "hand_totals": {"P1": 3, "P2": 4, "P3": 20}, "final_table": [{"id": "S1", "owner": "P1", "kind": "run", "cards": ["5S", "6S", "7S", "8S", "9S"]}]},
    )
    judge(case)


def test_hit_penalty_without_stacking_blocks_one_turn():
    judge(record(["hit-penalty"], position(HIT_HANDS, stock=ROUND, table=HIT_TABLE, to_act="P2"), _two_hits_then([BLOCK, None]), options={"stacking": "none"}))


def test_hit_penalty_turns_per_hit():
    judge(record(["hit-penalty"], position(HIT_HANDS, stock=ROUND, table=HIT_TABLE, to_act="P2"), _two_hits_then([BLOCK, BLOCK, BLOCK, BLOCK, None]), options={"turns_per_hit": 2}))


def test_base_game_knock_after_being_hit():
    judge(record([], position(HIT_HANDS, stock=ROUND, table=HIT_TABLE, to_act="P2"), _two_hits_then([None])))


def test_hit_penalty_own_hits():
    hands = {"P1": "8S AC 2C", "P2": "KS QS", "P3": "KC QC"}
    actions = [act("P1", "draw_stock", drawn="2D"), act("P1", "hit", card="8S", target="S1"), act("P1", "discard", card="2D")] + _turn("P2", "3D") + _turn("P3", "4D")
    judge(record(["hit-penalty"], position(hands, stock=ROUND, table=HIT_TABLE), actions + [act("P1", "knock")]))
    judge(record(["hit-penalty"], position(hands, stock=ROUND, table=HIT_TABLE), actions + [act("P1", "knock", code=BLOCK, rule="V:hit-penalty")], options={"count_own_hits": True}))


# --- hits ------------------------------------------------------------------------------------------------

HIT2 = (("S1", "P2", "5S 6S 7S"), ("S2", "P3", "9H 10H JH"))


def test_one_hit_per_turn():
    hands = {"P1": "8S QH 4S 2C", "P2": "AC", "P3": "AD"}
    case = record(
        ["one-hit-per-turn"],
        position(hands, stock="3C", table=HIT2),
        [
            act("P1", "draw_stock"),
            act("P1", "hit", card="8S", target="S1"),
            act("P1", "hit", card="QH", target="S2", code="HIT_LIMIT_REACHED", rule="V:one-hit-per-turn"),
            act("P1", "hit", card="4S", target="S1", code="HIT_LIMIT_REACHED", rule="V:one-hit-per-turn"),
            act("P1", "discard", card="2C"),
            act("P2", "draw_stock"),
        ],
        expected={"final_hands": {"P1": ["QH", "4S", "3C"], "P2": ["AC", "AS"], "P3": ["AD"]}},
    )
    judge(case)
    judge(record([], position(hands, stock="3C", table=HIT2), [act("P1", "draw_stock"), act("P1", "hit", card="8S", target="S1"), act("P1", "hit", card="QH", target="S2")]))


def test_one_hit_per_turn_and_spreads_laid_this_turn():
    hands = {"P1": "8S 3D 4D 5D 2C", "P2": "AC", "P3": "AH"}
    actions = [act("P1", "draw_stock", drawn="6D"), act("P1", "spread", cards="3D 4D 5D", spread_id="S3"), act("P1", "hit", card="6D", target="S3")]
    # by default a hit on a spread laid this turn is the turn's hit (E6)
    judge(record(["one-hit-per-turn"], position(hands, stock="6D", table=HIT2), actions + [act("P1", "hit", card="8S", target="S1", code="HIT_LIMIT_REACHED", rule="V:one-hit-per-turn")]))
    judge(record(["one-hit-per-turn"], position(hands, stock="6D", table=HIT2), actions + [act("P1", "hit", card="8S", target="S1")], options={"count_hits_on_new_spreads": False}))


def test_hit_runs_only():
    table = (("S1", "P2", "QS QH QD"), ("S2", "P3", "5S 6S 7S"))
    hands = {"P1": "QC 8S 2C", "P2": "AC", "P3": "AD"}
    case = record(
        ["hit-runs-only"],
        position(hands, stock="3C", table=table),
        [
            act("P1", "draw_stock"),
            act("P1", "hit", card="QC", target="S1", code="HIT_DOES_NOT_FIT", rule="V:hit-runs-only"),
            act("P1", "hit", card="2C", target="S1", code="HIT_DOES_NOT_FIT", rule="A9.2"),
            act("P1", "hit", card="8S", target="S2"),
        ],
    )
    judge(case)
    judge(record([], position(hands, stock="3C", table=table), [act("P1", "draw_stock"), act("P1", "hit", card="QC", target="S1")]))


# --- taking the discard -------------------------------------------------------------------------------------

def test_discard_pick_must_meld_unusable_pick():
    hands = {"P1": "5H 6H 2C KD", "P2": "AC", "P3": "AD"}
    judge(record(["discard-pick-must-meld"], position(hands, discard="9S"), [act("P1", "draw_discard", code="DISCARD_PICK_NOT_USABLE", rule="V:discard-pick-must-meld"), act("P1", "draw_stock")]))
    judge(record([], position(hands, discard="9S"), [act("P1", "draw_discard", drawn="9S")]))


def test_discard_pick_must_meld_the_next_action_uses_the_pick():
    hands = {"P1": "5H 6H KS KH KD 2C", "P2": "AC", "P3": "AD"}
    case = record(
        ["discard-pick-must-meld"],
        position(hands, discard="7H"),
        [
            act("P1", "draw_discard", drawn="7H"),
            act("P1", "discard", card="2C", code="DISCARD_PICK_MUST_BE_USED", rule="V:discard-pick-must-meld"),
            act("P1", "spread", cards="KS KH KD", code="DISCARD_PICK_MUST_BE_USED", rule="V:discard-pick-must-meld"),
            act("P1", "spread", cards="5H 6H 7H", spread_id="S1"),
            act("P1", "spread", cards="KS KH KD", spread_id="S2"),
            act("P1", "discard", card="2C"),
        ],
        expected={"end": {"type": "out_by_discard", "player": "P1"}, "ledger": ledger("P2>P1 1 out_by_discard", "P3>P1 1 out_by_discard")},
    )
    judge(case)


def test_discard_pick_must_meld_by_a_hit():
    hands = {"P1": "2C 3D KD", "P2": "AC", "P3": "AD"}
    table = (("S1", "P2", "9S 10S JS"),)
    judge(record(["discard-pick-must-meld"], position(hands, discard="8S", table=table), [act("P1", "draw_discard", drawn="8S"), act("P1", "hit", card="8S", target="S1"), act("P1", "discard", card="KD")]))
    judge(record(["discard-pick-must-meld"], position(hands, discard="8S", table=table), [act("P1", "draw_discard", code="DISCARD_PICK_NOT_USABLE", rule="V:discard-pick-must-meld")], options={"pick_may_hit": False}))
    # with hit-runs-only a pick that only fits a book is not usable
    book = (("S1", "P2", "8H 8D 8C"),)
    judge(record(["discard-pick-must-meld", "hit-runs-only"], position(hands, discard="8S", table=book), [act("P1", "draw_discard", code="DISCARD_PICK_NOT_USABLE", rule="V:discard-pick-must-meld")]))


def test_no_rediscard_of_pick():
    hands = {"P1": "5H 9C KD", "P2": "AC", "P3": "AD"}
    case = record(
        ["no-rediscard-of-pick"],
        position(hands, discard="2C"),
        [
            act("P1", "draw_discard", drawn="2C"),
            act("P1", "discard", card="2C", code="NO_REDISCARD_OF_PICK", rule="V:no-rediscard-of-pick"),
            act("P1", "discard", card="KD"),
        ],
        expected={"final_piles": {"stock_size": 52 - 5 - 1, "discard_top": "KD"}},
    )
    judge(case)
    judge(record([], position(hands, discard="2C"), [act("P1", "draw_discard"), act("P1", "discard", card="2C")]))


def test_no_rediscard_of_pick_allows_the_last_card():
    case = record(
        ["no-rediscard-of-pick"],
        position({"P1": "5H 6H 7H", "P2": "AC", "P3": "AD"}, discard="2C"),
        [act("P1", "draw_discard"), act("P1", "spread", cards="5H 6H 7H", spread_id="S1"), act("P1", "discard", card="2C")],
        expected={"end": {"type": "out_by_discard", "player": "P1"}},
    )
    judge(case)


# --- the end of the stock -----------------------------------------------------------------------------------

DRY = {"P1": "AS 2C", "P2": "KS QS", "P3": "5D 6D"}


def test_stock_end_immediate_ends_after_the_turn_that_empties_the_stock():
    case = record(
        ["stock-end-immediate"],
        position(DRY, stock="9H", rest="discard"),
        [act("P1", "draw_stock", drawn="9H"), act("P1", "discard", card="9H"), act("P2", "draw_discard", code="HAND_OVER", rule="A12")],
        expected={
            "end": {"type": "stock_exhausted", "player": "P1"},
            "hand_totals": {"P1": 3, "P2": 20, "P3": 11},
            "final_piles": {"stock_size": 0, "discard_top": "9H"},
            "ledger": ledger("P2>P1 1 stock_exhausted_low", "P3>P1 1 stock_exhausted_low"),
        },
    )
    judge(case)
    base = record(
        [],
        position(DRY, stock="9H", rest="discard"),
        [act("P1", "draw_stock"), act("P1", "discard", card="9H"), act("P2", "draw_stock", effect="ends_hand_stock_exhausted")],
        expected={"end": {"type": "stock_exhausted", "player": "P2"}},
    )
    judge(base)


def test_stock_end_immediate_going_out_takes_precedence():
    case = record(
        ["stock-end-immediate"],
        position({"P1": "5H 6H 2C", "P2": "KS QS", "P3": "5D 6D"}, stock="7H", rest="discard"),
        [act("P1", "draw_stock"), act("P1", "spread", cards="5H 6H 7H", spread_id="S1"), act("P1", "discard", card="2C")],
        expected={"end": {"type": "out_by_discard", "player": "P1"}},
    )
    judge(case)
