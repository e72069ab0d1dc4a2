"""``tonk serve`` binds its port before it serves: ``--port 0`` announces the port the system
picked (not ":0"), and a port already in use is refused with a clear error and a non-zero exit
before any server starts, with no traceback and the store untouched."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
from pathlib import Path

import httpx

from .conftest import TONK

BANNER = re.compile(r"tonk serve: http://127\.0\.0\.1:(\d+) ")
EXIT_WAIT = 60  # a safety net: each process here is expected to end within seconds


def _serve(db: Path, port: int) -> subprocess.Popen:
    return subprocess.Popen([TONK, "--db", str(db), "serve", "--port", str(port), "--no-access-log"], stderr=subprocess.PIPE, text=True)


def test_port_zero_announces_the_port_it_serves_on(tmp_path: Path) -> None:
    proc = _serve(tmp_path / "t.db", 0)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # the banner comes before the server's own lines
        found = BANNER.match(line)
        assert found, f"no banner with a port: {line!r}"
        port = int(found.group(1))
        assert port != 0
        with httpx.Client(timeout=10) as client:  # the server may still be starting
            for _ in range(200):
                try:
                    answer = client.get(f"http://127.0.0.1:{port}/ping")
                    break
                except httpx.ConnectError:
                    proc.poll()
                    assert proc.returncode is None, "tonk serve exited"
            assert answer.status_code == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(EXIT_WAIT)
    assert proc.returncode == 0


def test_a_port_in_use_is_refused_before_anything_is_served(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    subprocess.run([TONK, "--db", str(db), "simulate", "--hands", "2", "--seed", "1"], check=True, capture_output=True)
    before = db.read_bytes()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _serve(db, port)
        _, err = proc.communicate(timeout=EXIT_WAIT)
    assert proc.returncode != 0
    assert f"port {port}" in err and "in use" in err, err
    assert "Traceback" not in err
    assert "tonk serve: http" not in err and "Started server process" not in err, err
    assert db.read_bytes() == before
