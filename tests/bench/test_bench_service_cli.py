"""bench_service's command line: a PostgreSQL server that does not answer is one error line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout: bench/ is not in the package
from bench import bench_service  # noqa: E402


def test_a_dsn_no_server_answers_is_a_usage_error_not_a_traceback(tmp_path, capsys):
    pytest.importorskip("psycopg")
    dsn = f"postgresql://nobody@/none?host={tmp_path}&port=5999"  # no server's socket is there
    with pytest.raises(SystemExit) as exit_:
        bench_service.main(["--postgres", "--dsn", dsn, "--seconds", "1"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "error: the PostgreSQL server:" in err and str(tmp_path) in err
    assert "Traceback" not in err
