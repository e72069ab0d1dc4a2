"""The six actions of a turn are listed once (``PlayerCommand``); the hand-record format, the
command parser and the rules of ``decide`` all follow that list."""

from __future__ import annotations

import pytest

from tonk.core.commands import ACTIONS, PLAYER_COMMANDS, action_fields
from tonk.core.errors import SetupError
from tonk.core.game import parse_command
from tonk.core.handrecord import parse_record
from tonk.core.turn import RULES


def test_the_action_names_are_those_of_the_hand_record_format():
    assert ACTIONS == ("knock", "draw_stock", "draw_discard", "spread", "hit", "discard")  # cases/README.md
    assert [action_fields(a) for a in ACTIONS] == [set(), set(), set(), {"cards", "jokers_as"}, {"card", "target", "joker_as"}, {"card"}]


def test_every_player_command_has_its_rules():
    assert set(RULES) == set(PLAYER_COMMANDS)


def test_an_unknown_action_names_the_six():
    with pytest.raises(SetupError, match=r"unknown action 'pass' \(knock, draw_stock, draw_discard, spread, hit, discard\)"):
        parse_command("pass", "P1", {})
    case = {"players": ["P1", "P2"], "dealer": "P2", "setup": {"mode": "deck", "deck": []}, "actions": [{"player": "P1", "action": "pass"}]}
    with pytest.raises(Exception, match=r"unknown action 'pass' \(one of knock, draw_stock, draw_discard, spread, hit, discard\)"):
        parse_record(case)
    case["actions"] = [{"player": "P1", "action": "discard", "card": "2S", "target": "S1"}]
    with pytest.raises(Exception, match=r"unknown field\(s\) target for action discard"):
        parse_record(case)
