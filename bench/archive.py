"""What the benchmarks do to a stored archive, the same on every back end: replay it and audit it.

Each function takes an open store (SQLite, PostgreSQL: the one contract of
``tonk.storage``) and returns the number of events it went through; the
caller times it.  ``bench/run.py`` (SQLite) and ``bench/bench_postgres.py``
measure these same loops against their raw limits.
"""

from __future__ import annotations

from typing import Any

import msgspec


def replay_archive(store: Any) -> int:
    """Every game read from the store, decoded and folded into a ``State``."""
    from tonk.core.state import fold

    n = 0
    for _gid, events in store.iter_games():
        fold(events)
        n += len(events)
    return n


def audit_archive(store: Any) -> int:
    """Every game re-run through its pinned rules, and the whole hash chain verified.

    One scan of the archive (``iter_verified_games``: each row's link of the hash
    chain checked as it is decoded; a broken link fails the benchmark), then
    ``audit_events`` per game under the ruleset its ``game_started`` pins.
    Rulesets are built once per distinct pinned spec (building one registers
    plugins)."""
    from tonk.core.audit import audit_events
    from tonk.variants import load_ruleset

    n = 0
    rulesets: dict[bytes, Any] = {}
    for game in store.iter_verified_games():
        assert game.intact, (game.chain[:1], game.decode_error)
        events = game.events
        key = msgspec.json.encode(events[0].ruleset)
        rs = rulesets.get(key)
        if rs is None:
            rs = rulesets[key] = load_ruleset(events[0].ruleset)
        report = audit_events(events, ruleset=rs)
        assert report.clean, report.findings[:1]
        n += len(events)
    return n
