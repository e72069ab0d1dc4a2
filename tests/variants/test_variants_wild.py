"""Wild cards: jokers-wild and deuces-wild (rules.md C3.9, C3.10), alone, together and with the base game."""

from __future__ import annotations

import pytest
from variant_helpers import WITH_JOKERS, act, dealt, judge, ledger, position, record

from tonk.variants import load_ruleset
from tonk.core import RulesetError
from tonk.core.legal import legal_actions
from tonk.core.commands import Hit, LaySpread
from tonk.core.state import Spread

JOKER0 = {"joker_value": 0}


def test_jokers_wild_needs_an_explicit_joker_value():
    with pytest.raises(RulesetError, match="variant jokers-wild needs the option joker_value"):
        load_ruleset(["jokers-wild"])
    rs = load_ruleset(["jokers-wild"], {"joker_value": 0})
    assert len(rs.deck) == 54 and rs.wild_cards == {"X1", "X2"}
    assert load_ruleset(["jokers-wild"], {"joker_value": 0, "jokers": 1}).deck[-1] == "X1"
    with pytest.raises(RulesetError, match="needs a variant that puts that many jokers"):
        load_ruleset([], {"jokers": 2})


def test_a_joker_spread_names_its_stand_in_and_can_be_hit_by_joker_and_natural():
    case = record(
        ["jokers-wild"],
        position({"P1": "5H 6H X1 X2 KD 2C", "P2": "4H 7H QS", "P3": "KC QC"}, stock="9C 3S", deck=WITH_JOKERS),
        [
            act("P1", "draw_stock", drawn="9C"),
            act("P1", "spread", cards="5H 6H X1", code="INVALID_SPREAD", rule="V:jokers-wild"),  # 4H or 7H?
            act("P1", "spread", cards="5H 6H X1", jokers_as={"X1": "6H"}, code="INVALID_SPREAD", rule="A8.1"),
            act("P1", "spread", cards="X1 5H 6H", jokers_as={"X1": "7H"}, spread_id="S1"),
            act("P1", "hit", card="X2", target="S1", joker_as="9H", code="HIT_DOES_NOT_FIT", rule="A9.2"),
            act("P1", "hit", card="X2", target="S1"),  # no joker_as: the card above the run, 8H
            act("P1", "discard", card="KD"),
            act("P2", "draw_stock", drawn="3S"),
            act("P2", "hit", card="7H", target="S1", code="HIT_DOES_NOT_FIT", rule="A9.2"),
            act("P2", "hit", card="4H", target="S1"),
            act("P2", "knock", code="KNOCK_NOT_AT_TURN_START", rule="A7.1"),
        ],
        options=JOKER0,
        expected={
            "final_table": [{"id": "S1", "owner": "P1", "kind": "run", "cards": ["4H", "5H", "6H", "X1", "X2"], "jokers_as": {"X1": "7H", "X2": "8H"}}],
            "final_hands": {"P1": ["2C", "9C"], "P2": ["7H", "QS", "3S"], "P3": ["KC", "QC"]},
        },
    )
    verdict = judge(case)
    assert verdict["final_table"][0]["cards"] == ["4H", "5H", "6H", "X1", "X2"]  # in table order


