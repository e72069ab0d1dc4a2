"""Fixtures of the variant tests; the helpers live in variant_helpers.py (this folder is put on sys.path,
since the suite runs with --import-mode=importlib)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from variant_helpers import public_cases_path  # noqa: E402


@pytest.fixture(scope="session")
def public_cases() -> list[dict[str, Any]]:
    return json.loads(public_cases_path().read_text())["cases"]
