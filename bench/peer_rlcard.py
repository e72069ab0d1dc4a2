"""Random playouts, whole processes, side by side: tonk against RLCard's bare gin-rummy engine.

    .venv/bin/python -m bench.peer_rlcard                  # 5 rounds (about 2 minutes)
    .venv/bin/python -m bench.peer_rlcard --rounds 3 --tonk-hands 40000 --rlcard-hands 2000

The peer is RLCard (PyPI ``rlcard``, pinned by ``--rlcard``), installed once into its own
venv under ``build/peer-rlcard/venv`` (it needs numpy; neither is a dependency of
tonk).  Each round runs, in fresh processes, the sides in alternating order (the order
reversed every other round):

* ``rlcard``: ``bench/peer_rlcard_child.py`` under the RLCard venv: RLCard's bare
  ``GinRummyGame`` (no agents, no env wrapper), ``--rlcard-hands`` hands, a uniformly
  random legal action each step (the judge's ``get_legal_actions``, then ``step``).
  Every step counts as an action, the two closing score steps of a hand included (the
  JSON has the count without them too).  Gin rummy has two seats.
* ``tonk``: ``tonk simulate --hands N --players 3 --bot random --bot random --bot random
  --seed S --no-store --json``: every player action through ``legal_actions`` and
  ``decide``, every event produced and folded, the report computed and printed.  Deals
  are not counted as actions (their time is).
* ``tonk_sqlite``: the same command with ``--db FILE`` instead of ``--no-store``: every
  game appended to a new SQLite store, one transaction per game, as ``tonk simulate``
  writes (bulk: ``synchronous=NORMAL`` and one fsync of the WAL when the store closes,
  before the command reports; 4 KB pages; docs/event-format.md), the file deleted
  afterwards.

Each process is timed whole, start-up and imports included: wall time around it and its
CPU time (user + system, from ``wait4``).  Actions per second is the process's action
count over that time.  Printed: best and median over the rounds of each side, the
ratios tonk / RLCard (best to best, median to median), and the ratio within each round
(the two sides ran next to each other) with its median over the rounds: the target is
judged by that paired median, which a machine that speeds up or slows down between
rounds moves least (the median to median ratio may pair one side's slow round with the
other's fast one).  Before the rounds, each side
runs once untimed, so every module is byte-compiled and every file cached (the children
run without ``PYTHONDONTWRITEBYTECODE``: an installed package has its ``.pyc`` files).
With ``--before TONK`` (another installed tonk, e.g. the baseline venv that
``bench.compare`` builds), that executable's ``--no-store`` run is a fourth side,
``tonk_before``, in the same alternation.  JSON goes to ``bench/results/peer_rlcard.json``.

On a busy machine times move with the load.  ``--instructions`` counts instead the
instructions each side's whole process executes (valgrind's cachegrind, no cache
simulation, ``PYTHONHASHSEED=0``): a 1-hand run (start-up) and a larger one per side,
per action from their difference, the benchmark-size run extrapolated (start-up once).
Instructions are not time (tonk runs fewer instructions per second than RLCard: more
cache misses, more branches mispredicted), but they do not depend on the load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HOME = ROOT / "build" / "peer-rlcard"
CHILD = ROOT / "bench" / "peer_rlcard_child.py"
RESULTS = ROOT / "bench" / "results"
RLCARD = "rlcard==1.2.0"
SIDES = ("rlcard", "tonk", "tonk_sqlite")
TARGETS = {"tonk": 3.0, "tonk_sqlite": 1.0}


def rlcard_python(spec: str = RLCARD) -> Path:
    """The interpreter of the RLCard venv (created and installed from PyPI once)."""
    python = HOME / "venv" / "bin" / "python"
    marker = HOME / "installed"
    if marker.exists() and marker.read_text().strip() == spec and python.exists():
        return python
    if not python.exists():
        venv.create(HOME / "venv", with_pip=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", spec], check=True)
    marker.write_text(spec + "\n")
    return python


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(cmd: list[str], cwd: Path) -> dict[str, Any]:
    """Run ``cmd`` as a fresh process: its wall time, CPU time (user + system) and the last
    line of its output parsed as JSON."""
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=_env(), stdout=out_f, stderr=err_f)
        _pid, status, usage = os.wait4(proc.pid, 0)  # reaps it: its own rusage
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out_f.seek(0)
        err_f.seek(0)
        out, err = out_f.read(), err_f.read()
    if proc.returncode:
        raise SystemExit(f"error: {' '.join(cmd)} failed: {err.decode(errors='replace').strip()[-500:]}")
    text = out.decode()
    start = text.find("{")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "out": json.loads(text[start:]) if start >= 0 else {}}


def tonk_command(hands: int, seed: int, db: str | None, tonk: Path | None = None) -> list[str]:
    tonk = tonk or Path(sys.executable).parent / "tonk"
    cmd = [str(tonk)] if tonk.exists() else [sys.executable, "-m", "tonk.cli.app"]
    store = ["--db", db] if db else ["--no-store"]
    return cmd + ["simulate", "--hands", str(hands), "--players", "3", "--bot", "random", "--bot", "random", "--bot", "random", "--seed", str(seed), *store, "--json"]


def run_side(side: str, python: Path, args: argparse.Namespace, tmp: Path, hands: int | None = None) -> dict[str, Any]:
    if side == "rlcard":
        n = hands or args.rlcard_hands
        r = timed([str(python), str(CHILD), str(n), str(args.seed)], tmp)
        actions, inner = r["out"]["actions"], r["out"]["play_seconds"]
        extra = {"player_actions": r["out"]["player_actions"], "hands": n}
    else:
        n = hands or args.tonk_hands
        db = str(tmp / "sim.db") if side == "tonk_sqlite" else None
        r = timed(tonk_command(n, args.seed, db, args.before if side == "tonk_before" else None), tmp)
        for suffix in ("", "-wal", "-shm"):
            if db and Path(db + suffix).exists():
                Path(db + suffix).unlink()
        actions, inner = r["out"]["actions"], r["out"]["seconds"]
        extra = {"hands": n, "events": r["out"]["events"]}
    return {"actions": actions, "wall_s": r["wall"], "cpu_s": r["cpu"], "inner_s": inner, **extra}


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def rates(key: str) -> list[float]:
        return [r["actions"] / r[key] for r in runs]

    out: dict[str, Any] = {"actions": runs[0]["actions"], "hands": runs[0]["hands"], "rounds": len(runs)}
    for key, name in (("wall_s", "wall"), ("cpu_s", "cpu"), ("inner_s", "in_process_play")):
        rs = rates(key)
        out[f"best_{name}"] = round(max(rs))
        out[f"median_{name}"] = round(statistics.median(rs))
    out["wall_s"] = [round(r["wall_s"], 3) for r in runs]
    out["cpu_s"] = [round(r["cpu_s"], 3) for r in runs]
    if "player_actions" in runs[0]:
        out["player_actions"] = runs[0]["player_actions"]
    if "events" in runs[0]:
        out["events"] = runs[0]["events"]
    return out


def paired_wall_ratios(side: list[dict[str, Any]], peer: list[dict[str, Any]]) -> list[float]:
    """Each round's actions per second of wall time, ``side`` over ``peer`` (the runs of one
    round ran one after the other)."""
    return [round((s["actions"] / s["wall_s"]) / (p["actions"] / p["wall_s"]), 2) for s, p in zip(side, peer, strict=True)]


def measure(args: argparse.Namespace) -> dict[str, Any]:
    python = rlcard_python(args.rlcard)
    all_sides = SIDES + (("tonk_before",) if args.before else ())
    runs: dict[str, list] = {s: [] for s in all_sides}
    with tempfile.TemporaryDirectory(prefix="tonk-peer-rlcard-") as d:
        tmp = Path(d)
        for side in all_sides:  # untimed: byte-compile, fill the file cache
            run_side(side, python, args, tmp, hands=200)
        for r in range(args.rounds):
            order = all_sides if r % 2 == 0 else tuple(reversed(all_sides))
            for side in order:
                runs[side].append(run_side(side, python, args, tmp))
                last = runs[side][-1]
                print(f"round {r + 1} {side:<11} {last['actions']:>8,} actions  wall {last['wall_s']:6.2f} s  cpu {last['cpu_s']:6.2f} s", file=sys.stderr)
    sides = {s: summarise(v) for s, v in runs.items()}
    peer = sides["rlcard"]
    ratios = {}
    for side in ("tonk", "tonk_sqlite") + (("tonk_before",) if args.before else ()):
        ratios[side] = {
            k: round(sides[side][k] / peer[k], 2) for k in ("best_wall", "median_wall", "best_cpu", "median_cpu", "best_in_process_play")
        }
        ratios[side]["round_wall"] = paired_wall_ratios(runs[side], runs["rlcard"])
        ratios[side]["paired_median_wall"] = round(statistics.median(ratios[side]["round_wall"]), 2)
        ratios[side]["target"] = TARGETS.get(side, TARGETS["tonk"])
        ratios[side]["met_paired_median_wall"] = ratios[side]["paired_median_wall"] >= ratios[side]["target"]
    return {
        "command": "python -m bench.peer_rlcard " + " ".join(sys.argv[1:]),
        "rlcard": args.rlcard,
        "seed": args.seed,
        "load_average_after": os.getloadavg(),
        "sides": sides,
        "ratios": ratios,
    }


def table(res: dict[str, Any]) -> str:
    s = res["sides"]
    lines = [
        "actions per second, whole process (start-up included); best / median of "
        f"{s['rlcard']['rounds']} rounds",
        f"{'side':<12} {'actions':>9} {'wall best':>10} {'wall med':>10} {'cpu best':>10} {'cpu med':>10} {'play only':>10}",
    ]
    for side in s:
        r = s[side]
        lines.append(
            f"{side:<12} {r['actions']:>9,} {r['best_wall']:>10,} {r['median_wall']:>10,} {r['best_cpu']:>10,} {r['median_cpu']:>10,} {r['best_in_process_play']:>10,}"
        )
    for side, ra in res["ratios"].items():
        lines.append(
            f"{side} / rlcard: wall {ra['best_wall']:.2f} best, {ra['median_wall']:.2f} median; cpu {ra['best_cpu']:.2f} best, "
            f"{ra['median_cpu']:.2f} median; play only {ra['best_in_process_play']:.2f}; wall within each round "
            f"{', '.join(f'{x:.2f}' for x in ra['round_wall'])}: median {ra['paired_median_wall']:.2f} "
            f"(target {ra['target']}: {'met' if ra['met_paired_median_wall'] else 'NOT met'} by the median of the rounds' ratios)"
        )
    lines.append(f"rlcard: {s['rlcard']['hands']:,} hands of 2-seat gin rummy ({res['rlcard']}); tonk: {s['tonk']['hands']:,} hands at 3 seats")
    return "\n".join(lines)


# --- instruction counts: the same processes under valgrind (load-independent) -----------------


def instructions(cmd: list[str], cwd: Path) -> tuple[int, dict[str, Any]]:
    """Instructions executed by ``cmd`` as a whole process (valgrind's cachegrind, no cache
    simulation, hash seed fixed) and its JSON output."""
    import re
    import shutil

    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("error: --instructions needs valgrind on PATH")
    env = _env()
    env["PYTHONHASHSEED"] = "0"
    done = subprocess.run(
        [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *cmd], cwd=cwd, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"error: {' '.join(cmd)} failed under valgrind: {done.stderr.strip()[-500:]}")
    m = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if m is None:
        raise SystemExit("error: no instruction count in valgrind's output")
    out = done.stdout
    return int(m.group(1).replace(",", "")), json.loads(out[out.find("{") :])


def measure_instructions(args: argparse.Namespace, small: int = 1) -> dict[str, Any]:
    """Per side: the instructions of a 1-hand run (start-up) and of a run of ``--ir-tonk-hands``
    or ``--ir-rlcard-hands`` hands; per action the difference over the actions between them;
    the whole benchmark-size run extrapolated (start-up once, then per action)."""
    python = rlcard_python(args.rlcard)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="tonk-peer-rlcard-") as d:
        tmp = Path(d)
        for side in ("rlcard", "tonk") + (("tonk_before",) if args.before else ()):
            full = run_side(side, python, args, tmp)["actions"]  # .pyc written; the benchmark-size run's actions
            sizes = (small, args.ir_rlcard_hands if side == "rlcard" else args.ir_tonk_hands)
            counts = []
            for hands in sizes:
                if side == "rlcard":
                    cmd = [str(python), str(CHILD), str(hands), str(args.seed)]
                else:
                    cmd = tonk_command(hands, args.seed, None, args.before if side == "tonk_before" else None)
                ir, rep = instructions(cmd, tmp)
                counts.append((ir, rep["actions"]))
            (ir0, a0), (ir1, a1) = counts
            per_action = (ir1 - ir0) / (a1 - a0)
            out[side] = {
                "startup_instructions": ir0,
                "per_action": round(per_action),
                "runs": [{"instructions": ir, "actions": a} for ir, a in counts],
                "benchmark_actions": full,
                "whole_run_per_action": round((ir0 + per_action * (full - a0)) / full),
            }
            print(f"{side:<12} start-up {ir0 / 1e9:.2f} G instructions, {per_action / 1e3:.1f} k per action", file=sys.stderr)
    for side in out:
        if side != "rlcard":
            out[side]["ratio_to_rlcard"] = round(out["rlcard"]["whole_run_per_action"] / out[side]["whole_run_per_action"], 2)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.peer_rlcard", description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="timed runs of each side (alternating)")
    ap.add_argument("--tonk-hands", type=int, default=40_000, help="hands of tonk simulate (3 seats)")
    ap.add_argument("--rlcard-hands", type=int, default=2_000, help="hands of gin rummy (about as many actions as tonk's 40,000 hands)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rlcard", default=RLCARD, help="the pip requirement of the peer")
    ap.add_argument(
        "--instructions",
        action="store_true",
        help="instead of timing: count the instructions each side executes under valgrind (load-independent; a few minutes)",
    )
    ap.add_argument("--ir-tonk-hands", type=int, default=4_000, help="with --instructions: hands of the larger tonk run")
    ap.add_argument("--ir-rlcard-hands", type=int, default=200, help="with --instructions: hands of the larger RLCard run")
    ap.add_argument("--before", type=Path, help="another tonk executable (e.g. .bench/baseline-REV/venv/bin/tonk, see bench.compare) run as a fourth side, tonk_before, --no-store")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.tonk_hands < 1 or args.rlcard_hands < 1:
        ap.error("--rounds, --tonk-hands and --rlcard-hands must be at least 1")
    if args.before is not None:
        args.before = args.before.resolve()
        if not args.before.is_file():
            ap.error(f"--before {args.before}: no such executable")
    if args.instructions:
        res = {"command": "python -m bench.peer_rlcard " + " ".join(sys.argv[1:]), "instructions": measure_instructions(args)}
        for side, r in res["instructions"].items():
            print(
                f"{side:<12} start-up {r['startup_instructions']:,} instructions; {r['per_action']:,} per action; "
                f"the benchmark-size run ({r['benchmark_actions']:,} actions) {r['whole_run_per_action']:,} per action"
                + (f"; {r['ratio_to_rlcard']:.2f}x RLCard's actions per instruction" if "ratio_to_rlcard" in r else "")
            )
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "peer_rlcard_instructions.json").write_text(json.dumps(res, indent=1) + "\n")
        return 0
    res = measure(args)
    print(table(res))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "peer_rlcard.json").write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
