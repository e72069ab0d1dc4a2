"""Issue 14 over HTTP: at each hand's end every seat can fetch a signed receipt from the
real server, and ``tonk verify --receipt`` checks it against the store."""

from __future__ import annotations

import random
import stat

import pytest

from .conftest import Client, auth, play_until_over, run_cli

pytest.importorskip("cryptography")


def test_each_seat_gets_a_receipt_per_ended_hand_that_tonk_verify_accepts(start_server, tmp_path):
    server = start_server()
    client = Client(server.url)
    created = client.create(seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=2)
    gid, tokens = created["table"], created["tokens"]
    play_until_over(client, created, random.Random(3))

    r = client.receipts(gid, tokens["ann"])
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["seat"] == "ann" and body["table"] == gid
    got = body["receipts"]
    assert len(got) == 2  # one per hand
    for item in got:
        assert f"game {gid}\n" in item["receipt"] and "seat ann\n" in item["receipt"] and f"seq {item['seq']}\n" in item["receipt"]
    key = server.db.with_name(server.db.name + ".key")
    assert key.exists() and stat.S_IMODE(key.stat().st_mode) == 0o600  # created beside the store on first use
    assert key.read_text() not in r.text

    # only the hands after a seq; bob's are his own
    later = client.receipts(gid, tokens["ann"], after=got[0]["seq"]).json()["receipts"]
    assert [x["seq"] for x in later] == [got[1]["seq"]]
    bobs = client.receipts(gid, tokens["bob"]).json()["receipts"]
    assert [x["seq"] for x in bobs] == [x["seq"] for x in got] and all("seat bob\n" in x["receipt"] for x in bobs)

    path = tmp_path / "ann.receipt"
    path.write_text(got[-1]["receipt"])
    ok = run_cli("--db", str(server.db), "verify", "--receipt", str(path))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "held as signed" in ok.stdout

    tampered = tmp_path / "forged.receipt"
    tampered.write_text(got[-1]["receipt"].replace("seat ann", "seat bob", 1))
    bad = run_cli("--db", str(server.db), "verify", "--receipt", str(tampered))
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr


def test_receipts_need_a_seat_token(server, client: Client):
    created = client.create(seats=["ann", "bob"])
    gid = created["table"]
    assert client.http.get(f"/tables/{gid}/receipts").status_code == 401
    r = client.http.get(f"/tables/{gid}/receipts", headers=auth(created["host_token"]))
    assert r.status_code == 403 and "seat" in r.json()["error"]["message"]
    r = client.receipts(gid, created["tokens"]["ann"], after=-1)
    assert r.status_code == 400 and "after" in r.json()["error"]["message"]


def test_without_the_evidence_extra_receipts_are_refused_with_how_to_install_it(start_server, tmp_path):
    shim = tmp_path / "no_evidence" / "cryptography"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ImportError('cryptography is not installed (test shim)')\n")
    server = start_server(env={"PYTHONPATH": str(shim.parent)})
    err = refused_receipts(server)
    assert "pip install 'tonk[evidence]'" in err["message"]
    assert not server.db.with_name(server.db.name + ".key").exists()


def refused_receipts(server) -> dict:
    """ann's receipts of an ended one-hand game, refused with 503 ``unavailable``: the error
    object; the rest of the service unaffected (ann's view is still answered)."""
    client = Client(server.url)
    created = client.create(seats=["ann", "bob"], hand_limit=1)
    play_until_over(client, created, random.Random(5))
    r = client.receipts(created["table"], created["tokens"]["ann"])
    assert r.status_code == 503, r.text
    err = r.json()["error"]
    assert err["code"] == "unavailable"
    assert client.view(created["table"], created["tokens"]["ann"]).status_code == 200
    return err


def test_an_unusable_signing_key_is_a_503_that_names_no_server_path(start_server, tmp_path):
    """The key's trouble is the operator's: the answer says receipts cannot be signed and
    that the server's log says why; the path of the key file (the server's disk) is in
    that log, never sent to a seat."""
    server = start_server()
    key = server.db.with_name(server.db.name + ".key")
    key.mkdir()  # where the key file should be: not a regular file, so it cannot be used
    err = refused_receipts(server)
    assert "signing key" in err["message"] and "log" in err["message"]
    assert str(tmp_path) not in str(err) and key.name not in str(err)
    assert str(key) in server.log() and "not a regular file" in server.log()
