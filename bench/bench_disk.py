"""What the SQLite store costs on disk: bytes of WAL per served command, and bytes per stored hand.

    .venv/bin/python -m bench.bench_disk [--commands 2000] [--tables 50] [--hands 2000] [--json]

1. Per command: ``--tables`` served tables (two people, a random bot, 10 hands, both people
   seated with a seed) on a fresh store, played round robin in this process through
   :class:`tonk.application.tables.Tables` (what ``tonk serve`` runs for ``POST .../commands``:
   each command, the bot's turns after it and the next deal are one append, one commit), until
   ``--commands`` commands; a table that ends is replaced.  Automatic checkpoints are off during
   the play, so the WAL holds every frame the commits wrote: its size over the commands is the
   WAL bytes per command (checkpoints later write each changed page once more into the main
   file; ``bench_service`` reports what the server process wrote in all).  The frames are
   counted by the b-tree (table or index) they belong to.
2. Per hand: the same store after ``VACUUM``, over the hands dealt in it; and a
   ``tonk simulate`` store (``--hands`` hands, greedy, random, random, 10 hands a game) after
   ``VACUUM``, over its hands.

Targets (issue 24): at most 8 KB written per command, at most 3,000 bytes per stored hand.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import sqlite3
import struct
import subprocess
import sys
import tempfile
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

TONK = str(Path(sys.executable).with_name("tonk"))
TARGETS = {"wal_bytes_per_command": 8192, "bytes_per_hand": 3000}


def _vacuumed_per_hand(path: Path) -> dict[str, Any]:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    hands = conn.execute("SELECT count(*) FROM events WHERE type = 'hand_dealt'").fetchone()[0]
    events = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    try:
        by_btree = dict(conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall())
    except sqlite3.OperationalError:  # a SQLite without the dbstat table
        by_btree = {}
    payload = conn.execute("SELECT coalesce(sum(length(payload)), 0) FROM events").fetchone()[0]
    conn.close()
    size = path.stat().st_size
    return {
        "hands": hands, "events": events, "file_bytes": size, "bytes_per_hand": round(size / hands) if hands else None,
        "payload_bytes_per_hand": round(payload / hands) if hands else None,
        "bytes_per_hand_by_btree": {k: round(v / hands) for k, v in by_btree.items()} if hands else {},
    }


def per_command(tmp: Path, tables_n: int, commands: int) -> dict[str, Any]:
    from tonk.application.table_types import TableSettings
    from tonk.application.tables import Tables
    from tonk.storage.sqlite import SqliteEventStore

    path = tmp / "served.db"
    store = SqliteEventStore.open_file(path)
    tables = Tables(store)
    rng = random.Random(1)

    def new() -> Any:
        created = tables.create(TableSettings(seats=["north", "east", "south"], bots={"south": "random"}, hand_limit=10))
        for seat in created.tokens:
            tables.sit(created.table, seat, secrets.token_hex(32))
        return created

    live = [new() for _ in range(tables_n)]
    conn = store._conn
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    done = 0
    while done < commands:
        for i, c in enumerate(live):
            view = None
            for seat in c.tokens:
                view = tables.view(c.table, seat)
                if view.status == "ended" or view.view.to_act == seat:
                    break
            assert view is not None
            if view.status == "ended":
                live[i] = new()
                continue
            if view.view.to_act != seat:
                continue
            legal = rng.choice(view.legal)
            fields = {k: v for k, v in legal.items() if k not in ("player", "action") and v not in ({}, None)}
            tables.act(c.table, seat, legal["action"], fields, view.version, uuid.uuid4().hex)
            done += 1
    wal = Path(f"{path}-wal").read_bytes()
    frames: Counter[int] = Counter()
    offset = 32  # the WAL header, then frames of a 24-byte header and a page
    while offset + 24 + page_size <= len(wal):
        frames[struct.unpack(">I", wal[offset:offset + 4])[0]] += 1
        offset += 24 + page_size
    conn.execute("PRAGMA wal_autocheckpoint = 1000")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    owner: dict[int, str] = {}
    reader = sqlite3.connect(path)
    try:
        owner = {pageno: name for name, pageno in reader.execute("SELECT name, pageno FROM dbstat")}
    except sqlite3.OperationalError:
        pass
    reader.close()
    by: Counter[str] = Counter()
    for page, n in frames.items():
        by[owner.get(page, "(freed or new)")] += n
    total = sum(frames.values())
    return {
        "commands": done, "page_size": page_size, "wal_bytes": len(wal), "wal_bytes_per_command": round(len(wal) / done),
        "frames_per_command": round(total / done, 2), "frames_per_command_by_btree": {k: round(v / done, 2) for k, v in by.most_common()},
        "served_store": _vacuumed_per_hand(path),
    }


def per_hand_simulated(tmp: Path, hands: int) -> dict[str, Any]:
    path = tmp / "simulated.db"
    subprocess.run([TONK, "--db", str(path), "simulate", "--hands", str(hands), "--hands-per-game", "10", "--bot", "greedy", "--bot", "random", "--bot", "random", "--seed", "1"],
                   check=True, stdout=subprocess.DEVNULL)
    return _vacuumed_per_hand(path)


def measure(commands: int = 2000, tables: int = 50, hands: int = 2000) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tonk-bench-disk-") as tmp:
        cmd = per_command(Path(tmp), tables, commands)
        sim = per_hand_simulated(Path(tmp), hands)
    worst_hand = max(x for x in (cmd["served_store"]["bytes_per_hand"], sim["bytes_per_hand"]) if x is not None)
    return {
        "per_command": cmd, "simulated_store": sim, "targets": TARGETS,
        "met": {"wal_bytes_per_command": cmd["wal_bytes_per_command"] <= TARGETS["wal_bytes_per_command"], "bytes_per_hand": worst_hand <= TARGETS["bytes_per_hand"]},
    }


def lines(r: dict[str, Any]) -> list[str]:
    c, s, sim = r["per_command"], r["per_command"]["served_store"], r["simulated_store"]
    return [
        f"served commands: {c['commands']}, WAL {c['wal_bytes_per_command']} bytes per command ({c['frames_per_command']} pages of {c['page_size']} bytes; "
        f"target {r['targets']['wal_bytes_per_command']}: {'met' if r['met']['wal_bytes_per_command'] else 'NOT met'})",
        f"  pages per command by b-tree: {c['frames_per_command_by_btree']}",
        f"served store after VACUUM: {s['bytes_per_hand']} bytes per hand ({s['hands']} hands; payloads {s['payload_bytes_per_hand']} bytes per hand)",
        f"simulated store after VACUUM: {sim['bytes_per_hand']} bytes per hand ({sim['hands']} hands; payloads {sim['payload_bytes_per_hand']} bytes per hand; "
        f"target {r['targets']['bytes_per_hand']}: {'met' if r['met']['bytes_per_hand'] else 'NOT met'})",
        f"  bytes per hand by b-tree (simulated): {sim['bytes_per_hand_by_btree']}",
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.bench_disk")
    p.add_argument("--commands", type=int, default=2000)
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--hands", type=int, default=2000)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    r = measure(a.commands, a.tables, a.hands)
    print(json.dumps(r, indent=2) if a.json else "\n".join(lines(r)))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
