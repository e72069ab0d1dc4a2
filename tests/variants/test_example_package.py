"""The example third-party package, installed with the project into a fresh virtual environment,
is found through its entry point.  Needs pip to reach PyPI (build backend and dependencies); set
TONK_SKIP_NETWORK_TESTS=1 to skip it where there is no network."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from variant_helpers import ROOT

EXAMPLE = ROOT / "examples" / "tonk-variant-example"

pytestmark = pytest.mark.skipif(os.environ.get("TONK_SKIP_NETWORK_TESTS") == "1", reason="TONK_SKIP_NETWORK_TESTS=1: pip cannot reach PyPI")


def _run(args: list[str], **kw) -> subprocess.CompletedProcess:
    res = subprocess.run(args, capture_output=True, text=True, timeout=600, **kw)
    assert res.returncode == 0, f"{' '.join(args)} failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


@pytest.mark.slow
def test_the_example_package_is_discovered_in_a_fresh_environment(tmp_path: Path):
    # copies of the project and the example, so that building them writes nothing into the working tree
    src = tmp_path / "tonk-src"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache", "*.db*", "tests", "bench", "examples"),
    )
    example = tmp_path / "tonk-variant-example"
    shutil.copytree(EXAMPLE, example, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    env_dir = tmp_path / "env"
    _run([sys.executable, "-m", "venv", "--clear", str(env_dir)])
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    clean_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    pip = [str(bindir / "python"), "-m", "pip", "--disable-pip-version-check", "--no-input", "-q"]
    _run(pip + ["install", str(src), str(example)], env=clean_env)

    # nothing of the working tree is importable there: the installed copies answer
    where = _run([str(bindir / "python"), "-c", "import tonk.variants, tonk_variant_example as m; print(tonk.variants.__file__); print(m.__file__)"], env=clean_env, cwd=tmp_path)
    assert str(ROOT) not in where.stdout

    res = _run([str(bindir / "tonk"), "variants", "--json"], env=clean_env, cwd=tmp_path)
    variants = {v["name"]: v for v in json.loads(res.stdout)["variants"]}
    mine = variants["first-round-no-knock"]
    assert (mine["dist"], mine["version"], mine["source"]) == ("tonk-variant-example", "0.1.0", "entry-point")
    assert mine["hooks"] == ["tonk_veto"] and mine["options"][0]["name"] == "rounds"
    assert "hit-penalty" in variants and variants["hit-penalty"]["source"] == "entry-point"

    check = subprocess.run([str(bindir / "tonk"), "adjudicate", str(EXAMPLE / "cases.json"), "--check"], capture_output=True, text=True, env=clean_env, cwd=tmp_path, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "1 match expected, 0 differ" in check.stdout
