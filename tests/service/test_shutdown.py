"""``tonk serve`` stops on SIGTERM and SIGINT while streams are open (issue 18, finding 6):
every stream is told the server stops and ends, a command in flight finishes, the process
exits with 0, the store is intact, and a client resumes where it was once a server is back."""

from __future__ import annotations

import random
import signal
import socket
import threading
import time

import httpx
import pytest

from tonk.storage import EventStore

from .conftest import Client, auth, command_body, run_cli
from .sse import SSE

EXIT_WAIT = 60  # a safety net: the process is expected to exit within --shutdown-timeout


def _playing(client: Client, created: dict, rng: random.Random, acked: list[tuple[str, int]], stop: threading.Event) -> None:
    """Random legal commands at one table until the server is gone (or the game ends); each
    acknowledged command's id and version are kept."""
    table, tokens = created["table"], created["tokens"]
    try:
        while not stop.is_set():
            views = [client.view(table, tok).json() for tok in tokens.values()]
            if views[0]["status"] == "ended":
                return
            v = next(v for v in views if v["legal"])
            body = command_body(rng.choice(v["legal"]), v["version"])
            r = client.act(table, tokens[v["seat"]], body)
            assert r.status_code == 200, r.text
            acked.append((body["command_id"], r.json()["version"]))
    except (httpx.HTTPError, ValueError):
        return  # the server went away: a refused connection, or a reply cut off


def _not_reading(server, path: str, token: str) -> socket.socket:
    """A stream whose client sends its request and never reads; returned once the server has
    answered (its bytes wait, unread, in the socket)."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    assert sock.recv(1, socket.MSG_PEEK)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    out = b""
    while chunk := sock.recv(65536):
        out += chunk
    sock.close()
    return out


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_every_open_stream_and_the_server_exits_cleanly(start_server, signum):
    server = start_server("--rate", "0", "--public-rate", "0", "--keepalive", "0.5", "--shutdown-timeout", "5")
    client = Client(server.url)
    created = [client.create(seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=50) for _ in range(3)]
    streams: list[SSE] = []
    for c in created:
        for tok in c["tokens"].values():
            streams.append(SSE(f"{server.url}/tables/{c['table']}/events", auth(tok)))
        streams.append(SSE(f"{server.url}/tables/{c['table']}/spectate"))
    assert all(s.status == 200 for s in streams)
    quiet = _not_reading(server, f"/tables/{created[0]['table']}/events", created[0]["tokens"]["bob"])
    acked: list[tuple[str, int]] = []
    stop = threading.Event()
    player = threading.Thread(target=_playing, args=(Client(server.url), created[1], random.Random(1), acked, stop))
    player.start()
    for s in streams:
        s.wait_for(lambda s: s.messages)
    for _ in range(EXIT_WAIT * 10):  # the signal comes while commands are being played
        if acked or not player.is_alive():
            break
        time.sleep(0.1)
    assert acked, server.log()
    assert server.proc is not None
    server.proc.send_signal(signum)
    assert server.proc.wait(EXIT_WAIT) == 0, server.log()
    stop.set()
    player.join(EXIT_WAIT)
    log = server.log()
    assert "Traceback" not in log and "Exception in ASGI" not in log, log
    assert "Application shutdown complete" in log, log  # the lifespan's shutdown ran: timer, follower, store closed
    for s in streams:
        s.wait_for(lambda s: s.ended, timeout=EXIT_WAIT)
        last = s.messages[-1]
        assert last["event"] == "shutdown" and last["retry"] == "1000" and "id" not in last, s.messages[-3:]
        seen = [m for m in s.messages[:-1] if "id" in m]
        assert last["data"]["last_event_id"] == int(seen[-1]["id"])
        s.close()
    unread = _read_all(quiet)
    assert unread.startswith(b"HTTP/1.1 200") and b"event: snapshot" in unread and b"event: shutdown" in unread
    assert unread.endswith(b"0\r\n\r\n")  # the response ended (the last chunk)
    for args in (["audit", "--all"], ["verify"]):
        p = run_cli("--db", str(server.db), *args)
        assert p.returncode == 0, p.stdout + p.stderr
    with EventStore.open(server.db) as store:
        stored = {r.command_id: r.seq for r in store.records(created[1]["table"]) if r.command_id}
    assert all(stored.get(cid, 0) <= version for cid, version in acked)  # the first event of each: in its answer
    assert all(cid in stored for cid, _ in acked)  # every acknowledged command is stored


def test_a_client_resumes_after_the_shutdown_message_once_the_server_is_back(start_server):
    server = start_server("--rate", "0", "--shutdown-timeout", "5")
    client = Client(server.url)
    created = client.create(seats=["ann", "bob"])  # no hand limit: the game goes on
    table, tokens = created["table"], created["tokens"]
    s = SSE(f"{server.url}/tables/{table}/events", auth(tokens["ann"]))
    s.wait_for(lambda s: s.messages)
    assert server.proc is not None
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(EXIT_WAIT) == 0, server.log()
    s.wait_for(lambda s: s.ended, timeout=EXIT_WAIT)
    notice = s.messages[-1]
    assert notice["event"] == "shutdown"
    server.out.close()
    server.start()  # the same port and store: the old process is gone
    rng = random.Random(3)
    for _ in range(3):
        v = next(v for v in (client.view(table, tok).json() for tok in tokens.values()) if v["legal"])
        assert client.act(table, tokens[v["seat"]], command_body(rng.choice(v["legal"]), v["version"])).status_code == 200
    version = client.view(table, tokens["ann"]).json()["version"]
    resumed = SSE(f"{server.url}/tables/{table}/events", {**auth(tokens["ann"]), "Last-Event-ID": str(notice["data"]["last_event_id"])})
    resumed.wait_for(lambda r: r.messages and r.messages[-1].get("id") == str(version))
    assert [m["data"]["seq"] for m in resumed.messages] == list(range(notice["data"]["last_event_id"] + 1, version + 1))
    s.close()
    resumed.close()
