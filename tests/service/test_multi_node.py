"""Several ``tonk serve`` nodes on one PostgreSQL store (issue 15): commands alternate
between the nodes, every seat's stream on every node sees every event exactly once, a
race between the nodes resolves by the expected version, a killed node loses nothing."""

from __future__ import annotations

import random
import signal
import threading
import uuid
from typing import Any

import pytest

from .conftest import Client, auth, cli_json, command_body, create_in_play, run_cli
from .sse import SSE

pytestmark = pytest.mark.postgres


def play_alternating(clients: list[Client], created: dict[str, Any], rng: random.Random, max_steps: int = 5000) -> int:
    """The human seats play random legal actions, each read and each command going to the
    next node in turn, until the game has ended; returns the number of commands."""
    table, tokens = created["table"], created["tokens"]
    step = 0
    for _ in range(max_steps):
        c = clients[step % len(clients)]
        views = {}
        for seat, tok in tokens.items():
            r = c.view(table, tok)
            assert r.status_code == 200, r.text
            views[seat] = r.json()
        if next(iter(views.values()))["status"] == "ended":
            return step
        mover = next(s for s, v in views.items() if v["legal"])
        v = views[mover]
        r = clients[(step + 1) % len(clients)].act(table, tokens[mover], command_body(rng.choice(v["legal"]), v["version"]))
        assert r.status_code == 200, r.text
        step += 1
    raise AssertionError("the game did not end")


def stored_version(url: str, table: str) -> int:
    return cli_json("--db", url, "replay", table, "--json")["events"]


def test_two_nodes_play_tables_together_every_stream_sees_every_event_once(pg_url, start_server):
    a = start_server(db=pg_url)
    b = start_server(db=pg_url)
    clients = [Client(a.url), Client(b.url)]
    # in play once seated (the deck can end both hands before a person acts: no command to alternate)
    tables = [create_in_play(clients[i % 2], seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=2) for i in range(2)]
    streams: list[tuple[str, str, SSE]] = []
    for created in tables:
        for node in (a, b):
            for seat, tok in created["tokens"].items():
                s = SSE(f"{node.url}/tables/{created['table']}/events", auth(tok))
                assert s.status == 200
                streams.append((created["table"], seat, s))
    for i, created in enumerate(tables):
        assert play_alternating(clients, created, random.Random(i)) > 0
    finals = {created["table"]: clients[0].view(created["table"], next(iter(created["tokens"].values()))).json()["version"] for created in tables}
    for table, seat, s in streams:
        s.wait_for(lambda s: s.ended or (s.events() and s.events()[-1]["data"]["seq"] == finals[table]))
        snap = s.messages[0]
        assert snap["event"] == "snapshot" and snap["data"]["seat"] == seat
        seqs = [m["data"]["seq"] for m in s.events()]
        assert seqs == list(range(snap["data"]["version"] + 1, finals[table] + 1)), (seat, seqs)
        s.close()
    for created in tables:
        assert finals[created["table"]] == stored_version(pg_url, created["table"])
    p = run_cli("--db", pg_url, "audit", "--all")
    assert p.returncode == 0, p.stdout + p.stderr


