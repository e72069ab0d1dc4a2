"""Where the audit's time goes, in CPU time, on one archive: the raw limit beside each part.

    .venv/bin/python -m bench.bench_audit                  # a 2,000-hand archive, best of 5
    .venv/bin/python -m bench.bench_audit --db A.db        # an archive kept from an earlier run
    .venv/bin/python -m bench.bench_audit --keep A.db      # make it and keep it (for A/B runs)

Measured in one process, the parts alternating, best of ``--repeat`` each, with
``time.process_time`` (CPU time: less disturbed by other jobs on the machine than the wall
clock ``bench.run`` uses):

* ``raw``: bench.run's raw limit (one plain sqlite3 scan, msgspec decode, a count per type);
* ``scan``: the verified scan alone (``EventStore.iter_verified_games``: every link of the
  hash chain checked while each payload is decoded);
* ``audit``: the scan and the rules (``bench.archive.audit_archive``: bench.run's audit);
* ``rules``: ``audit_events`` alone, on events decoded before the clock starts;
* ``per_game_path``: ``tonk audit --all``'s path (``audit_verified``: chain, conservation
  after every event, rules, deals) on the scan's games.

``ratio`` is raw / audit, bench.run's audit ratio (issue 24: at least 0.3).  For an A/B, run
this module of each build on one archive (``--db``), alternating; the archive's events are
the same for every build that reads its layout.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from bench.archive import audit_archive
from bench.run import raw_limit, recorded_games, store_archive


def _best(repeat: int, parts: dict[str, Callable[[], object]]) -> dict[str, float]:
    """Each part ``repeat`` times, alternating; the best CPU time of each, in ms."""
    best = {name: float("inf") for name in parts}
    for _ in range(repeat):
        for name, run in parts.items():
            t0 = time.process_time()
            run()
            best[name] = min(best[name], (time.process_time() - t0) * 1000)
    return best


def measure(db: Path, repeat: int) -> dict[str, Any]:
    from tonk.application.audit import audit_verified
    from tonk.core.audit import audit_events
    from tonk.storage import EventStore
    from tonk.variants import load_ruleset

    with EventStore.open(db, create=False) as store:
        games = [g.events for g in store.iter_verified_games()]
        rulesets: dict = {}
        ruleset = load_ruleset(games[0][0].ruleset)

        def scan() -> None:
            for game in store.iter_verified_games():
                assert game.intact, game.game_id

        def rules() -> None:
            for events in games:
                assert audit_events(events, ruleset=ruleset).clean

        def per_game_path() -> None:
            for game in store.iter_verified_games():
                assert audit_verified(game, rulesets)["verdict"] == "clean", game.game_id

        ms = _best(repeat, {
            "raw": lambda: raw_limit(db),
            "scan": scan,
            "audit": lambda: audit_archive(store),
            "rules": rules,
            "per_game_path": per_game_path,
        })
    events = sum(len(e) for e in games)
    return {
        "archive": str(db),
        "games": len(games),
        "events": events,
        "repeat": repeat,
        "cpu_ms": {k: round(v, 1) for k, v in ms.items()},
        "us_per_event": {k: round(1000 * v / events, 3) for k, v in ms.items()},
        "ratio": round(ms["raw"] / ms["audit"], 3),
        "per_game_path_ratio": round(ms["raw"] / ms["per_game_path"], 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_audit", description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=2_000, help="hands in a new archive (bench.run's table, 10 hands a game)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each part (the best is kept)")
    parser.add_argument("--db", help="an existing archive to read (nothing is made)")
    parser.add_argument("--keep", help="make the archive here and keep it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tonk-bench-audit-") as tmp:
        db = Path(args.db or args.keep or Path(tmp) / "archive.db")
        if not args.db:
            store_archive(db, recorded_games(args.hands))
        print(json.dumps(measure(db, args.repeat), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
