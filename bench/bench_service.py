"""The service benchmark: N tables of HTTP clients playing against a real ``tonk serve``.

    .venv/bin/python -m bench.bench_service [--tables 50] [--hands 4] [--seconds 20]
    .venv/bin/python -m bench.bench_service --postgres [--nodes 2] [--dsn URL]
    .venv/bin/python -m bench.run --only service

A fresh store, one ``tonk serve`` process on a free loopback port (access log
off, no rate limit), and in this process one asyncio task per table: each
table has two human seats and a random bot; the task reads the view of the
seat to act and posts a random legal action, hand after hand.  Every request's
latency is recorded.  Side by side, the same number of tasks hit the same
server's bare JSON endpoint (``GET /ping``) for the same time: the ceiling of
the framework, server and client on this machine.  Afterwards every game is
audited (``tonk audit --all --json``) and every command acknowledged over HTTP
is checked to be in the store exactly once.

The play phase lasts ``--seconds``: a table that reaches its hand limit is
replaced by a new one (created and seated by the same task), so the phase is
never a short burst; the output says how long it really played, how many
commands (``POST .../commands``) and requests (views included) it made.

With ``--postgres`` the store is a fresh schema on a PostgreSQL server
(``--dsn``, else ``TONK_PG_DSN``, else a throwaway one: durable, fsync and
synchronous_commit on, unless ``--no-durable``; the output names the server's
settings as read back from it),
and ``--nodes N`` starts N ``tonk serve`` processes on it: table ``i`` is
played through node ``i mod N`` (a sticky load balancer), while every node's
follower reads the store's global order; the bare ceiling is measured the same
way, spread over the nodes.

CPU per command is split between the ``tonk serve`` processes, the PostgreSQL server (when it
runs on this machine: its postmaster and every backend and helper process) and this load
generator, beside how many of the machine's cores were busy during play and the most its cores
could serve at those costs (``bench/cpu_account.py``): what a claim about several nodes on one
machine needs.

Targets (issue 12): at least 0.25 of the bare endpoint's requests/s, p99 at
most 100 ms at 50 tables, on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, NamedTuple

import httpx

from . import cpu_account

TONK = str(Path(sys.executable).with_name("tonk"))  # --tonk: another build's, for before and after


class _Conn:
    """One keep-alive HTTP/1.1 connection (asyncio streams): the load generator must cost far
    less than the server, and httpx's async client costs more than a bare Litestar endpoint."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, token: str | None = None, body: Any = None) -> tuple[int, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        data = json.dumps(body).encode() if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Length: {len(data)}\r\n"
        if data:
            head += "Content-Type: application/json\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        status, length, _ = await _read_head(self.reader)
        payload = await self.reader.readexactly(length) if length else b""
        return status, json.loads(payload) if payload else None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, int, bool]:
    """An HTTP/1.1 answer's status, ``Content-Length`` (0 if none) and whether it is chunked:
    only those two headers are decoded (the load generator must cost far less than the server)."""
    status = int((await reader.readline()).split()[1])
    length, chunked = 0, False
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            return status, length, chunked
        name, _, value = line.partition(b":")
        name = name.lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding":
            chunked = value.strip().lower() == b"chunked"


class Batch(NamedTuple):
    """What a follower learns from the messages that have come on its stream: how many, and of
    them the snapshot's and the last ``view`` message's data (decoded), and whether the game ended."""

    messages: int
    snapshot: dict[str, Any] | None
    view: dict[str, Any] | None
    game_ended: bool


def read_block(block: bytes) -> Batch:
    """The :class:`Batch` of whole Server-Sent Events messages (tonk's: an ``event:`` line,
    one ``data:`` line of JSON, which holds no newline); only the data a follower needs is
    decoded (the load generator must cost far less than the server)."""

    lines = b"\n" + block  # a field's name starts a line; JSON text holds no newline

    def data_of(event: bytes) -> dict[str, Any] | None:
        at = lines.rfind(b"\nevent: " + event + b"\n")
        if at < 0:
            return None
        start = lines.index(b"\ndata: ", at) + 7
        return json.loads(lines[start : lines.index(b"\n", start)])

    return Batch(lines.count(b"\nevent: "), data_of(b"snapshot"), data_of(b"view"), b"\nevent: game_ended\n" in lines)


