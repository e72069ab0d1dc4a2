"""The fair deal over HTTP (docs/fair-deal.md): a table waits until every person's seat has sat
down with its seed; every deck of a served game recomputes from the revealed server seed and
the seats' seeds (by the engine, by ``tonk audit`` and by the stand-alone verifier printed in
the docs); a deck the operator chose is named by the audit."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tonk.core import Game, fair_deal
from tonk.core.commands import DealHand
from tonk.core.events import GameEnded, GameStarted, HandDealt
from tonk.storage import EventStore
from tonk.variants import load_ruleset

from .conftest import Client, auth, play_until_over, run_cli

ROOT = Path(__file__).resolve().parents[2]


def doc_verifier(tmp_path: Path) -> Path:
    """The stand-alone verifier exactly as docs/fair-deal.md prints it."""
    text = (ROOT / "docs" / "fair-deal.md").read_text()
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    path = tmp_path / "verify_deal.py"
    path.write_text(code)
    return path


def run_verifier(tmp_path: Path, data: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", str(doc_verifier(tmp_path)), str(data)], capture_output=True, text=True)


def export(db: Path, game: str, out: Path) -> Path:
    r = run_cli("--db", str(db), "export", game, "--output", str(out))
    assert r.returncode == 0, r.stderr
    return out


def test_a_table_deals_nothing_until_every_person_has_sat_and_keeps_a_seed_over_a_restart(start_server):
    server = start_server()
    c = Client(server.url)
    created = c.create(sit=False, seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=1)
    table, tokens = created["table"], created["tokens"]
    assert created["status"] == "waiting" and created["commitment"] is None
    assert re.fullmatch(r"[0-9a-f]{64}", created["server_seed_hash"])
    ann_seed = fair_deal.new_client_seed()
    r = c.sit(table, tokens["ann"], ann_seed)
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "waiting" and r.json()["sat"] == ["ann"] and r.json()["client_seed"] == ann_seed
    view = c.view(table, tokens["ann"]).json()
    assert view["status"] == "waiting" and view["sat"] == ["ann"] and view["client_seed"] == ann_seed
    assert view["legal"] == [] and view["commitment"] is None and not view["view"]["in_hand"]
    bob = c.view(table, tokens["bob"]).json()
    assert bob["client_seed"] is None and ann_seed not in json.dumps(bob)
    listed = next(t for t in c.http.get("/tables").json()["tables"] if t["table"] == table)
    assert listed["status"] == "waiting" and listed["sat"] == ["ann"] and ann_seed not in json.dumps(listed)
    # nothing is dealt whatever bob tries before he sits
    r = c.act(table, tokens["bob"], {"action": "draw_stock", "version": view["version"], "command_id": "early"})
    assert r.status_code in (409, 422), r.text
    server.proc.kill()  # no clean shut-down: ann's seed was kept in the store
    server.proc.wait()
    server.start()
    c = Client(server.url)
    with EventStore.open(server.db) as store:
        events = store.read(table)
    assert [type(e) for e in events] == [GameStarted]
    bob_seed = fair_deal.new_client_seed()
    r = c.sit(table, tokens["bob"], bob_seed)
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["sat"] == ["ann", "bob"] and answer["version"] > 1
    with EventStore.open(server.db) as store:
        dealt = next(e for e in store.read(table) if type(e) is HandDealt)
    assert dealt.client_seeds == {"ann": ann_seed, "bob": bob_seed, "cy": ""} and dealt.nonce == 1 and dealt.deal_scheme == "tonk-deal-v1"


def test_sitting_refuses_what_it_must_with_clear_errors(server, client: Client):
    created = client.create(sit=False, seats=["ann", "bob"])
    table, tokens = created["table"], created["tokens"]
    seed = "ab" * 16

    def error(r, status: int, words: str) -> None:
        assert r.status_code == status, r.text
        assert words in r.json()["error"]["message"], r.text

    error(client.sit(table, tokens["ann"], "AB" * 16), 400, "lowercase hex")
    error(client.sit(table, tokens["ann"], "ab" * 15), 400, "16 to 64 bytes")
    error(client.sit(table, tokens["ann"], "ab" * 65), 400, "16 to 64 bytes")
    error(client.sit(table, tokens["ann"], "abc"), 400, "lowercase hex")
    error(client.sit(table, created["host_token"], seed), 403, "host token")
    assert client.http.post(f"/tables/{table}/sit", json={"client_seed": seed}).status_code == 401
    assert client.http.post(f"/tables/{table}/sit", json={"seed": seed}, headers=auth(tokens["ann"])).status_code == 400
    assert client.sit("no-such-table", tokens["ann"], seed).status_code == 404
    first = client.sit(table, tokens["ann"], seed)
    assert first.status_code == 200
    again = client.sit(table, tokens["ann"], seed)  # the same seed again: the same answer
    assert again.status_code == 200 and again.json() == first.json()
    error(client.sit(table, tokens["ann"], "cd" * 16), 409, "fixed once it has sat")
    # the host closes the waiting table: the game ends without a hand, its server seed revealed
    assert client.http.post(f"/tables/{table}/close", headers=auth(created["host_token"])).status_code == 200
    error(client.sit(table, tokens["bob"], seed), 410, "has ended")
    with EventStore.open(server.db) as store:
        events = store.read(table)
    assert type(events[-1]) is GameEnded and fair_deal.seed_hash(events[-1].server_seed) == created["server_seed_hash"]


def test_two_people_and_a_bot_play_a_game_whose_every_deck_recomputes(server, client: Client, tmp_path: Path):
    created = client.create(seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=3)
    assert created["status"] == "playing"
    play_until_over(client, created, random.Random(22))
    with EventStore.open(server.db) as store:
        events = store.read(created["table"])
    started, ended = events[0], events[-1]
    assert isinstance(started, GameStarted) and isinstance(ended, GameEnded)
    assert started.server_seed_hash == created["server_seed_hash"] == fair_deal.seed_hash(ended.server_seed)
    deals = [e for e in events if type(e) is HandDealt]
    assert [d.nonce for d in deals] == [1, 2, 3]
    seeds = {**created["client_seeds"], "cy": ""}
    for d in deals:
        assert d.client_seeds == seeds
        assert d.deck == fair_deal.fair_deck(ended.server_seed, d.hand_no, started.players, seeds, load_ruleset().deck)
    audit = run_cli("--db", str(server.db), "audit", created["table"], "--json")
    assert audit.returncode == 0, audit.stdout
    (g,) = json.loads(audit.stdout)["games"]
    assert g["checks"]["deal"] == "ok" and g["deal"]["guarantees"] == "secret and committed, and fair"
    assert g["deal"]["decks_recomputed"] == 3
    text = run_cli("--db", str(server.db), "audit", created["table"]).stdout
    assert "deals: secret and committed, and fair: 3 of 3 decks follow from the seeds" in text
    # anyone, without tonk: the verifier printed in docs/fair-deal.md, on the game's export
    r = run_verifier(tmp_path, export(server.db, created["table"], tmp_path / "game.jsonl"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines() == ["server seed matches its hash", "hand 1: deck verified", "hand 2: deck verified", "hand 3: deck verified"]
    # no secret of the fair deal is ever in the server's log
    log = server.log()
    assert "/sit" in log and ended.server_seed not in log and not any(seed in log for seed in created["client_seeds"].values())
    # over HTTP, the ended game's audit says the same
    assert client.http.get(f"/games/{created['table']}/audit").json()["games"][0]["deal"]["guarantees"] == "secret and committed, and fair"


def _forged(server, client: Client, tmp_path: Path, deal) -> tuple[dict, Path, dict]:
    """A served game of two hands whose hand 2 the operator dealt from a deck of its choosing
    (``deal(real)``: the ``DealHand`` of it, given the real hand 2) and whose log it rewrote from
    there (a new chain, so the chain check cannot tell), the hand played out by the rules: the
    table, the forged store, and ``tonk audit --json``'s game (it must fail, on hand 2 only)."""
    created = client.create(seats=["ann", "bob"], hand_limit=2)
    play_until_over(client, created, random.Random(5))
    with EventStore.open(server.db) as store:
        events = store.read(created["table"])
    server_seed = events[-1].server_seed
    i = next(k for k, e in enumerate(events) if type(e) is HandDealt and e.hand_no == 2)
    real = events[i]
    assert isinstance(real, HandDealt) and isinstance(real.client_seeds, dict) and isinstance(real.salt, str)
    game = Game(load_ruleset(), events[:i])
    game.play(deal(real))
    rng = random.Random(3)
    while game.in_hand:
        game.play(rng.choice(game.legal_actions()))
    game.end("hand limit 2 reached", server_seed=server_seed)
    forged = tmp_path / "forged.db"
    with EventStore.open(forged, create=True) as store:
        store.append(created["table"], game.events, 0)
    audit = run_cli("--db", str(forged), "audit", created["table"], "--json")
    assert audit.returncode == 1, audit.stdout
    (g,) = json.loads(audit.stdout)["games"]
    assert g["checks"] == {"chain": "ok", "conservation": "ok", "rules": "ok", "deal": "failed"}
    assert [(f["check"], f["hand_no"]) for f in g["findings"]] == [("deal", 2)]
    assert "NOT fair" in g["deal"]["statement"]
    r = run_verifier(tmp_path, export(forged, created["table"], tmp_path / "forged.jsonl"))
    assert r.returncode == 1
    assert r.stdout.splitlines() == ["server seed matches its hash", "hand 1: deck verified", "hand 2: deck does NOT follow from the seeds"]
    return created, forged, g


