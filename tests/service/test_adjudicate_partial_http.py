"""``POST /adjudicate`` on partial-knowledge records answers exactly what ``tonk adjudicate
--json`` prints, against a real ``tonk serve`` (no public rate: many requests)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FIXTURES = Path(__file__).resolve().parents[1] / "core" / "fixtures"


@pytest.fixture(scope="module")
def http(start_module_server):
    server = start_module_server("--public-rate", "0")
    with httpx.Client(base_url=server.url, timeout=30) as h:
        yield h


def _hidden(case: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A version 1 explicit case with its stock unknown and, by chance, a hand or the
    discard pile below its top."""
    c = copy.deepcopy(case)
    setup = c["setup"]
    setup["stock"] = {"unknown": len(setup["stock"])}
    if rng.random() < 0.7:
        p = rng.choice(c["players"])
        cards = setup["hands"][p]
        keep = rng.randint(0, len(cards))
        setup["hands"][p] = {"cards": cards[:keep], "unknown": len(cards) - keep}
    if rng.random() < 0.5 and len(setup["discard"]) > 1:
        setup["discard"] = {"cards": setup["discard"][:1], "unknown": len(setup["discard"]) - 1}
    c.pop("expected", None)
    for a in c.get("actions", []):
        a.pop("expect", None)
    return c


def _documents() -> list[bytes]:
    docs = [(EXAMPLES / "public-partial-cases.json").read_bytes()]
    explicit = []
    for source in (EXAMPLES / "public-cases.json", EXAMPLES / "disputed-hands.json", FIXTURES / "referee-cases.json"):
        explicit += [c for c in json.loads(source.read_text())["cases"] if c["setup"]["mode"] == "explicit"]
    # the variants that read which cards a hand holds weigh each unseen card: slow to run twice, left out
    explicit = [c for c in explicit if not {"mandatory-laydown", "discard-pick-must-meld"} & set(c["ruleset"].get("variants", []))]
    rng = random.Random(21)
    for _ in range(2):
        cases = [_hidden(c, rng) for c in explicit]
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
