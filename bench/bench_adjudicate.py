"""``tonk adjudicate`` on a large hand-record file: wall time, time to the first verdict, peak memory.

    .venv/bin/python -m bench.bench_adjudicate                 # 100 MB, text and --json, with --check
    .venv/bin/python -m bench.bench_adjudicate --mb 10 --tonk /other/.venv/bin/tonk

The file is the public cases (../shared/cases/public.json, or examples/public-cases.json)
repeated with fresh ids until it is ``--mb`` megabytes, as ``{"cases": [...]}``.  Each
run is one fresh process (``tonk adjudicate FILE --check`` and ``... --json``); the peak
resident set size is the child's own (``os.wait4``'s ``ru_maxrss``, kB on Linux).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def public_cases() -> list[dict]:
    shared = ROOT.parent / "shared" / "cases" / "public.json"
    path = shared if shared.is_file() else ROOT / "examples" / "public-cases.json"
    return json.loads(path.read_text())["cases"]


def write_file(path: Path, megabytes: float) -> int:
    """Write ``{"cases": [...]}`` of about ``megabytes`` MB; returns the number of cases."""
    cases = public_cases()
    target = int(megabytes * 1_000_000)
    size = n = i = 0
    with path.open("w") as f:
        f.write('{"format": "tonk-adjudication-cases", "cases": [\n')
        while size < target:
            for c in cases:
                text = json.dumps(dict(c, id=f"{c['id']}-{i}"), indent=1)
                f.write((",\n" if n else "") + text)
                size += len(text) + 2
                n += 1
            i += 1
        f.write("]}\n")
    return n


def run(cmd: list[str]) -> dict:
    """Wall time, time to the first line of output, peak RSS (kB) and exit status of ``cmd``."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    first = None
    lines = 0
    for line in proc.stdout:
        if first is None and line.strip():
            first = time.monotonic() - t0
        lines += 1
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {
        "wall_s": round(time.monotonic() - t0, 1),
        "first_output_s": None if first is None else round(first, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "exit": proc.returncode,
        "stdout_lines": lines,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=100.0, help="file size in MB (default 100)")
    ap.add_argument("--tonk", default=str(Path(sys.executable).with_name("tonk")), help="the tonk executable to measure")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.json"
        n = write_file(path, args.mb)
        print(f"{path.stat().st_size / 1e6:.0f} MB, {n} cases; {args.tonk}")
        for mode in ([], ["--json"]):
            r = run([args.tonk, "adjudicate", str(path), "--check", *mode])
            print(f"  adjudicate --check {' '.join(mode) or '(text)':8s} {r}")


if __name__ == "__main__":
    main()
