"""Before and after, side by side in one run: the old commit installed beside this checkout.

    .venv/bin/python -m bench.compare --baseline c01b83a            # full sizes
    .venv/bin/python -m bench.compare --baseline c01b83a --quick    # small sizes

The baseline revision is exported (``git archive``) into ``.bench/baseline-REV/``
and installed into its own venv there (once; reused afterwards).  Each round
runs every benchmark once on each side, in a fresh process per run
(``bench/compare_worker.py``), the two sides alternating and the order swapped
every round; the best rate of each side is kept.  Benchmarks: random playouts
and greedy playouts (player actions per second), append (events per second into
the SQLite store), replay (read, decode, fold) and audit (chain verified, every
game re-run through its pinned rules).  Prints a table and writes
``bench/results/compare.json``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKER = ROOT / "bench" / "compare_worker.py"
RESULTS = ROOT / "bench" / "results"
KINDS = ("random_playouts", "greedy_playouts", "append", "replay", "audit")
SIZES = {
    "quick": {"random_playouts": 5_000, "greedy_playouts": 500, "append": 1_000, "replay": 2_000, "audit": 1_000},
    "full": {"random_playouts": 30_000, "greedy_playouts": 3_000, "append": 5_000, "replay": 10_000, "audit": 5_000},
}
#: within this fraction of the baseline's rate counts as "no slower"
TOLERANCE = 0.05


def baseline_python(rev: str) -> Path:
    """The interpreter of a venv holding ``rev`` installed (built once, then reused)."""
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    home = ROOT / ".bench" / f"baseline-{sha}"
    python = home / "venv" / "bin" / "python"
    if (home / "installed").exists():
        return python
    src = home / "src"
    src.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", sha], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    venv.create(home / "venv", with_pip=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(src)], check=True)
    (home / "installed").write_text(sha + "\n")
    return python


def run_once(python: Path, kind: str, hands: int) -> float:
    """One fresh process, one benchmark: the rate (items per second)."""
    with tempfile.TemporaryDirectory() as cwd:  # outside the checkout: only the installed tonk is importable
        done = subprocess.run([str(python), str(WORKER), kind, str(hands)], cwd=cwd, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"error: {kind} failed under {python}: {done.stderr.strip().splitlines()[-1:]}")
    out = done.stdout
    r = json.loads(out.strip().splitlines()[-1])
    return r["count"] / r["seconds"]


def compare(baseline: Path, current: Path, sizes: dict[str, int], rounds: int, kinds: tuple[str, ...] = KINDS) -> dict[str, dict]:
    sides = {"before": baseline, "after": current}
    best: dict[str, dict[str, float]] = {k: {"before": 0.0, "after": 0.0} for k in kinds}
    for r in range(rounds):
        order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
        for kind in kinds:
            for side in order:
                rate = run_once(sides[side], kind, sizes[kind])
                best[kind][side] = max(best[kind][side], rate)
    out = {}
    for kind, b in best.items():
        ratio = b["after"] / b["before"]
        out[kind] = {"before": round(b["before"]), "after": round(b["after"]), "ratio": round(ratio, 3), "ok": ratio >= 1 - TOLERANCE}
    return out


def table(results: dict[str, dict], rev: str) -> str:
    unit = {"random_playouts": "actions/s", "greedy_playouts": "actions/s", "append": "events/s", "replay": "events/s", "audit": "events/s"}
    lines = [f"| benchmark | before ({rev}) | after | after/before | within 5 % |", "|---|---|---|---|---|"]
    for kind, r in results.items():
        lines.append(f"| {kind.replace('_', ' ')} | {r['before']:,} {unit[kind]} | {r['after']:,} {unit[kind]} | {r['ratio']:.3f} | {'yes' if r['ok'] else 'NO'} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="the revision to compare against (e.g. c01b83a)")
    ap.add_argument("--quick", action="store_true", help="small sizes")
    ap.add_argument("--rounds", type=int, default=5, help="runs of each benchmark on each side (best kept)")
    ap.add_argument("--only", choices=KINDS, action="append", help="run only this benchmark (repeatable)")
    args = ap.parse_args(argv)
    base = baseline_python(args.baseline)
    results = compare(base, Path(sys.executable), SIZES["quick" if args.quick else "full"], args.rounds, tuple(args.only or KINDS))
    print(table(results, args.baseline))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "compare.json").write_text(json.dumps({"baseline": args.baseline, "rounds": args.rounds, "results": results}, indent=1) + "\n")
    return 0 if all(r["ok"] for r in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
