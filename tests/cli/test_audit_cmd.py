"""``tonk audit``: verdicts, findings naming the event, exit codes, JSON, re-adjudication."""

from __future__ import annotations

import json
import shutil
import sqlite3
from hashlib import sha256
from pathlib import Path

import msgspec

from tonk.variants import load_ruleset
from tonk.core.events import CardDiscarded, HandEnded, encode
from tonk.storage.payload_zip import as_text

GENESIS = "0" * 64
FINDING_KEYS = {"game_id", "check", "seq", "hand_no", "rule", "message", "expected", "recorded"}


def tamper(path: Path, game_id: str, seq: int, change, *, rechain: bool = False) -> None:
    """Rewrite event ``seq`` of a game behind the store's back (a forger with the file).
    With ``rechain`` the forger also recomputes every hash from there on."""
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER IF EXISTS events_no_update")
    (payload,) = conn.execute("SELECT payload FROM events WHERE game_id=? AND seq=?", (game_id, seq)).fetchone()
    data = change(json.loads(as_text(payload)))  # a large payload is stored compressed
    new = msgspec.json.encode(data, order="deterministic").decode()
    conn.execute("UPDATE events SET payload=? WHERE game_id=? AND seq=?", (new, game_id, seq))
    if rechain:
        rows = conn.execute("SELECT seq, payload, recorded_at, command_id FROM events WHERE game_id=? ORDER BY seq", (game_id,)).fetchall()
        prev = GENESIS
        for s, stored, at, cmd in rows:  # chain version 2 (docs/event-format.md)
            p = as_text(stored)
            meta = json.dumps([at, cmd], ensure_ascii=False, separators=(",", ":"))
            h = sha256(prev.encode("ascii") + p.encode("utf-8") + b"\n" + meta.encode("utf-8")).hexdigest()
            conn.execute("UPDATE events SET hash=?, prev_hash=? WHERE game_id=? AND seq=?", (h, prev, game_id, s))
            prev = h
    conn.commit()
    conn.close()


def first_discard(game) -> tuple[int, CardDiscarded]:
    return next((i, e) for i, e in enumerate(game.events, start=1) if isinstance(e, CardDiscarded))


def test_a_clean_game_audits_clean(tonk, db, record_game):
    game = record_game(db, seed=6, hands=2)
    result = tonk("audit", game.game_id[:8])
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "chain ok \u00b7 conservation ok \u00b7 rules ok" in result.stdout
    assert "verdict: clean" in result.stdout
    data = json.loads(tonk("audit", game.game_id, "--json").stdout)
    assert set(data) == {"games", "summary"}
    (g,) = data["games"]
    assert set(g) == {"game_id", "verdict", "events", "hands", "checks", "findings", "error", "deal"}
    assert g["verdict"] == "clean" and g["findings"] == [] and g["hands"] == 2
    assert g["checks"] == {"chain": "ok", "conservation": "ok", "rules": "ok", "deal": "not run"}
    # a seeded game's decks are committed but follow from its seed: said plainly
    assert g["deal"]["guarantees"] == "committed, not secret" and g["deal"]["schemes"] == ["sha256"]
    assert "deals: committed, not secret" in result.stdout
    assert data["summary"] == {"games": 1, "clean": 1, "with_findings": 0, "errors": 0}


def test_a_tampered_copy_fails_audit_naming_the_event(tonk, db, record_game, runner, tmp_path):
    from tonk.cli.app import app

    game = record_game(db, seed=7, hands=1)
    seq, ev = first_discard(game)
    other = game.state.dealt.stock[-1]  # a card nobody held at that point
    copy = tmp_path / "copy.db"
    shutil.copy(db, copy)
    tamper(copy, game.game_id, seq, lambda d: {**d, "card": other})
    result = runner.invoke(app, ["--db", str(copy), "audit", game.game_id])
    assert result.exit_code == 1, result.stdout + result.stderr
    assert f"event {seq}, rule chain (chain)" in result.stdout
    assert f"hand 1, event {seq}, rule A7.4 (rules): illegal card_discarded" in result.stdout
    assert f"hand 1, event {seq}, rule A1.1 (conservation)" in result.stdout
    assert "verdict: " in result.stdout and "finding(s)" in result.stdout
    data = json.loads(runner.invoke(app, ["--db", str(copy), "audit", game.game_id, "--json"]).stdout)
    (g,) = data["games"]
    assert g["verdict"] == "findings" and g["checks"]["chain"] == "failed"
    for f in g["findings"]:
        assert set(f) == FINDING_KEYS and f["game_id"] == game.game_id and f["seq"] == seq and f["hand_no"] == 1
    # the original is untouched and still clean
    assert tonk("audit", game.game_id).exit_code == 0


