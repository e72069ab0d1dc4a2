"""The PostgreSQL store against raw psycopg doing the same work on the same server, side by side.

    .venv/bin/python -m bench.bench_postgres [--hands N] [--repeat R] [--dsn URL]

prints one JSON document.  The server: ``--dsn``, else ``TONK_PG_DSN``, else a
throwaway one started for the run (tests/support/pg_cluster.py: ``fsync=off``,
``synchronous_commit=off``, which both sides share).  Every repeat uses fresh
schemas; the two sides alternate; the best time of each side is kept.

* **append**: every game appended in one transaction from event objects
  (msgspec encoding inside the timing on both sides).  Raw: ``executemany``
  of ``INSERT (game_id, seq, type, payload)`` into a plain table keyed by
  ``(game_id, seq)``, one transaction per game.  tonk:
  ``PostgresEventStore.append`` (the append lock, expected version, hash
  chain, ``games`` projection, global position, NOTIFY, triggers).
* **replay**: every game read, decoded and folded into a ``State``
  (``iter_games`` + ``fold``) against the raw limit: one plain query of the
  same rows (a server-side cursor, 2,000 rows a fetch, as the store reads),
  ``msgspec`` decode, a count per type.  Target 0.5.
* **audit**: the one-pass verified scan (``iter_verified_games``: every link
  of the hash chain) and ``audit_events`` under each game's pinned rules,
  against the same raw limit.  Target 0.2.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import uuid
from typing import Callable

import msgspec

from bench.run import _best, recorded_games

TARGETS = {"append_ratio": 0.5, "replay_ratio": 0.5, "audit_ratio": 0.2}


def _server(dsn: str | None, durable: bool = False):
    """(dsn, cluster or None): the named server, or a throwaway one (``durable``: fsync and
    synchronous_commit on, PostgreSQL's defaults; otherwise both off)."""
    dsn = dsn or os.environ.get("TONK_PG_DSN")
    if dsn:
        return dsn, None
    from tests.support.pg_cluster import Cluster  # the tests' throwaway server (run from the checkout's root)

    cluster = Cluster.start(durable=durable)
    return cluster.dsn, cluster


def _with_schema(dsn: str, schema: str) -> str:
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    parts = urlsplit(dsn)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "options"] + [("options", f"-csearch_path={schema}")]
    return urlunsplit(parts._replace(query=urlencode(query)))


class Schemas:
    """Fresh schemas on one server, dropped at the end."""

    def __init__(self, dsn: str):
        import psycopg

        self.dsn = dsn
        self.admin = psycopg.connect(dsn, autocommit=True)
        self.made: list[str] = []

    def fresh(self) -> str:
        name = f"b_{uuid.uuid4().hex[:12]}"
        self.admin.execute(f"CREATE SCHEMA {name}")
        self.made.append(name)
        return _with_schema(self.dsn, name)

    def drop(self) -> None:
        for name in self.made:
            self.admin.execute(f"DROP SCHEMA {name} CASCADE")
        self.admin.close()


def raw_append(url: str, games: list) -> float:
    import psycopg

    from tonk.core.events import encode

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE raw_events (game_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL, PRIMARY KEY (game_id, seq))"
        )
        cur = conn.cursor()
        t0 = time.perf_counter()
        for gid, events in games:
            rows = [(gid, i, e.__struct_config__.tag, encode(e).decode()) for i, e in enumerate(events, 1)]
            with conn.transaction():
                cur.executemany("INSERT INTO raw_events (game_id, seq, type, payload) VALUES (%s, %s, %s, %s)", rows)
        return time.perf_counter() - t0


def tonk_append(url: str, games: list) -> float:
    from tonk.storage.open import open_store

    with open_store(url) as store:
        t0 = time.perf_counter()
        for gid, events in games:
            store.append(gid, events, 0)
        return time.perf_counter() - t0


def raw_limit(url: str) -> tuple[float, int]:
    import psycopg

    from tonk.core.events import Event

    decoder = msgspec.json.Decoder(Event)
    counts: dict = {}
    with psycopg.connect(url) as conn:
        t0 = time.perf_counter()
        with conn.cursor(name="raw") as cur:  # streamed in batches, as the store reads (fetching all at once is slower here)
            cur.itersize = 2000
            cur.execute("SELECT payload FROM events ORDER BY game_id, seq")
            for (payload,) in cur:
                t = type(decoder.decode(payload))
                counts[t] = counts.get(t, 0) + 1
        dt = time.perf_counter() - t0
    return dt, sum(counts.values())


def tonk_replay(url: str) -> tuple[float, int]:
    from bench.archive import replay_archive
    from tonk.storage.open import open_store

    with open_store(url, create=False) as store:
        t0 = time.perf_counter()
        n = replay_archive(store)
        return time.perf_counter() - t0, n


def tonk_audit(url: str) -> tuple[float, int]:
    from bench.archive import audit_archive
    from tonk.storage.open import open_store

    with open_store(url, create=False) as store:
        t0 = time.perf_counter()
        n = audit_archive(store)
        return time.perf_counter() - t0, n


def _ratio(n: int, best: dict[str, float], target: float) -> dict:
    tonk, raw = n / best["tonk"], n / best["raw"]
    return {"events": n, "tonk_events_per_s": round(tonk), "raw_events_per_s": round(raw), "ratio": round(tonk / raw, 3), "target_ratio": target, "met": tonk / raw >= target}


def run(dsn: str, hands: int, repeat: int) -> dict:
    from tonk.storage.open import open_store

    games = recorded_games(hands)
    n = sum(len(e) for _, e in games)
    schemas = Schemas(dsn)
    try:
        append = _best(repeat, {"raw": lambda: raw_append(schemas.fresh(), games), "tonk": lambda: tonk_append(schemas.fresh(), games)})
        archive = schemas.fresh()
        with open_store(archive) as store:
            for gid, events in games:
                store.append(gid, events, 0)
        counts: dict[str, int] = {}

        def timed(name: str, fn: Callable[[str], tuple[float, int]]) -> Callable[[], float]:
            def go() -> float:
                dt, k = fn(archive)
                counts[name] = k
                return dt

            return go

        replay = _best(repeat, {"raw": timed("raw", raw_limit), "tonk": timed("tonk", tonk_replay)})
        audit = _best(repeat, {"raw": timed("raw", raw_limit), "tonk": timed("tonk", tonk_audit)})
        assert counts["raw"] == counts["tonk"] == n, counts
    finally:
        schemas.drop()
    return {
        "games": len(games),
        "hands": hands,
        "append": _ratio(n, append, TARGETS["append_ratio"]),
        "replay": _ratio(n, replay, TARGETS["replay_ratio"]),
        "audit": _ratio(n, audit, TARGETS["audit_ratio"]),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=2000, help="hands in the archive (10 a game)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dsn", default=None, help="a PostgreSQL server (default: TONK_PG_DSN, else a throwaway one)")
    args = ap.parse_args(argv)
    dsn, cluster = _server(args.dsn)
    try:
        import psycopg

        with psycopg.connect(dsn) as conn:
            server = conn.execute("SHOW server_version").fetchone()[0]
            settings = {k: conn.execute(f"SHOW {k}").fetchone()[0] for k in ("fsync", "synchronous_commit")}
        result = run(dsn, args.hands, args.repeat)
    finally:
        if cluster is not None:
            cluster.stop()
    result["server"] = {"version": server, "throwaway": cluster is not None, **settings}
    result["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count()}
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
