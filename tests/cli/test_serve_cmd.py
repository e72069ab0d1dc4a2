"""``tonk serve`` without the extra 'serve', and on a file that is not a store."""

from __future__ import annotations

import subprocess
import sys

import pytest

RUN = """
import sys
sys.modules['litestar'] = None  # as if the extra 'serve' were not installed
sys.argv = ['tonk', '--db', sys.argv[1], 'serve']
from tonk.cli.app import main
main()
"""


def test_serve_without_the_extra_says_what_to_install(tmp_path):
    p = subprocess.run([sys.executable, "-c", RUN, str(tmp_path / "x.db")], capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stderr.strip() == "error: tonk serve needs the extra 'serve': pip install 'tonk[serve]'"
    assert not (tmp_path / "x.db").exists()


@pytest.mark.parametrize("where", ["before", "after"])
def test_serve_refuses_a_file_that_is_not_a_store(tmp_path, runner, clean_failure, where):
    """``--db`` before or after the command, as for every command."""
    from tonk.cli.app import app

    bad = tmp_path / "notes.txt"
    bad.write_text("hello")
    args = ["--db", str(bad), "serve", "--port", "0"] if where == "before" else ["serve", "--port", "0", "--db", str(bad)]
    result = runner.invoke(app, args)
    clean_failure(result, 2, "not a tonk store")
    assert bad.read_text() == "hello"



def test_several_workers_refuse_an_in_memory_store(runner, clean_failure):
    """Each worker process would hold its own :memory: store: a table made through one would be
    unknown to the other.  Refused before anything is served."""
    pytest.importorskip("litestar")
    from tonk.cli.app import app

    result = runner.invoke(app, ["--db", ":memory:", "serve", "--port", "0", "--workers", "2"])
    clean_failure(result, 2, "not :memory:")

def test_help_does_not_import_the_web_framework():
    p = subprocess.run([sys.executable, "-c", "import sys\nfrom tonk.cli.app import app\nprint('litestar' in sys.modules, 'uvicorn' in sys.modules)"], capture_output=True, text=True)
    assert p.stdout.strip() == "False False"
