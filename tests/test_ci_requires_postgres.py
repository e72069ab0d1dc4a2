"""Under CI a skipped PostgreSQL test fails the run: no server, no green build."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = "tests/storage/test_store_postgres.py::test_truncate_is_refused_too"


def run_without_a_server(ci: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("TONK_PG_DSN", "CI")}
    env["TONK_PG_BIN"] = str(ROOT / "no-such-folder")  # no server binaries: the fixture skips
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [str(Path(sys.executable).with_name("pytest")), "-q", "-p", "no:cacheprovider", TARGET, "-o", "addopts=--import-mode=importlib -ra"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )


def test_a_skipped_postgres_test_fails_under_ci():
    done = run_without_a_server(ci=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "skipped under CI" in done.stdout


def test_outside_ci_it_is_a_skip():
    done = run_without_a_server(ci=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout
