"""Event-store throughput, with raw sqlite3 measured side by side in the same run.

    .venv/bin/python bench/bench_store.py [--games N] [--hands H] [--repeat R]

prints one JSON document.  Library use (``bench/run.py``)::

    from bench.bench_store import measure_append, measure_read
    measure_append(tmpdir, games=500)  -> {"tonk_events_per_s": …, "raw_events_per_s": …, "ratio": …, …}
    measure_read(tmpdir, games=500)    -> the same keys (and "tonk_iter_games_events_per_s")

What is timed, on both sides, from the same recorded games:

* **append**: every game appended in one transaction, starting from event
  objects (so msgspec encoding is inside the timing on both sides).  Raw:
  ``BEGIN; executemany(INSERT game_id, seq, type, payload); COMMIT`` into a
  plain table keyed by ``(game_id, seq)``.  tonk: ``EventStore.append`` (type
  check, expected-version check, hash chain, ``games`` projection, triggers).
  Both in WAL mode with the same ``synchronous`` setting (``FULL``, the store's
  default, and ``NORMAL``, ``durable=False``).
* **read**: each game's events read, decoded into event objects and folded
  trivially (counted by type).  Raw: ``SELECT payload … ORDER BY seq`` and
  ``msgspec.json.Decoder(Event)`` on the same file; tonk: ``EventStore.read``
  (and, reported apart, ``EventStore.iter_games`` over the whole archive).

Each side is measured ``repeat`` times, alternating, on fresh files; the best
time of each side is kept.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterable

import msgspec

from tonk.variants import load_ruleset
from tonk.core import Game
from tonk.core.events import Event, encode
from tonk.storage import EventStore
from tonk.storage import sqlite_layout as lean

RAW_SCHEMA = (
    "CREATE TABLE events (game_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, "
    "payload TEXT NOT NULL, PRIMARY KEY (game_id, seq))"
)


def recorded_games(games: int, hands: int = 5, seed: int = 0) -> list[tuple[str, list[Event]]]:
    """``games`` complete games of three players, ``hands`` hands each, random legal play."""
    out = []
    for k in range(games):
        rng = random.Random(seed * 1_000_003 + k)
        g = Game.new(["ann", "bob", "cy"], seed=seed * 1_000_003 + k, ruleset=load_ruleset((), {"max_turns_per_hand": 200}))
        for _ in range(hands):
            g.deal()
            while g.in_hand:
                g.play(rng.choice(g.legal_actions()))
        g.end()
        out.append((g.game_id, list(g.events)))
    return out


def _fresh(tmpdir: str | Path, name: str) -> Path:
    path = Path(tmpdir) / name
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        if p.exists():
            p.unlink()
    return path


def _raw_append(path: Path, games: list[tuple[str, list[Event]]], synchronous: str) -> float:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    conn.execute(RAW_SCHEMA)
    sql = "INSERT INTO events (game_id, seq, type, payload) VALUES (?, ?, ?, ?)"
    t0 = time.perf_counter()
    for gid, events in games:
        rows = [(gid, i, e.__struct_config__.tag, encode(e).decode()) for i, e in enumerate(events, 1)]
        conn.execute("BEGIN")
        conn.executemany(sql, rows)
        conn.execute("COMMIT")
    dt = time.perf_counter() - t0
    conn.close()
    return dt


def _tonk_append(path: Path, games: list[tuple[str, list[Event]]], durable: bool) -> float:
    store = EventStore.open(path, durable=durable)
    t0 = time.perf_counter()
    for gid, events in games:
        store.append(gid, events, 0)
    dt = time.perf_counter() - t0
    store.close()
    return dt


def _best(repeat: int, sides: dict[str, Callable[[int], float]]) -> dict[str, float]:
    best = {name: float("inf") for name in sides}
    for r in range(repeat):
        for name, run in sides.items():
            best[name] = min(best[name], run(r))
    return best


def measure_append(
    tmpdir: str | Path,
    games: int = 500,
    *,
    hands: int = 5,
    durable: bool = True,
    repeat: int = 3,
    recorded: list[tuple[str, list[Event]]] | None = None,
) -> dict:
    """Append throughput (events/s) of the store and of raw sqlite3, same run, same setting."""
    recorded = recorded if recorded is not None else recorded_games(games, hands)
    n = sum(len(ev) for _, ev in recorded)
    sync = "FULL" if durable else "NORMAL"
    best = _best(
        repeat,
        {
            "raw": lambda r: _raw_append(_fresh(tmpdir, f"raw-append-{r}.db"), recorded, sync),
            "tonk": lambda r: _tonk_append(_fresh(tmpdir, f"tonk-append-{r}.db"), recorded, durable),
        },
    )
    for r in range(repeat):
        _fresh(tmpdir, f"raw-append-{r}.db")
        _fresh(tmpdir, f"tonk-append-{r}.db")
    tonk, raw = n / best["tonk"], n / best["raw"]
    return {
        "what": "append, one transaction per game, from event objects",
        "synchronous": sync,
        "games": len(recorded),
        "events": n,
        "tonk_events_per_s": round(tonk),
        "raw_events_per_s": round(raw),
        "ratio": round(tonk / raw, 3),
    }


def _trivial_fold(events: list[Event], counts: dict) -> None:
    for e in events:
        t = type(e)
        counts[t] = counts.get(t, 0) + 1


def measure_read(
    tmpdir: str | Path,
    games: int = 500,
    *,
    hands: int = 5,
    repeat: int = 3,
    recorded: list[tuple[str, list[Event]]] | None = None,
) -> dict:
    """Read + decode + trivial fold throughput (events/s) of the store and of raw sqlite3
    with msgspec, over the same store file."""
    recorded = recorded if recorded is not None else recorded_games(games, hands)
    n = sum(len(ev) for _, ev in recorded)
    path = _fresh(tmpdir, "tonk-read.db")
    with EventStore.open(path) as store:
        for gid, events in recorded:
            store.append(gid, events, 0)
    ids = [gid for gid, _ in recorded]
    decoder = msgspec.json.Decoder(Event)

    def raw(_: int) -> float:
        conn = sqlite3.connect(path)
        lean.register_functions(conn)  # the store's payloads, large ones compressed (tonk.storage.payload_zip)
        counts: dict = {}
        t0 = time.perf_counter()
        for gid in ids:
            rows = conn.execute(lean.PAYLOADS, (gid,))
            _trivial_fold([decoder.decode(p) for (_, p) in rows], counts)
        dt = time.perf_counter() - t0
        conn.close()
        assert sum(counts.values()) == n
        return dt

    def through_store(walk: Callable[[EventStore], Iterable[list[Event]]]) -> Callable[[int], float]:
        def run(_: int) -> float:
            counts: dict = {}
            with EventStore.open(path, create=False) as store:
                t0 = time.perf_counter()
                for events in walk(store):
                    _trivial_fold(events, counts)
                dt = time.perf_counter() - t0
            assert sum(counts.values()) == n
            return dt

        return run

    tonk = through_store(lambda store: (store.read(gid) for gid in ids))
    tonk_archive = through_store(lambda store: (events for _, events in store.iter_games()))

    best = _best(repeat, {"raw": raw, "tonk": tonk, "archive": tonk_archive})
    _fresh(tmpdir, "tonk-read.db")
    t, r = n / best["tonk"], n / best["raw"]
    return {
        "what": "read each game, decode, fold trivially",
        "games": len(recorded),
        "events": n,
        "tonk_events_per_s": round(t),
        "raw_events_per_s": round(r),
        "ratio": round(t / r, 3),
        "tonk_iter_games_events_per_s": round(n / best["archive"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--hands", type=int, default=5, help="hands per game")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    recorded = recorded_games(args.games, args.hands)
    setup = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="tonk-bench-", dir=os.environ.get("TONK_BENCH_DIR")) as tmp:
        result = {
            "command": " ".join([os.path.relpath(sys.executable), *sys.argv]) if argv is None else None,
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "cpus": os.cpu_count(),
            "games_generated_in_s": round(setup, 2),
            "append": measure_append(tmp, recorded=recorded, repeat=args.repeat),
            "append_normal_sync": measure_append(tmp, recorded=recorded, repeat=args.repeat, durable=False),
            "read": measure_read(tmp, recorded=recorded, repeat=args.repeat),
        }
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
