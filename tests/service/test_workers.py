"""``tonk serve --workers 2``: two processes on one port and one SQLite store.  A command made
through one worker is in the other's next view and reaches a stream the other serves; the
game audits clean; SIGTERM stops every worker and the server exits with 0."""

from __future__ import annotations

import http.client
import json
import os
import random
import threading
from pathlib import Path
from typing import Any

from .conftest import command_body, run_cli


def workers_of(pid: int) -> list[int]:
    return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def worker_serving(sock_port: int, server_port: int, workers: list[int]) -> int | None:
    """The worker whose socket is the server end of the connection from local port ``sock_port``."""
    inodes = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(name).read_text().splitlines()[1:]:
            f = line.split()
            if int(f[1].rsplit(":", 1)[1], 16) == server_port and int(f[2].rsplit(":", 1)[1], 16) == sock_port:
                inodes.add(f[9])
    for w in workers:
        for fd in os.listdir(f"/proc/{w}/fd"):
            try:
                if os.readlink(f"/proc/{w}/fd/{fd}") in {f"socket:[{i}]" for i in inodes}:
                    return w
            except OSError:
                continue
    return None


class Conn:
    """One keep-alive connection, and the worker that serves it."""

    def __init__(self, port: int):
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.call("GET", "/ping")

    def call(self, method: str, path: str, token: str | None = None, body: Any = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.http.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        r = self.http.getresponse()
        return r.status, json.loads(r.read() or b"null")


def one_on_each(port: int, workers: list[int]) -> dict[int, Conn]:
    found: dict[int, Conn] = {}
    for _ in range(200):  # the kernel hands each new connection to one of the workers
        c = Conn(port)
        w = worker_serving(c.http.sock.getsockname()[1], port, workers)
        if w is not None and w not in found:
            found[w] = c
            if len(found) == len(workers):
                return found
        else:
            c.http.close()
    raise AssertionError(f"no connection landed on each worker: {sorted(found)} of {workers}")


def test_two_workers_serve_one_store_and_a_command_reaches_the_other_workers_views_and_streams(start_server):
    server = start_server("--workers", "2", "--public-rate", "0")
    workers = workers_of(server.proc.pid)
    assert len(workers) == 2
    a, b = one_on_each(server.port, workers).values()

    status, created = a.call("POST", "/tables", None, {"seats": ["ann", "bob", "cy"], "bots": {"cy": "random"}, "hand_limit": 2})
    assert status == 201
    table, tokens = created["table"], created["tokens"]
    for i, token in enumerate(tokens.values()):  # each sits through another worker
        assert (a if i % 2 else b).call("POST", f"/tables/{table}/sit", token, {"client_seed": f"{i:02d}" * 16})[0] == 200

    # ann's stream on a connection of worker b: every event arrives, whichever worker stored it
    stream = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    stream.request("GET", f"/tables/{table}/events", headers={"Authorization": f"Bearer {tokens['ann']}"})
    answer = stream.getresponse()
    assert answer.status == 200
    seen: list[int] = []
    snapshot: list[int] = []

    def read() -> None:
        event = ""
        for raw in answer.fp:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
                if event == "snapshot":
                    snapshot.append(data["version"])
                elif "seq" in data:
                    seen.append(data["seq"])
                    if event == "game_ended":
                        return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    # commands through worker a, views through worker b: b's view always shows a's last command
    rng = random.Random(5)
    for _ in range(2000):
        views = {s: b.call("GET", f"/tables/{table}/view", t)[1] for s, t in tokens.items()}
        if next(iter(views.values()))["status"] == "ended":
            break
        mover = next(s for s, v in views.items() if v["legal"])
        status, done = a.call("POST", f"/tables/{table}/commands?view=true", tokens[mover], command_body(rng.choice(views[mover]["legal"]), views[mover]["version"]))
        assert status == 200, done
        assert b.call("GET", f"/tables/{table}/view", tokens[mover])[1]["version"] == done["version"] == done["view"]["version"]
    else:
        raise AssertionError("the game did not end")
    reader.join(30)
    last = views["ann"]["version"]
    assert seen == list(range(snapshot[0] + 1, last + 1))  # every event once, in order
    stream.close()

    audit = run_cli("--db", str(server.db), "audit", table, "--json")
    assert json.loads(audit.stdout)["summary"]["clean"] == 1
    server.stop()
    assert server.proc.returncode == 0
    assert not any(Path(f"/proc/{w}").exists() and "zombie" not in Path(f"/proc/{w}/status").read_text() for w in workers)


def test_the_workers_stop_when_the_first_process_is_killed(start_server):
    """SIGKILL to the first process: no worker goes on serving the port on its own."""
    import signal
    import time

    server = start_server("--workers", "2")
    workers = workers_of(server.proc.pid)
    assert len(workers) == 2
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait()

    def alive(pid: int) -> bool:
        try:
            return "zombie" not in Path(f"/proc/{pid}/status").read_text() and "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return False

    for _ in range(600):  # each stops gracefully (bounded wait for the condition, not a timing)
        if not any(alive(w) for w in workers):
            break
        time.sleep(0.05)
    assert not any(alive(w) for w in workers)