def test_a_deck_the_operator_chose_is_named_by_the_audit_and_the_verifier(server, client: Client, tmp_path: Path):
    # the seeds recorded as sent, the salted commitment of the stacked deck (an order the seeds did not give)
    created, forged, g = _forged(server, client, tmp_path, lambda real: DealHand(deck=tuple(sorted(real.deck)), salt=real.salt, client_seeds=dict(real.client_seeds)))
    assert "hand 2's deck does not follow from the server seed" in g["findings"][0]["message"]
    text = run_cli("--db", str(forged), "audit", created["table"]).stdout
    assert "hand 2's deck does not follow" in text and "NOT fair" in text


@pytest.mark.parametrize("salted", [True, False], ids=["salted", "unsalted"])
def test_a_deck_the_operator_chose_and_recorded_without_the_seeds_is_named_too(server, client: Client, tmp_path: Path, salted: bool):
    """The same forgery, but hand 2 recorded as an ordinary (salted or unsalted) deal, without
    deal_scheme, nonce or client_seeds: the game committed to a server seed and revealed it, so
    every hand must be the fair deal's, and a hand that does not say it is one does not follow
    from the seeds."""
    _, _, g = _forged(server, client, tmp_path, lambda real: DealHand(deck=tuple(sorted(real.deck)), salt=real.salt if salted else None))
    assert "hand 2 records no tonk-deal-v1 deal" in g["findings"][0]["message"]