def test_a_forged_chain_is_still_caught_by_the_rules(runner, db, record_game, tmp_path):
    from tonk.cli.app import app

    game = record_game(db, seed=8, hands=1)
    seq, end = next((i, e) for i, e in enumerate(game.events, 1) if isinstance(e, HandEnded))

    def richer(d):
        d = dict(d)
        d["ledger"] = [dict(p, amount=p["amount"] + 1) for p in d["ledger"]] or [{"from": "ann", "to": "bob", "amount": 3, "reason": "knock_win"}]
        return d

    tamper(db, game.game_id, seq, richer, rechain=True)
    result = runner.invoke(app, ["--db", str(db), "audit", game.game_id, "--json"])
    assert result.exit_code == 1
    (g,) = json.loads(result.stdout)["games"]
    assert g["checks"]["chain"] == "ok" and g["checks"]["rules"] == "failed"
    (f,) = [f for f in g["findings"] if f["check"] == "rules"]
    assert f["seq"] == seq and f["rule"] == "A12" and f["hand_no"] == 1
    assert f["expected"]["ledger"] == json.loads(encode(end))["ledger"]
    assert f["recorded"]["ledger"] != f["expected"]["ledger"]
    people = runner.invoke(app, ["--db", str(db), "audit", game.game_id])
    assert f"hand 1, event {seq}, rule A12 (rules)" in people.stdout
    assert "ledger:\n" in people.stdout and "  expected [" in people.stdout


def test_a_card_conjured_into_a_hand_breaks_conservation(runner, db, record_game):
    from tonk.cli.app import app

    game = record_game(db, seed=9, hands=1)
    dealt_seq = next(i for i, e in enumerate(game.events, 1) if type(e).__name__ == "HandDealt")
    dealt = game.events[dealt_seq - 1]
    first = dealt.first_player
    dup = dealt.stock[0]

    def conjure(d):
        d = dict(d)
        hands = dict(d["hands"])
        hands[first] = [dup] + hands[first][1:]
        d["hands"] = hands
        return d

    tamper(db, game.game_id, dealt_seq, conjure, rechain=True)
    (g,) = json.loads(runner.invoke(app, ["--db", str(db), "audit", "--all", "--json"]).stdout)["games"]
    assert g["checks"]["conservation"] == "failed"
    cons = [f for f in g["findings"] if f["check"] == "conservation"]
    assert cons[0]["seq"] == dealt_seq and cons[0]["rule"] == "A1.1" and dup in cons[0]["message"]


def test_audit_all_summarises_and_exit_codes(tonk, db, record_game):
    for s in (1, 2, 3):
        record_game(db, seed=s, hands=1)
    result = tonk("audit", "--all")
    assert result.exit_code == 0
    assert "3 games: 3 clean, 0 with findings, 0 could not be audited" in result.stdout
    assert all(len(line) <= 80 for line in result.stdout.splitlines())


def test_audit_bad_input_is_one_error_line(tonk, db, record_game, clean_failure):
    clean_failure(tonk("audit", "--all"), 2, "no tonk database")
    game = record_game(db, seed=1, hands=1)
    clean_failure(tonk("audit"), 2, "name the games to audit, or give --all")
    clean_failure(tonk("audit", "--all", game.game_id), 2, "not both")
    clean_failure(tonk("audit", "feedface"), 2, "no game 'feedface'")
    clean_failure(tonk("audit", game.game_id, "--variant", "no-such-rule"), 2, "unknown variant 'no-such-rule'")
    clean_failure(tonk("audit", game.game_id, "--option", "stake"), 2, "NAME=VALUE")
    clean_failure(tonk("audit", game.game_id, "--option", "nope=1"), 2, "unknown option 'nope'")