class _Stream:
    """A seat's live stream (``GET /tables/{id}/events?view=turn``, Server-Sent Events over a
    chunked HTTP/1.1 answer) on a connection of its own: :meth:`batch` gives what the messages
    that have come since the last call say (:func:`read_block`)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter | None = None):
        self.reader, self.writer = reader, writer
        self.buffer = b""
        self.ended = False  # the server ended the answer (the game is over and all of it sent)
        self.messages = 0  # messages read, comments not counted

    @classmethod
    async def open(cls, host: str, port: int, table: str, token: str) -> "_Stream":
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(f"GET /tables/{table}/events?view=turn HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        status, _, chunked = await _read_head(reader)
        if status != 200 or not chunked:
            writer.close()
            raise RuntimeError(f"the stream of {table} answered {status}{'' if chunked else ', not chunked'}")
        return cls(reader, writer)

    async def _chunk(self) -> bytes:
        size = int((await self.reader.readline()).split(b";")[0], 16)
        if size == 0:
            self.ended = True
            await self.reader.readline()
            return b""
        data = await self.reader.readexactly(size + 2)
        return data[:-2]

    async def batch(self) -> Batch | None:
        """What the whole messages come since the last call say (it waits for at least one;
        comments alone are not one), or ``None`` once the stream has ended."""
        while True:
            end = self.buffer.rfind(b"\n\n")
            if end >= 0:
                block, self.buffer = self.buffer[: end + 2], self.buffer[end + 2 :]
                got = read_block(block)
                if got.messages:
                    self.messages += got.messages
                    return got
            if self.ended:
                return None
            self.buffer += await self._chunk()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def _lat(values: list[float]) -> dict[str, float]:
    return {f"p{p}_ms": round(1000 * _pct(values, p), 2) for p in (50, 95, 99)}


async def _create_table(http: _Conn, hands: int) -> dict:
    """A new table (two people and a random bot), both people seated with a seed: hand 1 is dealt."""
    status, body = await http.request("POST", "/tables", None, {"seats": ["north", "east", "south"], "bots": {"south": "random"}, "hand_limit": hands})
    if status != 201 and status != 200:
        raise RuntimeError(f"POST /tables answered {status}: {body}")
    for token in body["tokens"].values():  # each person sits down with a seed (the fair deal)
        sat, answer = await http.request("POST", f"/tables/{body['table']}/sit", token, {"client_seed": secrets.token_hex(32)})
        if sat != 200:
            raise RuntimeError(f"sit answered {sat}: {answer}")
    return body


async def _play_table(
    http: _Conn, created: dict, hands: int, rng: random.Random, lat: list[float], acked: list[str], ids: list[str], stop: float, counts: dict[str, int], command_lat: list[float]
) -> tuple[int, int]:
    """Play until ``stop``; a table that ends is replaced by a new one (its creation and seating are
    requests of the play phase, not timed as commands).  Returns (commands, tables ended).

    Each command is one ``POST .../commands?view=true``, whose answer carries the author seat's
    view after it (the next legal actions when the turn goes on); the view of a seat is read
    (``GET .../view``) only when the turn passes to it, or when the answer has no view (a server
    from before ``?view``).  ``counts`` tallies the POSTs and GETs of play."""
    table, tokens = created["table"], created["tokens"]
    commands = ended = 0
    seat = next(iter(tokens))
    view: dict[str, Any] | None = None
    while time.perf_counter() < stop:
        if view is None:
            t0 = time.perf_counter()
            status, view = await http.request("GET", f"/tables/{table}/view", tokens[seat])
            lat.append(time.perf_counter() - t0)
            counts["get"] += 1
        assert view is not None
        if view["status"] == "ended":
            ended += 1
            created = await _create_table(http, hands)
            table, tokens = created["table"], created["tokens"]
            ids.append(table)
            seat, view = next(iter(tokens)), None
            continue
        to_act = view["view"]["to_act"]
        if to_act != seat:
            seat, view = to_act, None
            continue
        action = {k: v for k, v in rng.choice(view["legal"]).items() if k != "player" and v not in ({}, None)}
        cid = uuid.uuid4().hex
        t0 = time.perf_counter()
        status, answer = await http.request("POST", f"/tables/{table}/commands?view=true", tokens[seat], {**action, "version": view["version"], "command_id": cid})
        lat.append(time.perf_counter() - t0)
        counts["post"] += 1
        command_lat.append(lat[-1])
        if status != 200:
            raise RuntimeError(f"command refused: {status} {answer}")
        acked.append(cid)
        commands += 1
        view = answer.get("view")
    return commands, ended


async def _follow_person(
    http: _Conn, stream: _Stream, table: str, seat: str, token: str, rng: random.Random, lat: list[float], acked: list[str], stop: float, counts: dict[str, int], command_lat: list[float]
) -> tuple[int, bool]:
    """One person who follows the seat's stream (``?view=turn``): it acts when the newest view
    it holds, from its stream (the snapshot, or a ``view`` message pushed when the turn comes to
    the seat) or from its own command's answer (``?view=true``), says that the seat is to act;
    it never asks for a view.  Returns (commands, whether the game ended)."""
    first = await stream.batch()
    if first is None or first.snapshot is None:
        raise RuntimeError(f"the stream of {table} did not start with a snapshot")
    view = first.view if first.view is not None and first.view["version"] > first.snapshot["version"] else first.snapshot
    if first.game_ended:
        return 0, True
    acted = -1  # the version this person last acted on: a view is acted on once
    commands = 0
    while True:
        if view["status"] == "ended":
            return commands, True
        if view["view"]["to_act"] == seat and view["legal"] and view["version"] > acted:
            if time.perf_counter() >= stop:
                return commands, False
            action = {k: v for k, v in rng.choice(view["legal"]).items() if k != "player" and v not in ({}, None)}
            cid = uuid.uuid4().hex
            t0 = time.perf_counter()
            status, answer = await http.request("POST", f"/tables/{table}/commands?view=true", token, {**action, "version": view["version"], "command_id": cid})
            lat.append(time.perf_counter() - t0)
            command_lat.append(lat[-1])
            counts["post"] += 1
            if status != 200:
                raise RuntimeError(f"command refused: {status} {answer}")
            acked.append(cid)
            commands += 1
            acted = view["version"]
            if answer["view"]["version"] >= view["version"]:
                view = answer["view"]
            continue
        left = stop - time.perf_counter()
        if left <= 0:
            return commands, False
        try:
            got = await asyncio.wait_for(stream.batch(), left)
        except asyncio.TimeoutError:
            return commands, False
        if got is None or got.game_ended:
            return commands, True  # a stream ends by itself once the game is over and sent
        if got.view is not None:
            counts["views_pushed"] += 1
            if got.view["version"] > view["version"]:
                view = got.view


async def _follow_table(
    http: _Conn, created: dict, hands: int, rng: random.Random, lat: list[float], acked: list[str], ids: list[str], stop: float, counts: dict[str, int], command_lat: list[float]
) -> tuple[int, int]:
    """A table whose two people follow their seats' streams (:func:`_follow_person`), each with
    a connection of its own for its commands, as boardgame.io's clients each have a socket; a
    table that ends is replaced by a new one (``http`` creates and seats it).  Returns
    (commands, tables ended)."""
    posts = [_Conn(http.host, http.port) for _ in created["tokens"]]
    commands = ended = 0
    try:
        while time.perf_counter() < stop:
            table, tokens = created["table"], created["tokens"]
            streams = [await _Stream.open(http.host, http.port, table, token) for token in tokens.values()]
            counts["streams"] += len(streams)
            try:
                done = await asyncio.gather(
                    *(_follow_person(posts[i], streams[i], table, seat, token, rng, lat, acked, stop, counts, command_lat) for i, (seat, token) in enumerate(tokens.items()))
                )
            finally:
                for st in streams:
                    counts["stream_messages"] += st.messages
                    st.close()
            commands += sum(c for c, _ in done)
            if not all(over for _, over in done):
                break
            ended += 1
            created = await _create_table(http, hands)
            ids.append(created["table"])
    finally:
        for c in posts:
            c.close()
    return commands, ended


#: how the people learn that it is their turn: ``poll`` (GET .../view when the turn passes to a
#: seat) or ``follow`` (each seat's stream pushes the seat's view then: ``?view=turn``)
CLIENTS = ("poll", "follow")


async def _bare(http: _Conn, lat: list[float], stop: float) -> None:
    while time.perf_counter() < stop:
        t0 = time.perf_counter()
        status, _ = await http.request("GET", "/ping")
        lat.append(time.perf_counter() - t0)
        if status != 200:
            raise RuntimeError(f"/ping answered {status}")


def _cpu(pids: list[int]) -> float:
    """CPU seconds (user + system) the server processes have used (Linux ``/proc/<pid>/stat``)."""
    total = 0.0
    for pid in pids:
        used = cpu_account.process_seconds(pid)
        if used is None:
            return float("nan")
        total += used
    return total


def _family(pid: int) -> list[int]:
    """The process and its children (the workers of ``tonk serve --workers N``)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [pid, *(int(c) for c in f.read().split())]
    except OSError:
        return [pid]


