"""Referee cases: hand records written by hand from rules.md, independent of the engine.

``fixtures/referee-cases.json`` is built by ``fixtures/make_referee_cases.py``;
every expectation in it was derived from rules.md (A, B, C) and
cases/README.md, not from the engine.  A case where the referee judges the
ENGINE wrong is listed in ``ENGINE_WRONG`` with the reason and is expected to
fail (strict xfail), so the lead sees it until the engine is fixed.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tonk.application.adjudicate import adjudicate, compare

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CASES = json.loads((FIXTURES / "referee-cases.json").read_text())["cases"]

# case id -> why the engine (not the expectation) is judged wrong.  Empty: in
# the referee run every case matched the rules as written.
ENGINE_WRONG: dict[str, str] = {}


def _param(case: dict):
    marks = []
    if case["id"] in ENGINE_WRONG:
        marks.append(pytest.mark.xfail(strict=True, reason=ENGINE_WRONG[case["id"]]))
    return pytest.param(case, id=case["id"], marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_referee_case(case):
    verdict = adjudicate(case)
    assert verdict["status"] == "ok", verdict
    assert compare(verdict, case) == []


def test_fixture_is_what_the_script_builds():
    """The JSON is the script's output (edit the script, then regenerate)."""
    spec = importlib.util.spec_from_file_location("make_referee_cases", FIXTURES / "make_referee_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert [c["id"] for c in module.CASES] == [c["id"] for c in CASES]
    assert module.CASES == CASES