def test_a_game_recorded_with_a_missing_variant_cannot_be_audited(tonk, db, record_game):
    import tonk.variants.classic as classic
    from tonk.core import Game
    from tonk.storage import EventStore
    from tonk.variants import VariantInfo
    from tonk.variants.registry import Registry, default_registry

    import types

    gone = types.ModuleType("vanished")
    gone.VARIANT = VariantInfo("vanished-rule", "a house rule that is no longer installed")
    reg = Registry()
    reg.add(classic, "tonk", default_registry().get("classic").version, "builtin")
    reg.add(gone, "tonk-extras", "9.9", "entry-point")
    game = Game.new(["ann", "bob"], ruleset=load_ruleset(["vanished-rule"], registry=reg), seed=1)
    game.deal()
    with EventStore.open(db) as store:
        store.append(game.game_id, game.events, 0)
    record_game(db, seed=2, hands=1)
    result = tonk("audit", "--all")
    assert result.exit_code == 2
    assert "the game was recorded with variant 'vanished-rule' (recorded from tonk-extras 9.9), which is not installed" in result.stderr
    assert "Traceback" not in result.stderr
    assert "verdict: clean" in result.stdout  # the other game is still audited
    data = json.loads(tonk("audit", game.game_id, "--json").stdout)
    assert data["games"][0]["verdict"] == "error" and "vanished-rule" in data["games"][0]["error"]


def test_reconsider_mode_shows_each_hand_and_the_payout_difference(tonk, db, record_game):
    game = record_game(db, seed=12, hands=2)
    result = tonk("audit", game.game_id, "--option", "caught_scheme=double_flat", "--option", "max_turns_per_hand=2")
    assert result.exit_code == 0, result.stderr
    assert "  recorded under:     classic\n" in result.stdout
    assert "  reconsidered under: classic (caught_scheme=double_flat, max_turns_per_hand=2)\n" in result.stdout
    assert "hand 1 (dealer" in result.stdout and "hand 2 (dealer" in result.stdout
    assert "net recorded:" in result.stdout and "net under these rules:" in result.stdout
    data = json.loads(tonk("audit", game.game_id, "--json", "--variant", "classic", "--option", "max_turns_per_hand=2").stdout)
    (r,) = data["games"]
    assert r["game_id"] == game.game_id and r["rules"]["options"]["max_turns_per_hand"] == 2
    assert [h["hand_no"] for h in r["hands"]] == [1, 2]
    assert {h["status"] for h in r["hands"]} <= {"same", "different", "ended_early", "stopped", "unfinished", "not_comparable"}
    assert any(h["status"] == "ended_early" and h["reconsidered"]["end"] == "turn_cap" for h in r["hands"])


def test_reconsidering_only_an_option_keeps_the_recorded_house_rules(tonk, db, record_game):
    """`tonk audit GAME -o base_stake=2` (the README's "the same actions at another stake")
    asks the game's own rules at another stake; `-v classic` asks the base game instead."""
    game = record_game(db, seed=5, hands=2, variants=("knock-limit",))
    result = tonk("audit", game.game_id, "-o", "base_stake=2")
    assert result.exit_code == 0, result.stderr
    assert "  recorded under:     knock-limit\n" in result.stdout
    assert "  reconsidered under: knock-limit (base_stake=2)\n" in result.stdout, result.stdout
    (r,) = json.loads(tonk("audit", game.game_id, "-o", "base_stake=2", "--json").stdout)["games"]
    assert r["rules"]["variants"] == ["knock-limit"] and r["rules"]["options"]["max_knock_count"] == 10
    (r,) = json.loads(tonk("audit", game.game_id, "-v", "classic", "-o", "base_stake=2", "--json").stdout)["games"]
    assert r["rules"]["variants"] == []
