"""One timed run (CPU time) of one benchmark, in whichever tonk this interpreter has installed.

Run by ``bench/compare.py`` as a plain script (not as part of the ``bench``
package) so that each side uses only its own installed ``tonk``:

    PYTHON bench/compare_worker.py KIND HANDS   ->  one JSON line {"seconds": s, "count": n}

It imports through the paths of both layouts (before issue 11 the simulation
lived in ``tonk.core``, after it in ``tonk.application``).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import msgspec

#: CPU time of this process: on a shared machine, far steadier than wall time (SQLite's
#: waits for the disk are not counted, which both sides share alike)
clock = time.process_time


def _sim():
    try:
        from tonk.application import simulate as sim
    except ImportError:
        from tonk.core import simulate as sim  # the layout before issue 11
    return sim


def _audit_events():
    try:
        from tonk.application.audit import audit_events
    except ImportError:
        from tonk.core.audit import audit_events
    return audit_events


def _ruleset_from_spec():
    try:
        from tonk.variants import load_ruleset as f
    except ImportError:
        from tonk.core.ruleset import ruleset_from_spec as f
    return f


def playouts(bots: tuple[str, ...], players: int, hands: int) -> tuple[float, int]:
    sim = _sim()
    t0 = clock()
    rep = sim.simulate(sim.SimConfig(hands=hands, players=players, bots=bots, seed=1))
    return clock() - t0, rep["actions"]


def games(hands: int) -> list:
    sim = _sim()
    config = sim.SimConfig(hands=hands, players=3, bots=("greedy", "greedy", "random"), seed=3, hands_per_game=10)
    ruleset = config.ruleset()
    return [sim.play_game(config, ruleset, i) for i in range(config.games)]


def append(tmp: Path, hands: int) -> tuple[float, int]:
    from tonk.storage import EventStore

    gs = games(hands)
    with EventStore.open(tmp / "append.db", create=True) as store:
        t0 = clock()
        for events in gs:
            store.append(events[0].game_id, events, 0)
        dt = clock() - t0
    return dt, sum(len(g) for g in gs)


def archive(tmp: Path, hands: int) -> Path:
    from tonk.storage import EventStore

    path = tmp / "archive.db"
    with EventStore.open(path, create=True) as store:
        for events in games(hands):
            store.append(events[0].game_id, events, 0)
    return path


def replay(tmp: Path, hands: int) -> tuple[float, int]:
    from tonk.core.state import fold
    from tonk.storage import EventStore

    path = archive(tmp, hands)
    n = 0
    with EventStore.open(path, create=False) as store:
        t0 = clock()
        for _gid, events in store.iter_games():
            fold(events)
            n += len(events)
        dt = clock() - t0
    return dt, n


def audit(tmp: Path, hands: int) -> tuple[float, int]:
    from tonk.storage import EventStore

    audit_events, ruleset_from_spec = _audit_events(), _ruleset_from_spec()
    path = archive(tmp, hands)
    n = 0
    rulesets: dict = {}
    with EventStore.open(path, create=False) as store:
        t0 = clock()
        for game in store.iter_verified_games():
            events = game.events
            key = msgspec.json.encode(events[0].ruleset)
            rs = rulesets.get(key)
            if rs is None:
                rs = rulesets[key] = ruleset_from_spec(events[0].ruleset)
            report = audit_events(events, ruleset=rs)
            assert game.intact and report.clean
            n += len(events)
        dt = clock() - t0
    return dt, n


def main(argv: list[str]) -> int:
    kind, hands = argv[0], int(argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        if kind == "random_playouts":
            dt, n = playouts(("random",), 3, hands)
        elif kind == "greedy_playouts":
            dt, n = playouts(("greedy",), 3, hands)
        elif kind == "append":
            dt, n = append(Path(tmp), hands)
        elif kind == "replay":
            dt, n = replay(Path(tmp), hands)
        elif kind == "audit":
            dt, n = audit(Path(tmp), hands)
        else:
            raise SystemExit(f"error: unknown benchmark {kind!r}")
    print(json.dumps({"seconds": dt, "count": n}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
