"""The benchmark suite: prints a table and writes JSON (bench/results/latest.json).

    .venv/bin/python -m bench.run            # full sizes (a few minutes)
    .venv/bin/python -m bench.run --quick    # small sizes (under a minute)
    make bench                               # the full suite

Every ratio is measured side by side in the same run, on the same rows, the
two sides alternating, best of ``repeat`` each.  What is measured:

1. ``random_playouts``: random bots, no storage: player actions per second
   (every action through ``legal_actions`` and ``decide``, every event
   produced and folded).  Target 100,000 actions/s on one core.  A cProfile
   of a short run is kept in the JSON (top functions by own time).
2. ``greedy_playouts``: greedy bots, no storage: hands and actions per second.
3. ``append``: simulated games appended to SQLite (``EventStore.append``, one
   transaction per game) against raw ``sqlite3`` ``executemany`` of the same
   rows, one transaction per game (``bench/bench_store.py``'s
   ``measure_append``).  Target ratio 0.5.  The end-to-end rate of
   ``simulate`` into a file is reported beside it.
4. ``replay``: read every game from the store, decode, fold into the engine's
   ``State`` (``EventStore.iter_games`` + ``fold``) against the raw limit: one
   plain ``sqlite3`` scan of the same rows, ``msgspec`` decode into the same
   event types, a trivial fold (a count per type).  Target ratio 0.5.
   ``measure_read`` of bench_store (per-game reads, trivial fold) is kept too.
5. ``audit``: every game re-run through the rules (``audit_events`` under its
   pinned ruleset) and the whole hash chain verified, in one scan of the
   archive (``EventStore.iter_verified_games`` checks each link while it
   decodes), against the same raw limit.  Target ratio 0.3 (issue 24; 0.2 before).  The path of
   ``tonk audit --all`` (``audit_verified``: chain, conservation after every
   event, rules) is measured beside it.
6. ``audit_memory``: peak RSS of a fresh process auditing an archive of
   10,000 and 100,000 hands (quick: 1,000 and 10,000), streaming: its own
   high-water mark (``VmHWM``; ``ru_maxrss`` is kept too, but on Linux it
   also counts the parent's size at the fork).
7. ``startup``: wall time of ``tonk --help``.

The peer comparison of random playouts (RLCard's bare gin-rummy engine, whole
processes, start-up included) is ``bench/peer_rlcard.py`` (``python -m bench.peer_rlcard``).
8. ``service``: 50 tables of HTTP clients against ``tonk serve`` against the same
   server's bare JSON endpoint (``bench/bench_service.py``).  Targets: ratio 0.25,
   p99 100 ms.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import msgspec

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"

#: the table of the archive benchmarks (3-6): two greedy players and a random one
ARCHIVE_BOTS = ("greedy", "greedy", "random")

SIZES: dict[str, dict[str, Any]] = {
    "quick": {
        "repeat": 2,
        "random_hands": 20_000,
        "greedy_hands": 2_000,
        "archive_hands": 2_000,
        "memory_hands": (1_000, 10_000),
        "startup_runs": 3,
        "profile_hands": 3_000,
    },
    "full": {
        "repeat": 3,
        "random_hands": 100_000,
        "greedy_hands": 10_000,
        "archive_hands": 20_000,
        "memory_hands": (10_000, 100_000),
        "startup_runs": 7,
        "profile_hands": 10_000,
    },
}

TARGETS = {
    "random_actions_per_s": 100_000,
    "append_ratio": 0.5,
    "replay_ratio": 0.5,
    "audit_ratio": 0.3,  # issue 24 (0.2 before it)
}


def _best(repeat: int, sides: dict[str, Callable[[], float]]) -> dict[str, float]:
    """Run each side ``repeat`` times, alternating; the best (lowest) time of each."""
    best = {name: float("inf") for name in sides}
    for _ in range(repeat):
        for name, run in sides.items():
            best[name] = min(best[name], run())
    return best


# --- 1, 2: playouts ----------------------------------------------------------------------------


def _playout(bots: tuple[str, ...], players: int, hands: int, seed: int = 1) -> dict:
    from tonk.application.simulate import SimConfig, simulate

    return simulate(SimConfig(hands=hands, players=players, bots=bots, seed=seed))


def _profile(bots: tuple[str, ...], players: int, hands: int, top: int = 15) -> list[dict]:
    from tonk.application.simulate import SimConfig, simulate

    prof = cProfile.Profile()
    prof.enable()
    simulate(SimConfig(hands=hands, players=players, bots=bots, seed=2))
    prof.disable()
    stats = pstats.Stats(prof, stream=io.StringIO())
    total = sum(v[2] for v in stats.stats.values())  # own time of everything
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    out = []
    for (file, line, func), (cc, nc, tt, ct, _callers) in rows:
        where = f"{Path(file).name}:{line}" if line else file
        out.append({"function": f"{where}({func})", "calls": nc, "own_share": round(tt / total, 3), "cumulative_share": round(ct / total, 3)})
    return out


def bench_playouts(size: dict) -> dict:
    repeat = size["repeat"]
    out: dict[str, Any] = {}
    for players in (3, 2):
        best = None
        for _ in range(repeat):
            r = _playout(("random",), players, size["random_hands"])
            if best is None or r["actions_per_second"] > best["actions_per_second"]:
                best = r
        out[f"random_{players}p"] = {
            "hands": best["hands"],
            "actions": best["actions"],
            "events": best["events"],
            "actions_per_second": round(best["actions_per_second"]),
            "hands_per_second": round(best["hands_per_second"]),
            "mean_hand_actions": round(best["mean_hand_actions"], 2),
        }
    out["target_actions_per_second"] = TARGETS["random_actions_per_s"]
    out["met"] = out["random_3p"]["actions_per_second"] >= TARGETS["random_actions_per_s"]
    out["profile_random_3p"] = _profile(("random",), 3, size["profile_hands"])
    greedy: dict[str, Any] = {}
    for label, bots, players in (("greedy_3p", ("greedy",), 3), ("greedy_vs_random_2p", ("greedy", "random"), 2)):
        best = None
        for _ in range(repeat):
            r = _playout(bots, players, size["greedy_hands"])
            if best is None or r["hands_per_second"] > best["hands_per_second"]:
                best = r
        greedy[label] = {
            "hands": best["hands"],
            "hands_per_second": round(best["hands_per_second"]),
            "actions_per_second": round(best["actions_per_second"]),
            "mean_hand_actions": round(best["mean_hand_actions"], 2),
        }
    return {"random_playouts": out, "greedy_playouts": greedy}


# --- the archive -------------------------------------------------------------------------------


def archive_config(hands: int, seed: int = 3, workers: int = 1):
    from tonk.application.simulate import SimConfig

    return SimConfig(hands=hands, players=3, bots=ARCHIVE_BOTS, seed=seed, hands_per_game=10, workers=workers)


def recorded_games(hands: int) -> list[tuple[str, list]]:
    """The archive's games as event lists (played once, stored by every side alike)."""
    from tonk.application.simulate import play_game

    config = archive_config(hands)
    ruleset = config.ruleset()
    out = []
    for i in range(config.games):
        events = play_game(config, ruleset, i)
        out.append((events[0].game_id, events))
    return out


