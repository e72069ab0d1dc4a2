"""The wheel installs everything under the one import package `tonk`, and nothing generic."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_holds_every_subpackage_under_tonk(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("tonk-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top <= {"tonk", next(n.split("/")[0] for n in names if ".dist-info/" in n)}, top
    for folder in ("core", "variants", "storage", "cli"):
        sources = {p.name for p in (ROOT / folder).glob("*.py")}
        packaged = {n.split("/")[-1] for n in names if n.startswith(f"tonk/{folder}/") and n.count("/") == 2}
        assert sources <= packaged, f"{folder}: missing from the wheel: {sources - packaged}"
    static = {p.name for p in (ROOT / "web" / "static").iterdir()}
    assert static and {n.split("/")[-1] for n in names if n.startswith("tonk/web/static/")} >= static
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "tonk = tonk.cli.app:main" in text
    assert "[tonk.variants]" in text
