"""Violation codes are one enumeration (core.errors.Violation), used by every illegal action."""

from __future__ import annotations

import re
from pathlib import Path

from tonk.core.errors import IllegalAction, Violation

RULES = Path(__file__).resolve().parents[3] / "shared" / "rules.md"


def test_an_illegal_action_carries_a_violation_equal_to_its_code_text():
    exc = IllegalAction("HAND_OVER", "A12", "the hand has already ended")
    assert exc.code is Violation.HAND_OVER and exc.code == "HAND_OVER"
    assert repr(exc) == "IllegalAction('HAND_OVER', 'A12', 'the hand has already ended')"
    assert Violation.HIT_DOES_NOT_FIT.meaning == "the card cannot extend the target spread"


def test_every_code_of_the_rules_citation_table_is_a_violation():
    codes = set(re.findall(r"^  \| `([A-Z_]+)` \|", RULES.read_text(), re.M)) if RULES.is_file() else {"NOT_YOUR_TURN"}
    assert codes and codes <= set(Violation.__members__)