def test_an_unnamed_joker_is_inferred_only_when_one_card_fits():
    hands = {"P1": "5H 7H X1 KS KH X2 QD", "P2": "AC", "P3": "AD"}
    table = (("S1", "P2", "JS JH JD"), ("S2", "P3", "9C 10C JC QC KC"))
    case = record(
        ["jokers-wild"],
        position(hands, stock="3C", discard="9S", table=table, deck=WITH_JOKERS),
        [
            act("P1", "draw_stock"),
            act("P1", "spread", cards="5H 7H X1", spread_id="S3"),  # only 6H fits
            act("P1", "spread", cards="KS KH X2", code="INVALID_SPREAD", rule="V:jokers-wild"),  # KD or KC?
            act("P1", "hit", card="X2", target="S1"),  # the book's one missing suit, JC
        ],
        options=JOKER0,
        expected={
            "final_table": [
                {"id": "S1", "owner": "P2", "kind": "book", "cards": ["JS", "JH", "JD", "X2"], "jokers_as": {"X2": "JC"}},
                {"id": "S2", "owner": "P3", "kind": "run", "cards": ["9C", "10C", "JC", "QC", "KC"]},
                {"id": "S3", "owner": "P1", "kind": "run", "cards": ["5H", "X1", "7H"], "jokers_as": {"X1": "6H"}},
            ]
        },
    )
    judge(case)
    # a run ending at the king grows downwards; a full book cannot take a joker
    down = record(["jokers-wild"], position(hands, stock="3C", discard="9S", table=table, deck=WITH_JOKERS), [act("P1", "draw_stock"), act("P1", "hit", card="X1", target="S2")], options=JOKER0, expected={"final_table": [{"id": "S1", "owner": "P2", "kind": "book", "cards": ["JS", "JH", "JD"]}, {"id": "S2", "owner": "P3", "kind": "run", "cards": ["X1", "9C", "10C", "JC", "QC", "KC"], "jokers_as": {"X1": "8C"}}]})
    judge(down)
    full = (("S1", "P2", "JS JH JD JC"),)
    judge(record(["jokers-wild"], position(hands, stock="3C", discard="9S", table=full, deck=WITH_JOKERS), [act("P1", "draw_stock"), act("P1", "hit", card="X1", target="S1", code="HIT_DOES_NOT_FIT", rule="A9.2")], options=JOKER0))


def test_joker_value_counts_in_the_hand():
    hands = {"P1": "X1 AS", "P2": "2C 3C", "P3": "KD"}
    won = record(["jokers-wild"], position(hands, deck=WITH_JOKERS), [act("P1", "knock")], options=JOKER0, expected={"end": {"type": "knock", "player": "P1", "outcome": "knocker_won"}, "hand_totals": {"P1": 1, "P2": 5, "P3": 10}})
    judge(won)
    caught = record(
        ["jokers-wild"],
        position(hands, deck=WITH_JOKERS),
        [act("P1", "knock")],
        options={"joker_value": 25},
        expected={
            "end": {"type": "knock", "player": "P1", "outcome": "knocker_caught"},
            "hand_totals": {"P1": 26, "P2": 5, "P3": 10},
            "ledger": ledger("P1>P2 2 caught_penalty", "P1>P3 2 caught_penalty", "P1>P2 1 low_hand", "P3>P2 1 low_hand"),
        },
    )
    judge(caught)


def test_min_natural_cards_and_a_joker_book():
    hands = {"P1": "5H X1 X2 KS KH 2C", "P2": "AC", "P3": "AD"}
    strict = record(
        ["jokers-wild"],
        position(hands, stock="3C", discard="9S", deck=WITH_JOKERS),
        [
            act("P1", "draw_stock", drawn="3C"),
            act("P1", "spread", cards="5H X1 X2", jokers_as={"X1": "6H", "X2": "7H"}, code="INVALID_SPREAD", rule="V:jokers-wild"),
            act("P1", "spread", cards="KS KH X1", jokers_as={"X1": "KD"}, spread_id="S1"),
        ],
        options={"joker_value": 0, "min_natural_cards": 2},
        expected={"final_table": [{"id": "S1", "owner": "P1", "kind": "book", "cards": ["KS", "KH", "X1"], "jokers_as": {"X1": "KD"}}]},
    )
    judge(strict)
    loose = record(
        ["jokers-wild"],
        position(hands, stock="3C", discard="9S", deck=WITH_JOKERS),
        [act("P1", "draw_stock"), act("P1", "spread", cards="5H X1 X2", jokers_as={"X1": "6H", "X2": "7H"}, spread_id="S1")],
        options=JOKER0,
    )
    judge(loose)


