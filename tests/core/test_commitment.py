"""The salted deal commitment of served tables, and the unsalted one of older logs."""

from __future__ import annotations

import hashlib

import msgspec
import pytest

from tonk.core import Game
from tonk.core.audit import audit_events
from tonk.core.commands import DealHand
from tonk.core.commitment import PLAIN, SALTED, is_salt, new_salt, salted_commitment, secure_shuffle
from tonk.core.errors import SetupError
from tonk.core.events import HandDealt, decode, encode
from tonk.core.views import event_view
from tonk.variants import load_ruleset


def _salted_game(salt: str):
    game = Game.new(["ann", "bob"], seed=3, dealer="bob", ruleset=load_ruleset())
    deck = secure_shuffle(game.ruleset.deck)
    game.play(DealHand(deck=tuple(deck), salt=salt))
    return game


def test_a_salted_deal_records_its_scheme_and_salt_and_commits_to_salt_and_deck():
    salt = new_salt()
    game = _salted_game(salt)
    dealt = next(e for e in game.events if isinstance(e, HandDealt))
    assert dealt.commitment_scheme == SALTED and dealt.salt == salt
    text = salt.encode() + b"\n" + " ".join(dealt.deck).encode()
    assert dealt.commitment == hashlib.sha256(text).hexdigest()
    assert dealt.commitment != hashlib.sha256(" ".join(dealt.deck).encode()).hexdigest()


def test_a_game_with_salted_deals_audits_clean_and_round_trips_its_bytes():
    game = _salted_game(new_salt())
    while game.in_hand:
        game.play(game.legal_actions()[0])
    assert audit_events(game.events, load_ruleset=load_ruleset).clean
    for e in game.events:
        assert encode(decode(encode(e))) == encode(e)


def test_an_unsalted_deal_keeps_its_old_bytes_and_scheme():
    game = Game.new(["ann", "bob"], seed=3, dealer="bob", ruleset=load_ruleset())
    game.deal(seed=5)
    dealt = game.events[1]
    raw = msgspec.json.decode(encode(dealt))
    assert "salt" not in raw and "commitment_scheme" not in raw
    assert audit_events(game.events, load_ruleset=load_ruleset).clean


@pytest.mark.parametrize("field", ["salt", "commitment"])
def test_audit_finds_a_salted_deal_whose_salt_or_commitment_was_changed(field):
    game = _salted_game(new_salt())
    dealt = game.events[1]
    other = new_salt() if field == "salt" else "0" * 64
    forged = msgspec.structs.replace(dealt, **{field: other})
    report = audit_events([game.events[0], forged], load_ruleset=load_ruleset)
    assert not report.clean
    assert report.findings[0].rule == "A4" and report.findings[0].seq == 2
    assert "sha256-salted" in report.findings[0].message


def test_audit_finds_a_deal_claiming_the_salted_scheme_without_a_valid_salt():
    game = Game.new(["ann", "bob"], seed=3, dealer="bob", ruleset=load_ruleset())
    game.deal(seed=5)
    forged = msgspec.structs.replace(game.events[1], commitment_scheme=SALTED, salt="not hex")
    report = audit_events([game.events[0], forged], load_ruleset=load_ruleset)
    assert not report.clean and report.findings[0].rule == "A4"


def test_a_bad_salt_is_refused_at_the_deal():
    game = Game.new(["ann", "bob"], seed=3, dealer="bob", ruleset=load_ruleset())
    with pytest.raises(SetupError, match="salt"):
        game.play(DealHand(deck=tuple(game.ruleset.deck), salt="xyz"))


def test_players_never_see_the_salt_while_the_auditor_does():
    salt = new_salt()
    game = _salted_game(salt)
    dealt = game.events[1]
    for p in ("ann", "bob"):
        seen = event_view(dealt, p)
        assert "salt" not in seen and seen["deck"] == []
        assert salt not in msgspec.json.encode(seen).decode()
    assert event_view(dealt, "*")["salt"] == salt


def test_salts_and_secure_shuffles_differ_each_time():
    assert all(is_salt(new_salt()) for _ in range(5))
    assert len({new_salt() for _ in range(20)}) == 20
    deck = tuple(Game.new(["a", "b"], seed=1, dealer="a", ruleset=load_ruleset()).ruleset.deck)
    assert len({tuple(secure_shuffle(deck)) for _ in range(5)}) == 5
    assert salted_commitment(deck, "0" * 64) != salted_commitment(deck, "1" * 64)
    assert PLAIN == "sha256"