def test_the_stand_alone_verifier_checks_the_vectors_and_refuses_a_changed_one(tmp_path: Path):
    vectors = ROOT / "tests" / "core" / "fair_deal_vectors.json"
    r = run_verifier(tmp_path, vectors)
    data = json.loads(vectors.read_text())
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("deck verified") == len(data["vectors"]) == 5 and "NOT" not in r.stdout
    data["vectors"][3]["client_seeds"]["south"] = "5b" + "5a" * 63  # one bit of one seed
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(data))
    r = run_verifier(tmp_path, changed)
    assert r.returncode == 1 and "two jokers, two seats, 64-byte seeds: deck does NOT follow from the seeds" in r.stdout


def test_a_timed_table_deals_at_its_sitting_deadline_and_the_record_says_who_had_not_sat(start_server):
    server = start_server()
    c = Client(server.url)
    # a turn timer far longer than the test: with 1 s, a busy machine let the timer play the one
    # hand out before bob's late sit, which then met a finished table (410) instead of the deal;
    # and no hand limit: a one-hand game ends at its deal when the deck deals an initial tonk,
    # and bob's sit met that finished table (410) too
    created = c.create(sit=False, seats=["ann", "bob"], turn_timer=60, sit_deadline=1)
    table, tokens = created["table"], created["tokens"]
    seed = fair_deal.new_client_seed()
    assert c.sit(table, tokens["ann"], seed).status_code == 200
    for _ in range(600):  # bob never sits: the deadline deals him in with the empty seed
        if c.view(table, tokens["ann"]).json()["status"] != "waiting":
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the sitting deadline did not deal hand 1")
    with EventStore.open(server.db) as store:
        dealt = next(e for e in store.read(table) if type(e) is HandDealt)
    assert dealt.client_seeds == {"ann": seed, "bob": ""} and dealt.not_sat == ("bob",)
    r = c.sit(table, tokens["bob"], fair_deal.new_client_seed())
    assert r.status_code == 409 and "dealt without this seat's seed" in r.json()["error"]["message"]
    bad = c.http.post("/tables", json={"seats": ["ann", "bob"], "sit_deadline": 5})
    assert bad.status_code == 400 and "sit_deadline needs a turn_timer" in bad.text