def _written(pids: list[int]) -> int:
    """Bytes the server processes caused to be written to storage (Linux ``/proc/<pid>/io``)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/io") as f:
                total += int(next(line for line in f if line.startswith("write_bytes:")).split()[1])
        except (OSError, StopIteration):
            return -1
    return total


async def _run(
    ports: list[int], tables: int, hands: int, seconds: float, pids: list[int] | None = None, clients: str = "poll", store_pid: int | None = None
) -> dict[str, Any]:
    conns = [_Conn("127.0.0.1", ports[i % len(ports)]) for i in range(tables)]
    created = [await _create_table(conns[i], hands) for i in range(tables)]
    ids = [c["table"] for c in created]
    # the ceiling first, then the tables: one connection per table, the same tasks for the same time
    bare_lat: list[float] = []
    t0 = time.perf_counter()
    await asyncio.gather(*(_bare(c, bare_lat, t0 + seconds) for c in conns))
    bare_s = time.perf_counter() - t0
    lat: list[float] = []
    acked: list[str] = []
    w0 = _written(pids or [])
    store_cpu = cpu_account.FamilyCpu(store_pid) if store_pid else None
    s0, m0 = store_cpu.take() if store_cpu else None, cpu_account.machine()
    c0, g0 = _cpu(pids or []), time.process_time()
    t0 = time.perf_counter()
    tally = {"post": 0, "get": 0, "streams": 0, "stream_messages": 0, "views_pushed": 0}
    command_lat: list[float] = []
    play = _follow_table if clients == "follow" else _play_table
    counts = await asyncio.gather(*(play(conns[i], c, hands, random.Random(i), lat, acked, ids, t0 + seconds, tally, command_lat) for i, c in enumerate(created)))
    play_s = time.perf_counter() - t0
    commands = sum(c for c, _ in counts)
    w1 = _written(pids or [])
    c1, g1 = _cpu(pids or []), time.process_time()
    s1, m1 = store_cpu.take() if store_cpu else None, cpu_account.machine()
    store_s = cpu_account.FamilyCpu.used(s0, s1)
    busy = cpu_account.busy_cores(m0, m1)
    for c in conns:
        c.close()
    return {
        "tables": tables,
        "bare": {"requests": len(bare_lat), "seconds": round(bare_s, 2), "requests_per_s": round(len(bare_lat) / bare_s, 1), **_lat(bare_lat)},
        "service": {
            "requests": len(lat),
            "commands": commands,
            "seconds": round(play_s, 2),
            "requests_per_s": round(len(lat) / play_s, 1),
            "commands_per_s": round(commands / play_s, 1),
            # the timed requests of play per command: every command's POST (?view=true) and the views
            # read (GET); the creation and seating of replacement tables (3 requests each) are not in them
            "requests_per_command": round(len(lat) / commands, 3) if commands else None,
            "posts_per_command": round(tally["post"] / commands, 3) if commands else None,
            "gets_per_command": round(tally["get"] / commands, 3) if commands else None,
            "clients": clients,
            # follow: the seats' streams (one per person and game, not in the requests), their
            # messages (snapshots, events, views) and the views they pushed, per command
            "streams_opened": tally["streams"],
            "stream_messages_per_command": round(tally["stream_messages"] / commands, 3) if commands else None,
            "views_pushed_per_command": round(tally["views_pushed"] / commands, 3) if commands else None,
            "tables_replaced": sum(e for _, e in counts),
            # what the server processes wrote to storage during play (SQLite: WAL frames and
            # checkpoints; PostgreSQL's own writes are not counted), per command
            # CPU time per command: the tonk serve processes' (user + system), and this load generator's
            "server_cpu_ms_per_command": round(1000 * (c1 - c0) / commands, 3) if commands else None,
            "client_cpu_ms_per_command": round(1000 * (g1 - g0) / commands, 3) if commands else None,
            # a local PostgreSQL server's (the postmaster and every backend and helper process of it;
            # None for a SQLite store or a server that does not run on this machine)
            "store_server_cpu_ms_per_command": round(1000 * store_s / commands, 3) if commands and store_s is not None else None,
            # the whole machine during play: every process's CPU, these and any other
            "machine_busy_cores": round(busy, 2) if busy is not None else None,
            "machine_cores": os.cpu_count(),
            # what the machine could do at most at these costs: every core busy with these three
            # parts alone (PostgreSQL stores only: a SQLite store's CPU is tonk serve's own)
            "machine_ceiling_commands_per_s": _ceiling(c1 - c0, store_s, g1 - g0, commands),
            "server_write_bytes_per_command": round((w1 - w0) / commands) if commands and w0 >= 0 and w1 >= 0 else None,
            **_lat(lat),
            "commands_only": _lat(command_lat),  # the POSTs' latencies alone
        },
        "_acked": acked,
        "_ids": ids,
    }


def _ceiling(server_s: float, store_s: float | None, client_s: float, commands: int) -> float | None:
    """Commands a second if every core of the machine did nothing but these parts at the CPU
    per command they used here; ``None`` where the store's server is not measured."""
    spent = server_s + (store_s or 0.0) + client_s
    if not commands or store_s is None or spent <= 0:
        return None
    return round((os.cpu_count() or 1) * commands / spent, 1)