def _fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        if p.exists():
            p.unlink()
    return path


# --- 3: append ---------------------------------------------------------------------------------


def bench_append(tmp: Path, games: list, size: dict) -> dict:
    from bench.bench_store import measure_append

    from tonk.application.simulate import simulate

    durable = measure_append(tmp, recorded=games, repeat=size["repeat"], durable=True)
    normal = measure_append(tmp, recorded=games, repeat=size["repeat"], durable=False)
    # end to end: simulate straight into a file (play + append), one worker
    hands = size["archive_hands"]
    best = None
    for r in range(size["repeat"]):
        path = _fresh(tmp / f"sim-{r}.db")
        rep = simulate(archive_config(hands, seed=50 + r), str(path))
        _fresh(path)
        if best is None or rep["seconds"] < best["seconds"]:
            best = rep
    return {
        "durable": durable,
        "normal_sync": normal,
        "ratio": durable["ratio"],
        "target_ratio": TARGETS["append_ratio"],
        "met": durable["ratio"] >= TARGETS["append_ratio"],
        "simulate_into_file": {
            "hands": best["hands"],
            "events": best["events"],
            "events_per_second": round(best["events"] / best["seconds"]),
            "hands_per_second": round(best["hands_per_second"]),
        },
    }


# --- 4, 5: replay and audit against the raw limit ------------------------------------------------


def raw_limit(path: Path) -> tuple[float, int]:
    """Plain sqlite3 scan of every row, msgspec decode into the event types, a count per type."""
    from tonk.core.events import Event
    from tonk.storage import sqlite_layout as lean

    decoder = msgspec.json.Decoder(Event)
    conn = sqlite3.connect(path)
    lean.register_functions(conn)  # the store's payloads, large ones compressed (tonk.storage.payload_zip)
    counts: dict = {}
    t0 = time.perf_counter()
    for (_, _, payload) in conn.execute(lean.ALL_PAYLOADS):
        t = type(decoder.decode(payload))
        counts[t] = counts.get(t, 0) + 1
    dt = time.perf_counter() - t0
    conn.close()
    return dt, sum(counts.values())


