"""Adjudication under partial knowledge: worlds weighed and time per case.

    .venv/bin/python -m bench.bench_partial              # the public partial cases and 200 hidden records
    .venv/bin/python -m bench.bench_partial --records 50 --seed 2

The records are the written-down explicit cases (tests/core/fixtures/referee-cases.json,
many variants) with the stock unknown and, by chance, one hand (all or part) and the
discard pile below its top, as the property tests hide them.  Printed: cases per status,
the distribution of worlds per case and the wall time per case (median, 95th
percentile, worst), and the slowest cases.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]



def main(argv: list[str] | None = None) -> None:
    from tests.support.partial_cases import hide_parts  # the tests' records (run from the checkout's root)
    from tonk.application.adjudicate import adjudicate, ruleset_loader

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    explicit = [c for c in json.loads((ROOT / "tests" / "core" / "fixtures" / "referee-cases.json").read_text())["cases"] if c["setup"]["mode"] == "explicit"]
    records = json.loads((ROOT / "examples" / "public-partial-cases.json").read_text())["cases"]
    records += [hide_parts(rng.choice(explicit), rng) for _ in range(args.records)]
    load = ruleset_loader()
    rows = []
    for i, raw in enumerate(records):
        t0 = time.perf_counter()
        v = adjudicate(raw, i, load_ruleset=load, format_version=2)
        rows.append((time.perf_counter() - t0, v.get("worlds"), v["status"], v.get("open"), v["id"]))
    times = sorted(r[0] for r in rows)
    worlds = sorted(r[1] for r in rows if r[1] is not None)
    status: dict[str, int] = {}
    for r in rows:
        key = r[2] if r[2] != "ok" else ("open" if r[3] else "settled")
        status[key] = status.get(key, 0) + 1
    print(f"{len(rows)} records: {status}")
    print(f"worlds per case: median {statistics.median(worlds)}, 95% {worlds[int(0.95 * (len(worlds) - 1))]}, max {worlds[-1]}")
    print(f"ms per case: median {1000 * statistics.median(times):.1f}, 95% {1000 * times[int(0.95 * (len(times) - 1))]:.1f}, max {1000 * times[-1]:.1f}")
    for t, w, st, _, cid in sorted(rows, reverse=True)[:5]:
        print(f"  {cid}: {1000 * t:.0f} ms, {w} worlds, {st}")


if __name__ == "__main__":
    main()
