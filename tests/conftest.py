"""Fixtures shared by every test folder."""

from __future__ import annotations

import pytest


def assert_clean_failure(result, code: int, text: str) -> None:
    """An expected failure: exit ``code``, one ``error:`` line naming ``text``, no traceback."""
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    err = result.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), result.stderr
    assert text in err[0], err[0]
    assert "Traceback" not in result.stdout + result.stderr


@pytest.fixture(name="clean_failure")
def clean_failure_fixture():
    """``clean_failure(result, code, text)``: a CLI result is one ``error:`` line, exit ``code``, no traceback."""
    return assert_clean_failure
