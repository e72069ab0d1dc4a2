"""Hand records: the public adjudication cases, and malformed records named by case and field."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tonk.application.adjudicate import adjudicate, compare
from tonk.core.handrecord import records_from_text
from tonk.core.errors import HandRecordError

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "cases" / "public.json"
PUBLIC = SHARED if SHARED.exists() else ROOT / "examples" / "public-cases.json"
CASES = json.loads(PUBLIC.read_text())["cases"]
EXAMPLES = json.loads((ROOT / "examples" / "disputed-hands.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES + EXAMPLES, ids=[c["id"] for c in CASES + EXAMPLES])
def test_hand_record_adjudicates_as_expected(case):
    verdict = adjudicate(case)
    if verdict["status"] == "skipped":
        assert case["ruleset"]["variants"], "a base-game case must never be skipped"
        pytest.skip(verdict["reason"])
    assert verdict["status"] == "ok", verdict
    assert compare(verdict, case) == []


def test_compare_names_the_field_that_differs():
    case = copy.deepcopy(next(c for c in CASES if c["id"] == "T05"))
    case["expected"]["net"]["P1"] = 3
    case["actions"][0]["expect"]["legal"] = False
    diffs = compare(adjudicate(case), case)
    assert any(d.startswith("net:") for d in diffs)
    assert any(d.startswith("actions[0] (seq 1).legal") for d in diffs)


def test_compare_shows_a_violation_code_as_the_text_it_is():
    # the verdict holds the code as plain text (the format's), so a difference reads
    # "expected 'NOT_YOUR_TURN', got 'ALREADY_DREW'", not the enum's repr
    case = copy.deepcopy(next(c for c in CASES if c["id"] == "T20"))
    case["actions"][1]["expect"]["violation"] = "NOT_YOUR_TURN"
    verdict = adjudicate(case)
    assert type(verdict["actions"][1]["violation"]) is str
    assert "actions[1] (seq 2).violation: expected 'NOT_YOUR_TURN', got 'ALREADY_DREW'" in compare(verdict, case)


def _base_case() -> dict:
    return copy.deepcopy(next(c for c in CASES if c["id"] == "T20"))


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda c: c["setup"]["deck"].__setitem__(3, "ZZ"), "case T20: setup.deck[3]: unknown card 'ZZ'"),
        (lambda c: c["setup"]["deck"].__setitem__(3, c["setup"]["deck"][4]), "case T20: setup.deck: card"),
        (lambda c: c["setup"]["deck"].pop(), "case T20: setup.deck: has 51 cards"),
        (lambda c: c["actions"][0].__setitem__("action", "fold"), "case T20: actions[0].action: unknown action 'fold'"),
        (lambda c: c["actions"][3].__setitem__("card", "1OC"), "case T20: actions[3].card: unknown card '1OC'"),
        (lambda c: c.__setitem__("dealer", "P9"), "case T20: dealer: 'P9' is not one of the players"),
        (lambda c: c["actions"][0].__setitem__("player", "P7"), "case T20: actions[0].player"),
        (lambda c: c["setup"].__setitem__("mode", "magic"), "case T20: setup.mode"),
        (lambda c: c["ruleset"]["options"].__setitem__("stake", 2), "case T20: ruleset: unknown option 'stake'"),
    ],
)
def test_malformed_records_are_named_by_case_and_field(mutate, message):
    case = _base_case()
    mutate(case)
    verdict = adjudicate(case)
    assert verdict["status"] == "error"
    assert verdict["message"].startswith(message), verdict["message"]


def test_explicit_setup_must_hold_every_card_once():
    case = copy.deepcopy(next(c for c in CASES if c["setup"]["mode"] == "explicit"))
    case["setup"]["stock"].append(case["setup"]["hands"]["P1"][0])
    verdict = adjudicate(case)
    assert verdict["status"] == "error" and "appears more than once" in verdict["message"]
    case = copy.deepcopy(next(c for c in CASES if c["setup"]["mode"] == "explicit"))
    case["setup"]["discard"].pop()
    verdict = adjudicate(case)
    assert verdict["status"] == "error" and "missing" in verdict["message"]


def test_unknown_variant_is_skipped_not_failed():
    case = _base_case()
    case["ruleset"]["variants"] = ["no-such-house-rule"]
    verdict = adjudicate(case)
    assert verdict["status"] == "skipped" and "no-such-house-rule" in verdict["reason"]


def test_bad_json_names_the_line():
    with pytest.raises(HandRecordError, match=r"x.json: not valid JSON \(line 2"):
        records_from_text('{"cases": [\n  {,}]}', "x.json")


def test_verdict_shapes_match_the_expected_block():
    case = next(c for c in CASES if c["id"] == "T16")
    verdict = adjudicate(case)
    for key in case["expected"]:
        assert key in verdict
    assert set(verdict["actions"][0]) >= {"seq", "legal", "violation", "rule", "drawn", "spread_id", "effect"}
