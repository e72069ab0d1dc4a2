"""Step 5 of the README's tour runs as printed: a receipt and a checkpoint catch the game
that was cut short, where the hash chain alone says ok."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_tours_receipt_catches_a_truncated_game(tmp_path):
    step = re.search(r"\n# 5\. .*?\n(.*?)(?:\n# \d+\. |```)", README.read_text(encoding="utf-8"), re.S).group(1)
    lines = step.splitlines()
    checks = [i for i, line in enumerate(lines) if line.startswith("tonk --db cut.db verify")]
    assert len(checks) == 3
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("TONK_DB", None)

    def bash(script: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)

    setup = bash("set -e\n" + "\n".join(lines[: checks[0]]))
    assert setup.returncode == 0, setup.stderr
    chain, receipts, checkpoint = (bash(lines[i].split("#")[0]) for i in checks)
    assert chain.returncode == 0 and chain.stdout.startswith("ok:")
    assert receipts.returncode == 1 and " seq 41: missing: the store holds 40 event(s)" in receipts.stdout
    assert "(receipt: seq " in receipts.stdout
    assert checkpoint.returncode == 1 and " seq 41: missing" in checkpoint.stdout