def _check_store(db: Path | str, acked: list[str], ids: list[str]) -> dict[str, Any]:
    audit = subprocess.run([TONK, "--db", str(db), "audit", *ids, "--json"], capture_output=True, text=True)
    summary = json.loads(audit.stdout)["summary"]
    if isinstance(db, str):
        import psycopg

        conn: Any = psycopg.connect(db)
    else:
        conn = sqlite3.connect(db)
    stored = {}
    for cid, n in conn.execute("SELECT command_id, count(DISTINCT game_id) FROM events WHERE command_id <> '' GROUP BY command_id"):
        stored[cid] = n
    ended = conn.execute("SELECT count(*) FROM games WHERE status = 'ended'").fetchone()[0]
    if isinstance(db, str):  # what the server really did, whoever started it
        settings = {k: conn.execute(f"SHOW {k}").fetchone()[0] for k in ("fsync", "synchronous_commit")}
    else:
        settings = {}
    conn.close()
    lost = [c for c in acked if c not in stored]
    doubled = [c for c, n in stored.items() if n != 1] + [c for c in set(acked) if acked.count(c) > 1]
    unacked = [c for c in stored if c not in set(acked)]
    return {"audit": summary, "lost": len(lost), "duplicated": len(doubled), "stored_not_acknowledged": len(unacked), "games_ended": ended, "server_settings": settings}