def tonk_replay(path: Path) -> tuple[float, int]:
    """Every game read from the store, decoded and folded into a State (``bench.archive``)."""
    from bench.archive import replay_archive
    from tonk.storage import EventStore

    with EventStore.open(path, create=False) as store:
        t0 = time.perf_counter()
        n = replay_archive(store)
        return time.perf_counter() - t0, n


def tonk_audit(path: Path) -> tuple[float, int]:
    """Every game re-run through its pinned rules, and the whole hash chain verified, in one
    scan (``bench.archive.audit_archive``)."""
    from bench.archive import audit_archive
    from tonk.storage import EventStore

    with EventStore.open(path, create=False) as store:
        t0 = time.perf_counter()
        n = audit_archive(store)
        return time.perf_counter() - t0, n


def tonk_audit_cli_path(path: Path) -> tuple[float, int]:
    """``tonk audit --all``'s path (one scan; chain, conservation after every event,
    rules; a result object per game), results not kept."""
    from tonk.application.audit import audit_verified
    from tonk.storage import EventStore

    n = 0
    rulesets: dict = {}
    with EventStore.open(path, create=False) as store:
        t0 = time.perf_counter()
        for game in store.iter_verified_games():
            r = audit_verified(game, rulesets)
            assert r["verdict"] == "clean", r["findings"][:1]
            n += r["events"]
        dt = time.perf_counter() - t0
    return dt, n


def _ratio_bench(path: Path, repeat: int, side: Callable[[Path], tuple[float, int]], target: float) -> dict:
    counts: dict[str, int] = {}

    def timed(name: str, fn: Callable[[Path], tuple[float, int]]) -> Callable[[], float]:
        def go() -> float:
            dt, n = fn(path)
            counts[name] = n
            return dt

        return go

    best = _best(repeat, {"raw": timed("raw", raw_limit), "tonk": timed("tonk", side)})
    assert counts["raw"] == counts["tonk"], counts
    n = counts["raw"]
    tonk, raw = n / best["tonk"], n / best["raw"]
    return {
        "events": n,
        "tonk_events_per_s": round(tonk),
        "raw_events_per_s": round(raw),
        "ratio": round(tonk / raw, 3),
        "target_ratio": target,
        "met": tonk / raw >= target,
    }


def store_archive(path: Path, games: list) -> None:
    from tonk.storage import EventStore

    with EventStore.open(_fresh(path)) as store:
        for gid, events in games:
            store.append(gid, events, 0)


def bench_replay_audit(tmp: Path, games: list, size: dict) -> dict:
    from bench.bench_store import measure_read

    path = tmp / "archive.db"
    store_archive(path, games)
    replay = _ratio_bench(path, size["repeat"], tonk_replay, TARGETS["replay_ratio"])
    replay["bench_store_measure_read"] = measure_read(tmp, recorded=games, repeat=size["repeat"])
    audit = _ratio_bench(path, size["repeat"], tonk_audit, TARGETS["audit_ratio"])
    cli = _ratio_bench(path, max(1, size["repeat"] - 1), tonk_audit_cli_path, TARGETS["audit_ratio"])
    audit["tonk_audit_cli_path"] = {k: cli[k] for k in ("tonk_events_per_s", "raw_events_per_s", "ratio")}
    return {"replay": replay, "audit": audit}


# --- 6: memory ----------------------------------------------------------------------------------