def test_a_race_between_nodes_resolves_by_the_expected_version(pg_url, start_server):
    a = start_server(db=pg_url)
    b = start_server(db=pg_url)
    ca, cb = Client(a.url), Client(b.url)
    # no hand limit: no command can end the game (with 3 hands a knock could, when the next two
    # deals were initial tonks, and a command at an ended game is 410 before its version is read)
    created = ca.create(seats=["ann", "bob"])
    table, tokens = created["table"], created["tokens"]
    assert cb.view(table, tokens["ann"]).status_code == 200  # node b caches the table too
    v = next(cv for cv in (ca.view(table, t).json() for t in tokens.values()) if cv["legal"])
    seat = v["seat"]
    # two different commands at the same version, one through each node, at once
    bodies = [command_body(v["legal"][0], v["version"]), command_body(v["legal"][-1], v["version"])]
    answers: list[Any] = [None, None]
    go = threading.Barrier(2)

    def send(i: int) -> None:
        go.wait()
        answers[i] = (ca, cb)[i].act(table, tokens[seat], bodies[i])

    threads = [threading.Thread(target=send, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = sorted(r.status_code for r in answers)
    assert codes == [200, 409], [r.text for r in answers]
    won = next(r for r in answers if r.status_code == 200).json()
    lost = next(r for r in answers if r.status_code == 409).json()
    assert lost["error"]["current_version"] == won["version"]
    assert stored_version(pg_url, table) == won["version"]  # one command's events, not two
    # a retry of the winner's command id through either node: the first answer, nothing applied again
    winner_body = bodies[[r.status_code for r in answers].index(200)]
    for c in (ca, cb):
        again = c.act(table, tokens[seat], winner_body)
        assert again.status_code == 200 and again.json() == won
    assert stored_version(pg_url, table) == won["version"]
    # a client's stale version through the other node: 409 with the current version
    stale = cb.act(table, tokens[seat], {**bodies[0], "command_id": uuid.uuid4().hex})
    assert stale.status_code == 409 and stale.json()["error"]["current_version"] == won["version"]


def test_a_node_killed_mid_hand_loses_nothing_and_the_other_carries_on(pg_url, start_server):
    a = start_server(db=pg_url)
    b = start_server(db=pg_url)
    ca, cb = Client(a.url), Client(b.url)
    created = ca.create(seats=["ann", "bob", "cy"], bots={"cy": "random"}, hand_limit=10)  # three commands cannot end it
    table, tokens = created["table"], created["tokens"]
    rng = random.Random(5)
    watch = SSE(f"{b.url}/tables/{table}/events", auth(tokens["bob"]))
    acked = 0
    for _ in range(3):  # a few commands through node a; then it dies with a hand in play
        v = next(cv for cv in (ca.view(table, t).json() for t in tokens.values()) if cv["legal"])
        r = ca.act(table, tokens[v["seat"]], command_body(rng.choice(v["legal"]), v["version"]))
        assert r.status_code == 200, r.text
        acked = r.json()["version"]
    assert ca.view(table, tokens["ann"]).json()["status"] == "playing"  # the next hand is dealt in the same append
    assert a.proc is not None
    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait(10)
    assert stored_version(pg_url, table) == acked  # every acknowledged command is stored
    assert play_alternating([cb], created, rng) > 0  # node b plays the table to its end
    final = cb.view(table, tokens["ann"]).json()
    assert final["status"] == "ended"
    watch.wait_for(lambda s: s.ended or (s.events() and s.events()[-1]["data"]["seq"] == final["version"]))
    seqs = [m["data"]["seq"] for m in watch.events()]
    assert seqs == list(range(watch.messages[0]["data"]["version"] + 1, final["version"] + 1))
    watch.close()
    p = run_cli("--db", pg_url, "audit", table)
    assert p.returncode == 0, p.stdout + p.stderr


def test_every_node_hands_out_receipts_that_the_shared_store_holds(pg_url, start_server, tmp_path):
    shared = {"TONK_KEY_FILE": str(tmp_path / "nodes.key")}
    a = start_server(db=pg_url, env=shared)
    b = start_server(db=pg_url, env=shared)
    clients = [Client(a.url), Client(b.url)]
    # in play once seated (the deck can end both hands before a person acts: no command to alternate)
    created = create_in_play(clients[0], seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=2)
    table, tokens = created["table"], created["tokens"]
    assert play_alternating(clients, created, random.Random(7)) > 0
    got = {(node, seat): c.receipts(table, tok) for node, c in enumerate(clients) for seat, tok in tokens.items()}
    assert all(r.status_code == 200 for r in got.values()), [r.text for r in got.values()]
    seqs = {key: [x["seq"] for x in r.json()["receipts"]] for key, r in got.items()}
    assert len(set(map(tuple, seqs.values()))) == 1 and len(seqs[(0, "ann")]) == 2  # one per hand, the same from either node
    folder = tmp_path / "receipts"
    folder.mkdir()
    for (node, seat), r in got.items():
        for x in r.json()["receipts"]:
            (folder / f"{node}-{seat}-{x['seq']}.receipt").write_text(x["receipt"])
    keys = {line for r in got.values() for x in r.json()["receipts"] for line in x["receipt"].splitlines() if line.startswith("key ")}
    assert len(keys) == 1  # both nodes sign with the one key file they were given
    p = run_cli("--db", pg_url, "verify", "--receipt", str(folder), "--key", keys.pop()[4:])
    assert p.returncode == 0, p.stdout + p.stderr
    assert "ok: 8 receipts" in p.stdout
