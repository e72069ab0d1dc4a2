"""Signed evidence on every back end: receipts, checkpoints, inclusion proofs and the
evidence log's tables, with the store's signing key kept outside the database."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tonk.storage import evidence as ev
from tonk.storage.keys import store_key_path
from tonk.storage.signed_note import EvidenceError, VerifierKey

pytest.importorskip("cryptography")


@pytest.fixture(autouse=True)
def config_home(tmp_path, monkeypatch) -> Path:
    """Keys made by these tests go under the test's own directory (never the user's)."""
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.delenv("TONK_KEY_FILE", raising=False)
    return home


def finished(games):
    return [g for g in games if any(type(e).__name__ == "HandEnded" for e in g.events)]


def test_a_receipt_holds_until_its_game_is_cut_short(backend, games):
    backend.record(games)
    game = finished(games)[0]
    with backend.open(create=False) as store:
        receipts = ev.hand_end_receipts(store, game.game_id)
        assert {seat for _, seat, _ in receipts} == set(ev.seats_of(store, game.game_id))
        seq, seat, text = receipts[-1]
        key = VerifierKey.parse(ev.public_key(store).text())
        assert ev.verify_receipt(store, text, key).ok
        assert ev.verify_receipt(store, text).ok  # the store's recorded key
        # one seat's receipts alone (what GET /tables/{id}/receipts signs for the asking seat)
        mine = ev.hand_end_receipts(store, game.game_id, only=seat)
        assert [(s, who) for s, who, _ in mine] == [(s, who) for s, who, _ in receipts if who == seat]
        assert all(ev.verify_receipt(store, t, key).ok for _, _, t in mine)
    backend.delete_events(game.game_id, lambda s: s > seq - 3)
    with backend.open(create=False) as store:
        report = ev.verify_receipt(store, text, key)
    assert not report.ok
    [finding] = report.findings
    assert (finding.game_id, finding.seq) == (game.game_id, seq - 2)
    assert "missing" in finding.message and f"receipt: seq {seq}" in finding.message


def test_a_later_checkpoint_extends_an_earlier_one_and_a_deleted_game_is_named(backend, games):
    first, rest = games[:2], games[2:]
    backend.record(first)
    with backend.open(create=False) as store:
        early = ev.make_checkpoint(store)
        assert early.tree_size == sum(len(g.events) for g in first)
        key = ev.public_key(store)
    backend.record(rest)
    with backend.open(create=False) as store:
        late = ev.make_checkpoint(store)
        assert late.tree_size == sum(len(g.events) for g in games)
        report = ev.verify_checkpoint(store, early.note, key)
        assert report.ok and report.facts["store_tree_size"] == late.tree_size and report.facts["consistency_proof"]
        proof = ev.proof_text(ev.make_proof(store, rest[0].game_id))
    # the proof checks with the public key alone, no store
    assert ev.verify_proof(None, proof, key).ok
    backend.delete_events(first[0].game_id, lambda s: True)
    with backend.open(create=False) as store:
        report = ev.verify_checkpoint(store, early.note, key)
        with pytest.raises(ev.Contradicted):
            ev.make_checkpoint(store)  # a store that contradicts its log signs nothing
    assert [(f.game_id, f.seq) for f in report.findings] == [(first[0].game_id, 1)]
    assert "the whole game is missing" in report.findings[0].message


def test_a_cut_evidence_log_fails_the_checkpoint_that_signed_it(backend, games):
    backend.record(games)
    with backend.open(create=False) as store:
        cp = ev.make_checkpoint(store)
    backend.cut_evidence_log(cp.tree_size - 5)
    with backend.open(create=False) as store:
        report = ev.verify_checkpoint(store, cp.note)
    assert not report.ok
    assert f"entries {cp.tree_size - 5} to {cp.tree_size - 1} are gone" in report.findings[0].message


def test_a_refused_first_checkpoint_makes_no_key(sql_backend, games):
    """A store whose chain is broken signs nothing, so it gets no key either: no key file,
    no public key recorded (a refusal changes nothing stored)."""
    backend = sql_backend
    backend.record(games[:1])
    backend.delete_events(games[0].game_id, lambda s: s == 3)
    with backend.open(create=False) as store:
        with pytest.raises(ev.Contradicted):
            ev.make_checkpoint(store)
        path = store_key_path(store)
    assert not path.exists()
    assert backend.raw("SELECT count(*) FROM evidence_keys") == [(0,)]


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE evidence_log SET seq = seq + 1000",
        "DELETE FROM evidence_log",
        "DELETE FROM evidence_keys",
        "UPDATE evidence_checkpoints SET note = 'rewritten'",
    ],
)
def test_the_evidence_tables_refuse_update_and_delete(sql_backend, games, sql):
    backend = sql_backend
    backend.record(games[:1])
    with backend.open(create=False) as store:
        ev.make_checkpoint(store)
    before = [backend.raw(f"SELECT count(*) FROM {t}") for t in ("evidence_log", "evidence_keys", "evidence_checkpoints")]
    with pytest.raises(backend.refusal):
        backend.raw(sql)
    assert [backend.raw(f"SELECT count(*) FROM {t}") for t in ("evidence_log", "evidence_keys", "evidence_checkpoints")] == before


@pytest.mark.postgres
def test_postgres_refuses_truncating_the_evidence_log(postgres_backend, games):
    postgres_backend.record(games[:1])
    with postgres_backend.open(create=False) as store:
        ev.make_checkpoint(store)
    for table in ("evidence_log", "evidence_keys", "evidence_checkpoints"):
        with pytest.raises(postgres_backend.refusal):
            postgres_backend.raw(f"TRUNCATE {table}")


@pytest.mark.postgres
def test_a_postgres_stores_key_is_a_0600_file_in_the_users_config_and_never_in_the_database(postgres_backend, games, config_home):
    postgres_backend.record(games[:1])
    with postgres_backend.open(create=False) as store:
        key = ev.signer(store)
        path = store_key_path(store)
    assert path.parent == config_home / "tonk" / "keys"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    secret = path.read_text().strip()
    assert secret.startswith("PRIVATE+KEY+")
    stored = " ".join(str(v) for t in ("evidence_keys", "evidence_checkpoints", "events") for row in postgres_backend.raw(f"SELECT * FROM {t}") for v in row)
    material = secret.split("+", 4)[4]  # PRIVATE+KEY+<name>+<key id>+<base64>: base64 may hold "+" itself
    assert key.verifier.text() in stored and material and material not in stored and "PRIVATE" not in stored


@pytest.mark.postgres
def test_nodes_given_one_key_file_sign_as_one_log_and_a_node_without_it_is_refused(postgres_backend, games, tmp_path, monkeypatch):
    postgres_backend.record(games[:2])
    monkeypatch.setenv("TONK_KEY_FILE", str(tmp_path / "shared.key"))
    with postgres_backend.open(create=False) as node_a, postgres_backend.open(create=False) as node_b:
        assert ev.signer(node_a).verifier == ev.signer(node_b).verifier
        cp = ev.make_checkpoint(node_a)
        assert ev.verify_checkpoint(node_b, cp.note).ok
    monkeypatch.setenv("TONK_KEY_FILE", str(tmp_path / "elsewhere.key"))
    with postgres_backend.open(create=False) as node_c:
        with pytest.raises(EvidenceError, match="private key is not at .*elsewhere.key"):
            ev.make_checkpoint(node_c)
    assert not (tmp_path / "elsewhere.key").exists()
