"""Fixtures of the variant tests; the helpers live in tests/support/variant_helpers.py (on the
path through pyproject's ``pythonpath``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from variant_helpers import public_cases_path


@pytest.fixture(scope="session")
def public_cases() -> list[dict[str, Any]]:
    return json.loads(public_cases_path().read_text())["cases"]