def _hwm_kb() -> int | None:
    """This process image's own peak RSS (``VmHWM``), or ``None`` off Linux.

    ``ru_maxrss`` survives ``exec`` on Linux: a child started by a large parent
    reports at least the parent's size at the fork.  ``VmHWM`` belongs to the
    new image alone."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def _audit_memory_child(path: str) -> None:
    """In a fresh process: audit the archive at ``path`` (streaming), print JSON with the peaks."""
    import tonk.core.audit  # noqa: F401  (imports counted in the baseline below)
    import tonk.storage  # noqa: F401

    imported = _hwm_kb()
    dt, n = tonk_audit(Path(path))
    print(
        json.dumps(
            {
                "events": n,
                "seconds": dt,
                "hwm_after_imports_kb": imported,
                "peak_hwm_kb": _hwm_kb(),
                "ru_maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            }
        )
    )


def bench_memory(tmp: Path, size: dict) -> dict:
    from tonk.application.simulate import simulate

    out: dict[str, Any] = {}
    for hands in size["memory_hands"]:
        path = _fresh(tmp / f"memory-{hands}.db")
        t0 = time.perf_counter()
        rep = simulate(archive_config(hands, seed=7, workers=2), str(path))
        built = time.perf_counter() - t0
        proc = subprocess.run(
            [sys.executable, "-m", "bench.run", "--audit-memory-child", str(path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        child = json.loads(proc.stdout.strip().splitlines()[-1])
        out[str(hands)] = {
            "hands": hands,
            "games": rep["games"],
            "events": child["events"],
            "archive_mb": round(path.stat().st_size / 2**20, 1),
            "archive_built_in_s": round(built, 1),
            "audit_seconds": round(child["seconds"], 1),
            "ru_maxrss_mb": round(child["ru_maxrss_kb"] / 1024, 1),
        }
        if child["peak_hwm_kb"] is not None:
            out[str(hands)]["peak_rss_mb"] = round(child["peak_hwm_kb"] / 1024, 1)
            out[str(hands)]["rss_after_imports_mb"] = round(child["hwm_after_imports_kb"] / 1024, 1)
        else:  # no /proc: ru_maxrss is the figure there is
            out[str(hands)]["peak_rss_mb"] = out[str(hands)]["ru_maxrss_mb"]
        _fresh(path)
    small, large = (out[str(h)] for h in size["memory_hands"])
    out["growth_mb"] = round(large["peak_rss_mb"] - small["peak_rss_mb"], 1)
    out["flat"] = large["peak_rss_mb"] <= small["peak_rss_mb"] * 1.15 + 5
    return out


# --- 7: start-up --------------------------------------------------------------------------------


def bench_startup(size: dict) -> dict:
    tonk = Path(sys.executable).parent / "tonk"
    cmd = [str(tonk), "--help"] if tonk.exists() else [sys.executable, "-m", "tonk.cli.app", "--help"]

    def wall(args: list[str]) -> float:
        t0 = time.perf_counter()
        subprocess.run(args, capture_output=True, check=True)
        return time.perf_counter() - t0

    wall(cmd)  # warm the file cache
    runs = [wall(cmd) for _ in range(size["startup_runs"])]
    bare = [wall([sys.executable, "-c", "pass"]) for _ in range(size["startup_runs"])]
    return {
        "command": "tonk --help",
        "runs": len(runs),
        "min_s": round(min(runs), 3),
        "median_s": round(statistics.median(runs), 3),
        "python_bare_median_s": round(statistics.median(bare), 3),
    }


# --- the table ----------------------------------------------------------------------------------


def _fmt(n: float) -> str:
    return f"{n:,.0f}"


def table(results: dict) -> str:
    rows: list[tuple[str, str, str]] = []
    rp = results.get("random_playouts")
    if rp:
        for p in ("3p", "2p"):
            r = rp[f"random_{p}"]
            rows.append((f"1 random playouts {p}", f"{_fmt(r['actions_per_second'])} actions/s ({_fmt(r['hands_per_second'])} hands/s)", f"target {_fmt(rp['target_actions_per_second'])}: {'met' if p == '3p' and rp['met'] else ('-' if p == '2p' else 'NOT met')}"))
    gp = results.get("greedy_playouts")
    if gp:
        for k, r in gp.items():
            rows.append((f"2 {k}", f"{_fmt(r['hands_per_second'])} hands/s, {_fmt(r['actions_per_second'])} actions/s", ""))
    ap = results.get("append")
    if ap:
        d = ap["durable"]
        rows.append(("3 append (synchronous=FULL)", f"{_fmt(d['tonk_events_per_s'])} vs raw {_fmt(d['raw_events_per_s'])} events/s", f"ratio {d['ratio']:.2f} (target 0.5: {'met' if ap['met'] else 'NOT met'})"))
        nm = ap["normal_sync"]
        rows.append(("3 append (synchronous=NORMAL)", f"{_fmt(nm['tonk_events_per_s'])} vs raw {_fmt(nm['raw_events_per_s'])} events/s", f"ratio {nm['ratio']:.2f}"))
        s = ap["simulate_into_file"]
        rows.append(("3 simulate into a file", f"{_fmt(s['events_per_second'])} events/s, {_fmt(s['hands_per_second'])} hands/s", "end to end"))
    rp4 = results.get("replay")
    if rp4:
        rows.append(("4 replay (read, decode, fold)", f"{_fmt(rp4['tonk_events_per_s'])} vs raw {_fmt(rp4['raw_events_per_s'])} events/s", f"ratio {rp4['ratio']:.2f} (target 0.5: {'met' if rp4['met'] else 'NOT met'})"))
    au = results.get("audit")
    if au:
        rows.append(("5 audit (rules + hash chain)", f"{_fmt(au['tonk_events_per_s'])} vs raw {_fmt(au['raw_events_per_s'])} events/s", f"ratio {au['ratio']:.3f} (target {TARGETS['audit_ratio']}: {'met' if au['met'] else 'NOT met'})"))
        c = au["tonk_audit_cli_path"]
        rows.append(("5 audit, tonk audit's per-game path", f"{_fmt(c['tonk_events_per_s'])} events/s", f"ratio {c['ratio']:.2f}"))
    sv = results.get("service")
    if sv:
        s_, b_ = sv["service"], sv["bare"]
        rows.append(("8 service, 50 tables over HTTP", f"{_fmt(s_['commands_per_s'])} commands/s, {_fmt(s_['requests_per_s'])} req/s, p99 {s_['p99_ms']} ms", f"ratio {sv['ratio_to_bare']:.2f} to bare {_fmt(b_['requests_per_s'])} req/s (targets 0.25, p99 100 ms: {'met' if sv['met'] else 'NOT met'}); audit clean: {sv['clean']}"))
    mem = results.get("audit_memory")
    if mem:
        sizes = [k for k in mem if k.isdigit()]
        text = ", ".join(f"{int(k):,} hands {mem[k]['peak_rss_mb']} MB" for k in sizes)
        rows.append(("6 audit peak memory", text, f"growth {mem['growth_mb']} MB: {'flat' if mem['flat'] else 'NOT flat'}"))
    st = results.get("startup")
    if st:
        rows.append(("7 start-up: tonk --help", f"{st['median_s'] * 1000:.0f} ms median (min {st['min_s'] * 1000:.0f} ms)", f"bare python {st['python_bare_median_s'] * 1000:.0f} ms"))
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    lines = [f"{'benchmark'.ljust(w0)}  {'result'.ljust(w1)}  note", "-" * (w0 + w1 + 30)]
    lines += [f"{a.ljust(w0)}  {b.ljust(w1)}  {c}" for a, b, c in rows]
    return "\n".join(lines)


BENCHES = ("playouts", "append", "replay_audit", "memory", "startup", "service")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description="The tonk benchmark suite.")
    parser.add_argument("--quick", action="store_true", help="small sizes (under a minute)")
    parser.add_argument("--only", action="append", choices=BENCHES, help="run only these benchmarks (repeatable)")
    parser.add_argument("--out", default=str(RESULTS / "latest.json"), help="where to write the JSON")
    parser.add_argument("--audit-memory-child", metavar="DB", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.audit_memory_child:
        _audit_memory_child(args.audit_memory_child)
        return 0
    mode = "quick" if args.quick else "full"
    size = SIZES[mode]
    only = set(args.only or BENCHES)
    started = time.perf_counter()
    results: dict[str, Any] = {
        "command": "python -m bench.run" + (" --quick" if args.quick else "") + "".join(f" --only {o}" for o in (args.only or [])),
        "mode": mode,
        "sizes": {k: v for k, v in size.items()},
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "msgspec": msgspec.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "archive_bots": list(ARCHIVE_BOTS),
    }
    with tempfile.TemporaryDirectory(prefix="tonk-bench-", dir=os.environ.get("TONK_BENCH_DIR")) as tmpdir:
        tmp = Path(tmpdir)
        if "memory" in only:  # first, while this process is small (see _hwm_kb)
            results["audit_memory"] = bench_memory(tmp, size)
        if "playouts" in only:
            results.update(bench_playouts(size))
        if only & {"append", "replay_audit"}:
            games = recorded_games(size["archive_hands"])
            results["archive"] = {"hands": size["archive_hands"], "games": len(games), "events": sum(len(e) for _, e in games)}
            if "append" in only:
                results["append"] = bench_append(tmp, games, size)
            if "replay_audit" in only:
                results.update(bench_replay_audit(tmp, games, size))
            del games
        if "startup" in only:
            results["startup"] = bench_startup(size)
        if "service" in only:  # needs the extra 'serve' (make install sets it up)
            from .bench_service import measure as measure_service

            results["service"] = measure_service(tables=50, hands=10, seconds=5.0 if mode == "quick" else 20.0)
    results["total_seconds"] = round(time.perf_counter() - started, 1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))
    rp = results.get("random_playouts")
    if rp and not rp["met"]:
        print("\nrandom playouts below target; where the time goes (cProfile, own time):")
        for row in rp["profile_random_3p"][:10]:
            print(f"  {100 * row['own_share']:5.1f}%  {row['function']}  ({row['calls']:,} calls)")
    print(f"\nJSON: {out}  ({results['total_seconds']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