def test_jokers_wild_deal_of_54_cards():
    hands = {"P1": "X1 AS 2S 3S 4S", "P2": "AH 2H 3H 4H 5H", "P3": "AD 2D 3D 4D 5D"}
    case = record(["jokers-wild"], dealt(hands, dealer="P3", players=["P1", "P2", "P3"], after="X2 9C", deck=WITH_JOKERS), [act("P1", "draw_discard", drawn="X2")], options=JOKER0, expected={"deal": {"hands": {p: h.split() for p, h in hands.items()}, "discard_top": "X2", "stock_size": 38, "stock_top": "9C"}, "hand_totals": {"P1": 10, "P2": 15, "P3": 15}})
    judge(case)


def test_a_joker_is_not_part_of_the_base_game():
    case = record([], position({"P1": "5H 6H 2C", "P2": "AC", "P3": "AD"}), [act("P1", "draw_stock"), act("P1", "spread", cards="5H 6H 2C", jokers_as={"2C": "7H"}, code="INVALID_SPREAD", rule="A8.1")])
    judge(case)


def test_the_base_game_names_the_stand_in_it_refuses():
    """A stand-in named without any joker is refused with a message naming that card, not a
    joker the action never held."""
    case = record([], position({"P1": "5H 5S 5D KC", "P2": "AC", "P3": "AD"}, table=[("S1", "P2", "7C 8C 9C")]), [
        act("P1", "draw_stock"),
        act("P1", "spread", cards="5H 5S 5D", jokers_as={"5H": "5C"}, code="INVALID_SPREAD", rule="A8.1"),
        act("P1", "hit", card="KC", target="S1", joker_as="10C", code="HIT_DOES_NOT_FIT", rule="A9.2"),
    ])
    verdict = judge(case)
    spread, hit = verdict["actions"][1]["message"], verdict["actions"][2]["message"]
    assert "5H cannot stand for another card" in spread and "joker" not in spread
    assert "KC cannot stand for another card" in hit and "joker" not in hit


def test_deuces_wild_a_deuce_as_stand_in_or_as_itself():
    case = record(
        ["deuces-wild"],
        position({"P1": "5S 6S 2H 3D 4D 2D 9C", "P2": "AC", "P3": "AD"}, stock="QC"),
        [
            act("P1", "draw_stock", drawn="QC"),
            act("P1", "spread", cards="5S 6S 2H", jokers_as={"2H": "7S"}, spread_id="S1"),
            act("P1", "spread", cards="2D 3D 4D", spread_id="S2"),
            act("P1", "discard", card="QC"),
        ],
        expected={
            "final_table": [
                {"id": "S1", "owner": "P1", "kind": "run", "cards": ["5S", "6S", "2H"], "jokers_as": {"2H": "7S"}},
                {"id": "S2", "owner": "P1", "kind": "run", "cards": ["2D", "3D", "4D"]},
            ]
        },
    )
    judge(case)
    # under the base game the same deuce spread is refused
    base = record([], position({"P1": "5S 6S 2H 9C", "P2": "AC", "P3": "AD"}, stock="QC"), [act("P1", "draw_stock"), act("P1", "spread", cards="5S 6S 2H", jokers_as={"2H": "7S"}, code="INVALID_SPREAD", rule="A8.1")])
    judge(base)


def test_deuce_value_and_six_wild_cards_with_jokers():
    hands = {"P1": "2D AC", "P2": "3C 4C", "P3": "KD"}
    judge(record(["deuces-wild"], position(hands), [act("P1", "knock")], expected={"hand_totals": {"P1": 3, "P2": 7, "P3": 10}}))
    judge(record(["deuces-wild"], position(hands), [act("P1", "knock")], options={"deuce_value": 0}, expected={"hand_totals": {"P1": 1, "P2": 7, "P3": 10}}))
    rs = load_ruleset(["jokers-wild", "deuces-wild"], JOKER0)
    assert rs.wild_cards == {"X1", "X2", "2S", "2H", "2D", "2C"}
    both = record(
        ["jokers-wild", "deuces-wild"],
        position({"P1": "5S X1 2H KD", "P2": "AC", "P3": "AD"}, stock="QC", deck=WITH_JOKERS),
        [act("P1", "draw_stock"), act("P1", "spread", cards="5S X1 2H", jokers_as={"X1": "6S", "2H": "7S"}, spread_id="S1")],
        options=JOKER0,
        expected={"final_table": [{"id": "S1", "owner": "P1", "kind": "run", "cards": ["5S", "X1", "2H"], "jokers_as": {"X1": "6S", "2H": "7S"}}]},
    )
    judge(both)


