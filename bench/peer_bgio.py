"""tonk's service next to boardgame.io's, side by side in one run, alternating.

    .venv/bin/python -m bench.peer_bgio [--rounds 2] [--tables 50] [--seconds 20] [--workers N] [--clients poll|follow] [--peer DIR] [--json]
    .venv/bin/python -m bench.peer_bgio --postgres [--dsn URL] [--nodes 2] ...

The peer is the boardgame.io benchmark in ``../shared/peers/bgio`` (or ``--peer``, or
``TONK_BGIO_PEER``): boardgame.io 0.50.2's own ``Server`` and ``Client`` over socket.io, a
Tonk-like game with hidden hands, in memory (its default storage, not durable).  It is copied
to ``build/peer-bgio/`` and ``npm ci`` is run there once (``node`` and ``npm`` must be on PATH).

Each round runs ``bench_service`` (tonk serve, SQLite, ``--durable``, a ``--seconds`` play
phase) and then ``bench.js --storage memory`` with the same number of games and seconds; the
machine's load average is printed before each run.  The output gives every run and the ratio of
tonk's commands/s to boardgame.io's moves/s per round (a command and a move are each one
player's action, acknowledged to that player).

With ``--postgres`` both use one durable PostgreSQL server (fsync and synchronous_commit on):
``--dsn``, else a throwaway one started with the peer's ``pg.sh`` (on a free port, under a
temporary directory; stopped at the end).  A durable ``tonk serve`` commits with
``synchronous_commit`` off on its own connections and answers each command only after a
shared WAL flush committed with it on (group commit), which the output says.  tonk serves a fresh schema on it
(``bench_service --postgres``, ``--nodes`` processes), boardgame.io a fresh database
(``bench.js --storage postgres``, bgio-postgres).  ``--tonk PATH`` serves with another build.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from . import bench_service
from .bench_service import measure

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PEER = ROOT.parent / "shared" / "peers" / "bgio"


def _peer_copy(peer: Path) -> Path:
    """A build/ copy of the peer with its node_modules installed (``npm ci`` once)."""
    if not (peer / "bench.js").is_file():
        raise SystemExit(f"peer_bgio: no bench.js in {peer} (give --peer or TONK_BGIO_PEER)")
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise SystemExit(f"peer_bgio: {tool} is not on PATH")
    dest = ROOT / "build" / "peer-bgio"
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("bench.js", "server.js", "game.js", "package.json", "package-lock.json"):
        shutil.copy2(peer / name, dest / name)
    stamp = dest / "node_modules" / ".package-lock.json"
    if not stamp.exists() or stamp.stat().st_mtime < (dest / "package-lock.json").stat().st_mtime:
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=dest, check=True, stdout=subprocess.DEVNULL)
    return dest


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _bgio(dest: Path, matches: int, seconds: float, dsn: str | None = None) -> dict[str, Any]:
    storage = ["--storage", "postgres", "--dsn", dsn] if dsn else ["--storage", "memory"]
    done = subprocess.run(["node", "bench.js", *storage, "--matches", str(matches), "--seconds", str(seconds), "--json"],
                          cwd=dest, env={**os.environ, "NODE_ENV": "production"}, capture_output=True, text=True, timeout=20 * seconds + 120)
    if not done.stdout.strip():
        raise SystemExit(f"peer_bgio: bench.js failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def _pg_start(peer: Path, root: Path) -> str:
    """A throwaway durable PostgreSQL from the peer's ``pg.sh``, TCP on loopback: its DSN."""
    from .bench_service import _free_port

    env = {**os.environ, "PGPORT": str(_free_port()), "PG_ROOT": str(root)}
    done = subprocess.run(["bash", str(peer / "pg.sh"), "start"], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def _pg_stop(peer: Path, root: Path) -> None:
    subprocess.run(["bash", str(peer / "pg.sh"), "stop"], env={**os.environ, "PG_ROOT": str(root)}, capture_output=True, text=True)


def run(rounds: int, tables: int, seconds: float, peer: Path, postgres: bool = False, dsn: str | None = None, nodes: int = 1, workers: int = 1, clients: str = "poll") -> dict[str, Any]:
    import tempfile

    dest = _peer_copy(peer)
    out: dict[str, Any] = {"cores": os.cpu_count(), "backend": "postgresql" if postgres else "sqlite", "nodes": nodes, "rounds": []}
    with tempfile.TemporaryDirectory(prefix="tonk-peer-pg-") as tmp:
        started = postgres and dsn is None
        if started:
            os.chmod(tmp, 0o755)  # pg.sh runs the server as the postgres user when run as root
            dsn = _pg_start(peer, Path(tmp) / "pg")
        try:
            for i in range(rounds):
                load_t = _load()
                t = measure(tables=tables, hands=10, seconds=seconds, durable=True, postgres=postgres, nodes=nodes, dsn=dsn if postgres else None, workers=workers, clients=clients)
                load_b = _load()
                b = _bgio(dest, tables, seconds, dsn if postgres else None)
                out["rounds"].append({
                    "tonk": t, "bgio": b, "load_before": {"tonk": load_t, "bgio": load_b},
                    "ratio": round(t["service"]["commands_per_s"] / b["service"]["moves_per_s"], 3),
                })
        finally:
            if started:
                _pg_stop(peer, Path(tmp) / "pg")
    return out


#: what this checkout's durable tonk serve does on PostgreSQL (storage/postgres.py, service/group_sync.py)
PG_GROUP_COMMIT = (" (the server's settings, read back; this checkout's tonk serve --durable commits with synchronous_commit off"
                   " on its own connections and answers only after a shared synchronous WAL flush that covers the commit)")


def _pg_commits() -> str:
    """How the serving tonk commits on PostgreSQL: this checkout's way, or another build's own (``--tonk``)."""
    if bench_service._SERVER[0] == bench_service.TONK:
        return PG_GROUP_COMMIT
    return f" (the server's settings, read back; tonk serve is {bench_service._SERVER[0]}: how it commits is that build's own)"


def lines(r: dict[str, Any]) -> list[str]:
    out = []
    pg = r.get("backend") == "postgresql"
    for i, rd in enumerate(r["rounds"], 1):
        t, b = rd["tonk"]["service"], rd["bgio"]["service"]
        nodes = rd["tonk"]["nodes"]
        tonk_store = f"PostgreSQL, {nodes} node{'s' if nodes > 1 else ''}, {bench_service._durability(rd['tonk'])}{_pg_commits()}" if pg else "SQLite, --durable"
        workers = rd["tonk"].get("workers", 1)
        if workers > 1:
            tonk_store += f", --workers {workers}"
        out += [
            f"round {i}:",
            f"  tonk serve ({tonk_store}; load {rd['load_before']['tonk']}): {t['commands_per_s']} commands/s over {t['seconds']} s, "
            f"p50/p99 {t['p50_ms']}/{t['p99_ms']} ms (all requests; the commands alone {t['commands_only']['p50_ms']}/{t['commands_only']['p99_ms']} ms), {t['requests_per_s']} requests/s; clean {rd['tonk']['clean']}",
            f"  boardgame.io ({'bgio-postgres, the same server' if pg else 'memory, not durable'}; load {rd['load_before']['bgio']}): {b['moves_per_s']} moves/s over {b['seconds']} s, "
            f"p50/p99 {b['p50_ms']}/{b['p99_ms']} ms; clean {rd['bgio']['clean']}",
            f"  messages per action: tonk {t.get('requests_per_command')} HTTP requests per command (POST .../commands?view=true {t.get('posts_per_command')}, "
            f"GET .../view {t.get('gets_per_command')}; 2 people and a bot per table; {_tonk_clients(t)}); boardgame.io 1 socket.io message "
            "from the moving client per move, and the server pushes the new state to both players' clients of the match",
            f"  tonk's {bench_service.cpu_line(t)}",
            f"  tonk / boardgame.io: {rd['ratio']} (target {'2.0' if pg else '0.5'})",
        ]
    return out


def _tonk_clients(t: dict[str, Any]) -> str:
    if t.get("clients") == "follow":
        return (f"clients follow their seats' streams: {t.get('stream_messages_per_command')} stream messages per command, "
                f"the seat's view pushed when its turn begins ({t.get('views_pushed_per_command')} per command), never asked for")
    return "clients poll: a seat's view is asked for (GET) when the turn passes to it, no stream"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.peer_bgio")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--peer", type=Path, default=Path(os.environ.get("TONK_BGIO_PEER", DEFAULT_PEER)))
    p.add_argument("--postgres", action="store_true", help="both on one durable PostgreSQL (tonk serve --postgres against bgio-postgres)")
    p.add_argument("--dsn", default=None, help="with --postgres: the server (default: a throwaway one from the peer's pg.sh)")
    p.add_argument("--nodes", type=int, default=1, help="with --postgres: tonk serve processes on the one store")
    p.add_argument("--workers", type=int, default=1, help="tonk serve --workers N (worker processes on the one store)")
    p.add_argument("--tonk", default=bench_service.TONK, help="the tonk executable that serves (another build's, for before and after)")
    p.add_argument("--clients", choices=bench_service.CLIENTS, default="poll",
                   help="tonk's people: poll (GET a seat's view when the turn passes to it) or follow (each follows its seat's stream, which pushes the view)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    if a.nodes < 1 or (a.nodes > 1 and not a.postgres):
        p.error("--nodes must be 1, or more with --postgres")
    bench_service._SERVER[0] = a.tonk
    try:
        r = run(a.rounds, a.tables, a.seconds, a.peer, postgres=a.postgres, dsn=a.dsn, nodes=a.nodes, workers=a.workers, clients=a.clients)
    except Exception as exc:
        if a.postgres and bench_service.postgres_failed(exc):  # e.g. a --dsn no server answers
            p.error(f"the PostgreSQL server: {str(exc).strip()}")
        raise
    print(json.dumps(r, indent=2) if a.json else "\n".join(lines(r)))
    return 0 if all(rd["tonk"]["clean"] and rd["bgio"]["clean"] for rd in r["rounds"]) else 1


if __name__ == "__main__":
    sys.exit(main())
