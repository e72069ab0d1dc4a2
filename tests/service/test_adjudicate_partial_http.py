"""``POST /adjudicate`` on partial-knowledge records answers exactly what ``tonk adjudicate
--json`` prints, against a real ``tonk serve`` (no public rate: many requests)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from partial_cases import hide_parts  # tests/support

from .conftest import run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FIXTURES = Path(__file__).resolve().parents[1] / "core" / "fixtures"


@pytest.fixture(scope="module")
def http(start_module_server):
    server = start_module_server("--public-rate", "0")
    with httpx.Client(base_url=server.url, timeout=30) as h:
        yield h



def _documents() -> list[bytes]:
    docs = [(EXAMPLES / "public-partial-cases.json").read_bytes()]
    explicit = []
    for source in (EXAMPLES / "public-cases.json", EXAMPLES / "disputed-hands.json", FIXTURES / "referee-cases.json"):
        explicit += [c for c in json.loads(source.read_text())["cases"] if c["setup"]["mode"] == "explicit"]
    # the variants that read which cards a hand holds weigh each unseen card: slow to run twice, left out
    explicit = [c for c in explicit if not {"mandatory-laydown", "discard-pick-must-meld"} & set(c["ruleset"].get("variants", []))]
    rng = random.Random(21)
    for _ in range(2):
        cases = [hide_parts(c, rng, hand_chance=0.7) for c in explicit]
        docs.append(json.dumps({"format": "tonk-adjudication-cases", "format_version": 2, "cases": cases}).encode())
    return docs


@pytest.mark.parametrize("n", range(3))
def test_http_answers_what_the_cli_prints(http, tmp_path, n):
    body = _documents()[n]
    path = tmp_path / "records.json"
    path.write_bytes(body)
    cli = run_cli("adjudicate", str(path), "--json")
    assert cli.returncode in (0, 1, 2), cli.stderr
    r = http.post("/adjudicate", content=body)
    assert r.status_code == 200
    assert r.text == cli.stdout
    assert any(c.get("format_version") == 2 for c in r.json()["cases"])


#: a record whose unseen cards could lie in too many ways (three hands nobody has fully shown
#: and two unnamed draws): the engine weighs worlds for a few seconds of CPU before it refuses
#: the case (the slowest kind of request the route takes)
HEAVY = {
    "format_version": 2,
    "cases": [
        {
            "id": "H1",
            "ruleset": {"variants": [], "options": {"base_stake": 1}},
            "players": ["P1", "P2", "P3"],
            "dealer": "P3",
            "setup": {
                "mode": "explicit",
                "hands": {"P1": {"cards": ["6C"], "unknown": 4}, "P2": {"unknown": 5}, "P3": {"unknown": 5}},
                "stock": {"unknown": 36},
                "discard": ["KD"],
                "table": [],
                "to_act": "P1",
            },
            "actions": [
                {"seq": 1, "player": "P1", "action": "draw_stock"},
                {"seq": 2, "player": "P1", "action": "discard", "card": "6C"},
                {"seq": 3, "player": "P2", "action": "draw_stock"},
                {"seq": 4, "player": "P2", "action": "knock"},
            ],
        }
    ],
}


def test_a_long_adjudication_does_not_hold_up_the_tables(http: httpx.Client):
    """The service goes on answering while a case weighs its worlds (the adjudication runs
    in a worker thread): requests sent during it are answered before it is."""
    import threading
    import time

    done: list[str] = []
    answer: dict[str, Any] = {}

    def adjudicate() -> None:
        with httpx.Client(base_url=str(http.base_url), timeout=120) as h:
            r = h.post("/adjudicate", content=json.dumps(HEAVY))
        answer["status"], answer["case"] = r.status_code, r.json()["cases"][0]
        done.append("adjudicate")

    worker = threading.Thread(target=adjudicate)
    worker.start()
    time.sleep(0.3)  # let the case start weighing (were it later, the pings would only be earlier)
    for _ in range(3):
        assert http.get("/ping").status_code == 200
        done.append("ping")
    worker.join(120)
    assert answer["status"] == 200 and answer["case"]["status"] == "error" and "too many" in answer["case"]["message"]
    assert done == ["ping", "ping", "ping", "adjudicate"], done