def test_deuces_wild_needs_the_deuces():
    with pytest.raises(RulesetError, match="deuces-wild needs the 2s"):
        load_ruleset(["deuces-wild", "forty-card-deck"], {"removed_ranks": [2]})


def test_wild_spread_candidates_are_all_legal_and_cover_every_represented_set():
    rs = load_ruleset(["jokers-wild", "deuces-wild"], JOKER0)
    hand = ["5H", "6H", "X1", "2C", "KS", "KH"]
    shapes = rs.spread_candidates(hand)
    for s in shapes:
        assert rs.check_spread(list(s.cards), dict(s.jokers_as)).kind == s.kind
    represented = {tuple(sorted(s.jokers_as.get(c, c) for c in s.cards)) for s in shapes}
    assert tuple(sorted(["5H", "6H", "7H"])) in represented  # X1 or 2C as 7H
    assert tuple(sorted(["4H", "5H", "6H", "7H"])) in represented  # both wild
    assert tuple(sorted(["KS", "KH", "KD"])) in represented
    assert tuple(sorted(["KS", "KH", "KD", "KC"])) in represented
    assert not any(len(s.cards) < 3 for s in shapes)
    # a natural hand lists exactly the natural spreads, as the base game does
    assert rs.spread_candidates(["5H", "6H", "7H", "KS"]) == load_ruleset().spread_candidates(["5H", "6H", "7H", "KS"])


def test_wild_hit_options():
    rs = load_ruleset(["jokers-wild", "deuces-wild"], JOKER0)
    run = Spread("S1", "P1", "run", ("5H", "6H", "X1"), {"X1": "7H"})
    assert rs.hit_options(run, "X2") == ["4H", "8H"]
    assert rs.hit_options(run, "2S") == [None, "4H", "8H"]
    assert rs.hit_options(run, "8H") == [None]
    book = Spread("S2", "P1", "book", ("KS", "KH", "2D"), {"2D": "KD"})
    assert rs.hit_options(book, "X1") == ["KC"]
    full = Spread("S3", "P1", "book", ("QS", "QH", "QD", "X1"), {"X1": "QC"})
    assert rs.hook.tonk_hit_options(spread=full, card="X2", ruleset=rs) == []  # nothing left for a wild card


def test_legal_actions_with_wild_cards_are_accepted():
    from tonk.core import Game

    g = Game.new(["a", "b"], seed=3, dealer="b", ruleset=load_ruleset(["jokers-wild", "deuces-wild"], JOKER0))
    g.deal(deck=["5H", "KS", "6H", "KH", "X1", "QS", "2C", "QH", "9D", "8D", "4C"] + [c for c in WITH_JOKERS if c not in ("5H", "KS", "6H", "KH", "X1", "QS", "2C", "QH", "9D", "8D", "4C")])
    g.act("draw_stock")
    acts = legal_actions(g.state, g.ruleset)
    spreads = [a for a in acts if isinstance(a, LaySpread)]
    assert any(set(a.cards) == {"5H", "6H", "X1"} for a in spreads)
    assert any(set(a.cards) == {"5H", "6H", "X1", "2C"} for a in spreads)
    g.play(next(a for a in spreads if set(a.cards) == {"5H", "6H", "X1"} and a.jokers_as == {"X1": "7H"}))
    assert sorted(g.state.hands["a"]) == ["2C", "9D", "AS"]
    hits = [a for a in legal_actions(g.state, g.ruleset) if isinstance(a, Hit)]
    assert {(h.card, h.joker_as) for h in hits} == {("2C", "4H"), ("2C", "8H")}  # the deuce as a wild card; 2C itself does not fit