#: the ``tonk`` that serves (``--tonk``); the store is checked with this checkout's
_SERVER = [TONK]

#: the benchmark's clients all come from loopback and create every table at once: no limit holds them back
NO_LIMITS = ("--public-rate", "0", "--max-tables", "0", "--max-tables-per-client", "0")


def _start_node(db: Path | str, log: Any, durable: bool, workers: int = 1) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    more = ["--workers", str(workers)] if workers > 1 else []  # (an older tonk has no --workers)
    proc = subprocess.Popen(
        [_SERVER[0], "--db", str(db), "serve", "--port", str(port), "--rate", "0", *NO_LIMITS, "--no-access-log", "--durable" if durable else "--no-durable", *more], stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(url + "/ping", timeout=1).status_code == 200:
                return proc, port
        except httpx.HTTPError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("tonk serve did not start") from None
            time.sleep(0.1)


def measure(
    tables: int = 50, hands: int = 10, seconds: float = 20.0, durable: bool = True, postgres: bool = False, nodes: int = 1, dsn: str | None = None, workers: int = 1, clients: str = "poll"
) -> dict[str, Any]:
    if clients not in CLIENTS:
        raise ValueError(f"clients must be one of {CLIENTS}, not {clients!r}")
    if nodes > 1 and not postgres:
        raise ValueError("several nodes share a PostgreSQL store: use --postgres")
    cluster = schemas = None
    with tempfile.TemporaryDirectory(prefix="tonk-bench-service-") as tmp:
        db: Path | str = Path(tmp) / "served.db"
        if postgres:
            from .bench_postgres import Schemas, _server

            server, cluster = _server(dsn, durable=durable)
            schemas = Schemas(server)
            db = schemas.fresh()
        log = open(Path(tmp) / "serve.log", "wb")
        procs: list[subprocess.Popen] = []
        try:
            ports = []
            for _ in range(nodes):
                proc, port = _start_node(db, log, durable, workers)
                procs.append(proc)
                ports.append(port)
            store_pid = None
            if cluster is not None:
                store_pid = cpu_account.postmaster_pid(cluster.data_dir)
            elif postgres:
                store_pid = cpu_account.local_postmaster(str(db))  # a named server (--dsn): measured if it runs here
            result = asyncio.run(_run(ports, tables, hands, seconds, [pid for p in procs for pid in _family(p.pid)], clients, store_pid))
            for proc in procs:
                proc.terminate()
                proc.wait(20)
            acked, ids = result.pop("_acked"), result.pop("_ids")
            result["store"] = _check_store(db, acked, ids)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            log.close()
            if schemas is not None:
                schemas.drop()
            if cluster is not None:
                cluster.stop()
    result["durable"] = durable
    result["backend"] = "postgresql" if postgres else "sqlite"
    result["nodes"] = nodes
    result["workers"] = workers
    s, b = result["service"], result["bare"]
    result["ratio_to_bare"] = round(s["requests_per_s"] / b["requests_per_s"], 3)
    result["targets"] = {"ratio_to_bare": 0.25, "p99_ms": 100}
    result["met"] = result["ratio_to_bare"] >= 0.25 and s["p99_ms"] <= 100
    st = result["store"]
    result["clean"] = st["audit"]["clean"] == st["audit"]["games"] == len(ids) and st["lost"] == 0 and st["duplicated"] == 0
    return result


def _durability(r: dict[str, Any]) -> str:
    if r["backend"] == "sqlite":
        return "durable: --durable, every answer and stream event after the fsync of what it shows" if r["durable"] else "NOT durable: --no-durable"
    st = r["store"].get("server_settings", {})
    on = st.get("fsync") == "on" and st.get("synchronous_commit") not in ("off", "local", None)
    return f"{'durable' if on else 'NOT durable'}: fsync={st.get('fsync')}, synchronous_commit={st.get('synchronous_commit')}"


def lines(r: dict[str, Any]) -> list[str]:
    s, b = r["service"], r["bare"]
    return [
        f"service ({r['backend']}, {r['nodes']} node{'s' if r['nodes'] > 1 else ''}, {r.get('workers', 1)} worker process{'es' if r.get('workers', 1) > 1 else ''} each, {_durability(r)}): {r['tables']} tables played for {s['seconds']} s "
        f"({s['tables_replaced']} ended and were replaced): {s['commands']} commands, {s['commands_per_s']} commands/s, "
        f"{s['requests']} requests, {s['requests_per_s']} requests/s, p50/p95/p99 {s['p50_ms']}/{s['p95_ms']}/{s['p99_ms']} ms",
        f"commands alone (POST .../commands, answered after the fsync): p50/p95/p99 {s['commands_only']['p50_ms']}/{s['commands_only']['p95_ms']}/{s['commands_only']['p99_ms']} ms",
        _clients_line(s),
        f"written by the server per command: {s['server_write_bytes_per_command']} bytes; {cpu_line(s)}",
        f"bare /ping for {b['seconds']} s: {b['requests_per_s']} requests/s, p50/p95/p99 {b['p50_ms']}/{b['p95_ms']}/{b['p99_ms']} ms",
        f"ratio {r['ratio_to_bare']} (target 0.25: {'met' if r['ratio_to_bare'] >= 0.25 else 'NOT met'}), "
        f"p99 {s['p99_ms']} ms (target 100 ms: {'met' if s['p99_ms'] <= 100 else 'NOT met'})",
        f"store: audit {r['store']['audit']}, lost {r['store']['lost']}, duplicated {r['store']['duplicated']}, games ended {r['store']['games_ended']}",
    ]


def cpu_line(s: dict[str, Any]) -> str:
    """CPU per command of each part, and how busy the whole machine was during play."""
    store = s.get("store_server_cpu_ms_per_command")
    parts = [f"tonk serve {s['server_cpu_ms_per_command']} ms"]
    if store is not None:
        parts.append(f"PostgreSQL server {store} ms")
    parts.append(f"load generator {s['client_cpu_ms_per_command']} ms")
    busy = s.get("machine_busy_cores")
    machine = f"; the machine was busy {busy} of {s.get('machine_cores')} cores during play (every process)" if busy is not None else ""
    ceiling = s.get("machine_ceiling_commands_per_s")
    if ceiling is not None:
        machine += f"; at these costs all {s.get('machine_cores')} cores could serve at most {ceiling} commands/s"
    return f"CPU per command: {', '.join(parts)}{machine}"


def _clients_line(s: dict[str, Any]) -> str:
    head = f"requests per command: {s['requests_per_command']} (POST .../commands?view=true {s['posts_per_command']}, GET .../view {s['gets_per_command']}): "
    if s.get("clients") == "follow":
        return (
            head + f"clients follow: each person follows its seat's stream (GET .../events?view=turn; {s['streams_opened']} opened, not counted as requests), "
            f"{s['stream_messages_per_command']} stream messages per command (snapshots, events, views), {s['views_pushed_per_command']} views pushed per command "
            "when the turn came to a seat; replacement tables' 3 requests each not counted"
        )
    return head + (
        "clients poll: a seat's view is read only when the turn passes to it or an answer carries none; no stream; replacement tables' 3 requests each not counted"
    )


def postgres_failed(exc: BaseException) -> bool:
    """Whether ``exc`` is PostgreSQL's (psycopg's) own error: a server that is not there or
    refuses, said in one line by the benchmarks' command lines."""
    return type(exc).__module__.startswith("psycopg")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.bench_service")
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--hands", type=int, default=10)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--no-durable", action="store_true", help="not durable: serve SQLite with synchronous=NORMAL; a throwaway PostgreSQL with fsync and synchronous_commit off")
    p.add_argument("--postgres", action="store_true", help="a PostgreSQL store (a fresh schema) instead of a SQLite file")
    p.add_argument("--nodes", type=int, default=1, help="tonk serve processes on the one store (more than 1 needs --postgres)")
    p.add_argument("--workers", type=int, default=1, help="worker processes of each tonk serve (--workers N)")
    p.add_argument("--dsn", default=None, help="with --postgres: the server (default: TONK_PG_DSN, else a throwaway one)")
    p.add_argument("--tonk", default=TONK, help="the tonk executable that serves (e.g. an older build's, for before and after)")
    p.add_argument("--clients", choices=CLIENTS, default="poll", help="poll: GET a seat's view when the turn passes to it; follow: each person follows its seat's stream, which pushes the view then")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    _SERVER[0] = a.tonk
    if a.nodes < 1 or (a.nodes > 1 and not a.postgres):
        p.error("--nodes must be 1, or more with --postgres")
    try:
        r = measure(a.tables, a.hands, a.seconds, durable=not a.no_durable, postgres=a.postgres, nodes=a.nodes, dsn=a.dsn, workers=a.workers, clients=a.clients)
    except Exception as exc:
        if a.postgres and postgres_failed(exc):  # e.g. a --dsn no server answers
            p.error(f"the PostgreSQL server: {str(exc).strip()}")
        raise
    print(json.dumps(r, indent=2) if a.json else "\n".join(lines(r)))
    return 0 if r["clean"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
