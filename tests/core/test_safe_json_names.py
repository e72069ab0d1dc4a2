"""The shared limits on outside JSON (core/safe_json.py) and the one rule for names (core/names.py)."""

from __future__ import annotations

import json

import pytest

from tonk.core.errors import TonkError
from tonk.core.names import MAX_NAME_LENGTH, BadName, check_game_id, check_name
from tonk.core.safe_json import MAX_DEPTH, UnsafeJSON, check_depth_bytes, loads


def test_ordinary_json_decodes_as_json_does():
    text = '{"a": [1, -2, 3.5, "x[{"], "b": {"c": null, "d": true}, "e": 123456789012345678901234567890}'
    assert loads(text) == json.loads(text)


@pytest.mark.parametrize(
    "text, why",
    [
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nesting deeper than 64 levels"),
        ("[" * 100_000 + "]" * 100_000, "nesting deeper than 64 levels"),
        ("1" * 31, "an integer of 31 digits"),
        ("-" + "1" * 5000, "an integer of 5000 digits"),
        ("[NaN]", "NaN is not a JSON number"),
        ('{"x": Infinity}', "Infinity is not a JSON number"),
        ("[1e400]", "out of range"),
    ],
)
def test_json_outside_the_limits_is_a_tonk_error(text, why):
    with pytest.raises(UnsafeJSON, match=why) as info:
        loads(text)
    assert isinstance(info.value, TonkError)


@pytest.mark.parametrize("text", ['{"title": "a\\ud800b"}', '[["x", "\\udfff"]]', '{"\\udc00": 1}', '"\\ude00\\ud83d"'])
def test_a_lone_surrogate_is_no_text_and_a_tonk_error(text):
    """A string with a ``\\uD800``-``\\uDFFF`` escape that pairs with none cannot be written as
    UTF-8 (a report, a store, an answer would fail on it): refused where it is read."""
    with pytest.raises(UnsafeJSON, match="lone surrogate U\\+D[89A-F]"):
        loads(text)


def test_a_surrogate_pair_is_the_character_it_spells():
    assert loads('{"name": "bob\\ud83d\\ude00", "\\ud83d\\ude00": "\\u00e9"}') == {"name": "bob\U0001f600", "\U0001f600": "\u00e9"}


def test_nesting_at_the_limit_is_accepted():
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None


def test_depth_of_raw_bytes_ignores_brackets_in_strings():
    check_depth_bytes(b'{"a": "' + b"[" * 500 + b'"}')
    check_depth_bytes(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH)
    with pytest.raises(UnsafeJSON, match="nesting deeper"):
        check_depth_bytes(b'{"a": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}")


@pytest.mark.parametrize("name", ["ann", "Player 2", "Zoë", "李", "a" * MAX_NAME_LENGTH, "[bold]x[/]"])
def test_good_names(name):
    assert check_name(name, "player name") == name


@pytest.mark.parametrize(
    "name, why",
    [
        ("", "is empty"),
        (" ann", "starts or ends with whitespace"),
        ("ann\t", "starts or ends with whitespace"),
        ("a" * (MAX_NAME_LENGTH + 1), f"at most {MAX_NAME_LENGTH}"),
        ("ann\x1b[2J", "U+001B"),
        ("ann\rbob", "U+000D"),
        ("ann\u202ebob", "U+202E"),
        ("a\u00a0b", "U+00A0"),
        (7, "must be text"),
    ],
)
def test_bad_names_say_what_is_wrong_with_control_characters_visible(name, why):
    with pytest.raises(BadName, match="player name") as info:
        check_name(name, "player name")
    msg = str(info.value)
    assert why in msg
    assert msg.isprintable()


def test_game_ids_are_uuids_as_the_engine_makes_them():
    assert check_game_id("0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b")
    for bad in ["x", "case-T05", "0F8E2C1A-3B4D-4E5F-8A9B-0C1D2E3F4A5B", "0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b\n", "", None]:
        with pytest.raises(BadName, match="not a game id"):
            check_game_id(bad)
