"""A real ``tonk serve`` process on a free loopback port, and an HTTP client for it."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

from seating import httpx_post, sit_everyone  # tests/support

pytest.importorskip("litestar")
pytest.importorskip("uvicorn")

TONK = str(Path(sys.executable).with_name("tonk"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``tonk --db DB serve --port PORT ...`` as a child process; ``stop()`` ends it by its pid."""

    def __init__(self, db: Path, logs: Path, *args: str, env: dict[str, str] | None = None):
        self.db = db
        self.env = {**os.environ, **(env or {})}
        self.args = args
        self.logs = logs
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        self.out = open(self.logs / f"serve-{self.port}-{time.monotonic_ns()}.log", "ab")
        self.proc = subprocess.Popen(
            [TONK, "--db", str(self.db), "serve", "--port", str(self.port), *self.args],
            stdout=self.out,
            stderr=subprocess.STDOUT,
            env=self.env,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"tonk serve exited: {self.log()}")
            try:
                if httpx.get(self.url + "/ping", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise RuntimeError("tonk serve did not start")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()

    def log(self) -> str:
        return "".join(p.read_text(errors="replace") for p in sorted(self.logs.glob(f"serve-{self.port}-*.log")))


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator:
    servers: list[Server] = []

    def start(*args: str, db: Path | None = None, env: dict[str, str] | None = None) -> Server:
        s = Server(db or tmp_path / "served.db", tmp_path, *args, env=env)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


@pytest.fixture(scope="module")
def start_module_server(tmp_path_factory) -> Iterator:
    servers: list[Server] = []

    def start(*args: str) -> Server:
        d = tmp_path_factory.mktemp("served")
        s = Server(d / "served.db", d, *args)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


@pytest.fixture(scope="module")
def server(start_module_server) -> Server:
    """One server per test module (starting one costs about a second)."""
    return start_module_server()


class Client:
    """A thin httpx client for one server, with the table's tokens."""

    def __init__(self, url: str):
        self.http = httpx.Client(base_url=url, timeout=30)

    def create(self, sit: bool = True, **settings: Any) -> dict[str, Any]:
        """Create a table; with ``sit`` (the default) every person's seat sits down at once
        (``tests/support/seating.py``), so hand 1 is dealt and the answer says so."""
        r = self.http.post("/tables", json=settings)
        assert r.status_code == 201, r.text
        created = r.json()
        return self.sit_all(created) if sit else created

    def sit_all(self, created: dict[str, Any], tokens: dict[str, str] | None = None) -> dict[str, Any]:
        return sit_everyone(httpx_post(self.http), created, tokens)

    def sit(self, table: str, token: str, client_seed: str) -> httpx.Response:
        return self.http.post(f"/tables/{table}/sit", headers=auth(token), json={"client_seed": client_seed})

    def view(self, table: str, token: str) -> httpx.Response:
        return self.http.get(f"/tables/{table}/view", headers=auth(token))

    def receipts(self, table: str, token: str, **params: Any) -> httpx.Response:
        return self.http.get(f"/tables/{table}/receipts", headers=auth(token), params=params)

    def act(self, table: str, token: str, body: dict[str, Any]) -> httpx.Response:
        return self.http.post(f"/tables/{table}/commands", headers=auth(token), json=body)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create_in_play(c: Client, tries: int = 20, **settings: Any) -> dict[str, Any]:
    """A new table (``Client.create``) whose game is still in play once every person has sat,
    so a person is to act.  The fair deal's deck can end every hand of a short game before any
    person acts (an initial tonk, a bot's knock, then the next deal's initial tonk): such a
    table is replaced, ``tries`` times at most."""
    for _ in range(tries):
        created = c.create(**settings)
        if created["status"] == "playing":
            return created
    raise AssertionError(f"{tries} tables in a row ended their game before any person acted: {settings}")


@pytest.fixture(scope="module")
def client(server) -> Client:
    return Client(server.url)


def command_body(legal: dict[str, Any], version: int) -> dict[str, Any]:
    body = {k: v for k, v in legal.items() if k != "player"}
    if body.get("jokers_as") == {}:
        del body["jokers_as"]
    if body.get("joker_as") is None:
        body.pop("joker_as", None)
    return {**body, "version": version, "command_id": uuid.uuid4().hex}


def play_until_over(c: Client, created: dict[str, Any], rng: random.Random, on_response=None, max_steps: int = 5000) -> int:
    """Every human seat plays random legal actions until the game at the table has ended;
    returns the number of commands sent.  ``on_response(seat, response)`` sees every response."""
    table, tokens = created["table"], created["tokens"]
    sent = 0
    for _ in range(max_steps):
        views = {}
        for seat, tok in tokens.items():
            r = c.view(table, tok)
            if on_response:
                on_response(seat, r)
            assert r.status_code == 200, r.text
            views[seat] = r.json()
        any_view = next(iter(views.values()))
        if any_view["status"] == "ended":
            return sent
        mover = next((s for s, v in views.items() if v["legal"]), None)
        assert mover is not None, any_view
        v = views[mover]
        r = c.act(table, tokens[mover], command_body(rng.choice(v["legal"]), v["version"]))
        if on_response:
            on_response(mover, r)
        assert r.status_code == 200, r.text
        sent += 1
    raise AssertionError("the game did not end")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TONK, *args], capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})


def cli_json(*args: str) -> Any:
    p = run_cli(*args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)
