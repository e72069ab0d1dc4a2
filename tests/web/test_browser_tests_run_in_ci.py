"""Under CI=true a skipped browser test fails the run (the rule in tests/web/conftest.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

SKIPPING = '''
import pytest

@pytest.mark.browser
def test_needs_a_browser():
    pytest.skip("no browser here")

def test_plain():
    pytest.skip("not a browser test")
'''


def run(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess:
    shutil.copy(HERE / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_skipping.py").write_text(SKIPPING)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    browser: a browser test\n")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True)


def test_a_skipped_browser_test_fails_under_ci(tmp_path):
    result = run(tmp_path, "true")
    assert result.returncode == 1, result.stdout
    assert "1 failed, 1 skipped" in result.stdout
    assert "a browser test may not be skipped in CI (CI=true): " in result.stdout and "no browser here" in result.stdout


def test_outside_ci_it_is_only_skipped(tmp_path):
    result = run(tmp_path, None)
    assert result.returncode == 0, result.stdout
    assert "2 skipped" in result.stdout
