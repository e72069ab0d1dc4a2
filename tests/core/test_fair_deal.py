"""The fair deal ``tonk-deal-v1`` (core.fair_deal): the vectors kept in the repo, the unbiased
index draw, the engine's deal from seeds, and that every seed changes the deck."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tonk.core import Game, fair_deal
from tonk.core.commands import DealHand
from tonk.core.commitment import new_salt
from tonk.core.errors import SetupError
from tonk.core.events import HandDealt, decode, encode
from tonk.variants import load_ruleset

VECTORS = json.loads(Path(__file__).with_name("fair_deal_vectors.json").read_text())


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["name"])
def test_the_engine_gives_every_vector(vector: dict) -> None:
    cards = load_ruleset(vector["variants"], vector["options"]).deck
    assert list(fair_deal.starting_deck(cards)) == vector["starting_deck"]
    assert fair_deal.message(vector["nonce"], vector["players"], vector["client_seeds"]).decode() == vector["message"]
    assert fair_deal.deal_key(vector["server_seed"], vector["nonce"], vector["players"], vector["client_seeds"]).hex() == vector["key"]
    assert fair_deal.seed_hash(vector["server_seed"]) == vector["server_seed_hash"]
    deck = fair_deal.fair_deck(vector["server_seed"], vector["nonce"], vector["players"], vector["client_seeds"], cards)
    assert list(deck) == vector["deck"]
    assert sorted(deck) == sorted(vector["starting_deck"])


def test_the_vectors_cover_jokers_a_removed_rank_a_bot_and_both_seed_lengths() -> None:
    vectors = VECTORS["vectors"]
    assert VECTORS["scheme"] == "tonk-deal-v1"
    assert any("X2" in v["deck"] for v in vectors)
    assert any(len(v["deck"]) == 40 for v in vectors)
    assert any("" in v["client_seeds"].values() for v in vectors)
    lengths = {len(s) for v in vectors for s in v["client_seeds"].values() if s}
    assert 32 in lengths and 128 in lengths


def test_the_starting_order_is_suits_then_ranks_then_jokers_whatever_order_the_hook_gave() -> None:
    ruleset = load_ruleset(["jokers-wild"], {"jokers": 2, "joker_value": 0})
    assert fair_deal.starting_deck(reversed(ruleset.deck))[:3] == ("AS", "2S", "3S")
    assert fair_deal.starting_deck(ruleset.deck)[-3:] == ("KC", "X1", "X2")
    with pytest.raises(SetupError, match="ZZ"):
        fair_deal.starting_deck(["AS", "ZZ"])


def test_a_word_that_would_bias_the_index_is_discarded() -> None:
    # three cards: i = 2 draws mod 3; 2^32 mod 3 = 1, so 2^32 - 1 is at the limit: discarded;
    # 4 mod 3 = 1 swaps positions 2 and 1; then i = 1 draws mod 2 (2^32 is even: nothing is
    # discarded), 2^32 - 1 mod 2 = 1 leaves position 1 where it is
    assert fair_deal.shuffle_words(["a", "b", "c"], iter([2**32 - 1, 4, 2**32 - 1])) == ("a", "c", "b")
    # without the discard the first word would give j = (2^32 - 1) mod 3 = 0
    assert fair_deal.shuffle_words(["a", "b", "c"], iter([3, 2**32 - 1])) == ("c", "b", "a")


def test_the_stream_is_sha256_of_the_key_and_a_big_endian_counter() -> None:
    import hashlib

    key = bytes(range(32))
    stream = fair_deal.words(key)
    first = [next(stream) for _ in range(16)]
    block0 = hashlib.sha256(key + b"\x00\x00\x00\x00").digest()
    block1 = hashlib.sha256(key + b"\x00\x00\x00\x01").digest()
    assert first == [int.from_bytes((block0 + block1)[k : k + 4], "big") for k in range(0, 64, 4)]


PLAYERS = ("ann", "bob", "cy")


def _fair_game(server_seed: str, seeds: dict[str, str]) -> Game:
    ruleset = load_ruleset()
    game = Game.new(PLAYERS, ruleset=ruleset, dealer="cy", seed=1, server_seed_hash=fair_deal.seed_hash(server_seed))
    game.play(DealHand(server_seed=server_seed, client_seeds=seeds, salt=new_salt()))
    return game


def test_the_engine_deals_the_scheme_deck_and_records_its_seeds() -> None:
    server_seed = fair_deal.new_server_seed()
    seeds = {"ann": "ab" * 16, "bob": "cd" * 32}
    game = _fair_game(server_seed, seeds)
    dealt = next(e for e in game.events if type(e) is HandDealt)
    assert dealt.deal_scheme == "tonk-deal-v1" and dealt.nonce == 1
    assert dealt.client_seeds == {"ann": "ab" * 16, "bob": "cd" * 32, "cy": ""}
    assert dealt.deck == fair_deal.fair_deck(server_seed, 1, PLAYERS, dealt.client_seeds, load_ruleset().deck)
    assert dealt.not_sat is msgspec.UNSET
    assert decode(encode(dealt)) == dealt


def test_game_ended_reveals_the_server_seed_and_without_one_keeps_its_bytes() -> None:
    from tonk.core.events import GameEnded

    assert encode(GameEnded(reason="r", net={"a": 0})) == b'{"type":"game_ended","reason":"r","net":{"a":0}}'
    revealed = GameEnded(reason="r", net={"a": 0}, server_seed="ab" * 32)
    assert json.loads(encode(revealed))["server_seed"] == "ab" * 32


def test_a_deal_without_fair_fields_keeps_its_bytes() -> None:
    game = Game.new(PLAYERS, ruleset=load_ruleset(), dealer="cy", seed=1)
    game.play(DealHand(seed=3, salt=new_salt()))
    raw = json.loads(encode(game.events[1]))
    assert not {"deal_scheme", "nonce", "client_seeds", "not_sat"} & set(raw)
    assert "server_seed_hash" not in json.loads(encode(game.events[0]))


def test_a_fair_deal_refuses_a_bad_client_seed_or_a_stranger() -> None:
    server_seed = fair_deal.new_server_seed()
    with pytest.raises(SetupError, match="ann: client_seed must be lowercase hex"):
        _fair_game(server_seed, {"ann": "AB" * 16})
    with pytest.raises(SetupError, match="not at the table: zed"):
        _fair_game(server_seed, {"zed": "ab" * 16})


def test_client_seed_rules() -> None:
    assert fair_deal.client_seed_problem("ab" * 16) is None
    assert fair_deal.client_seed_problem("ab" * 64) is None
    assert "16 to 64 bytes" in (fair_deal.client_seed_problem("ab" * 15) or "")
    assert "16 to 64 bytes" in (fair_deal.client_seed_problem("ab" * 65) or "")
    assert "lowercase hex" in (fair_deal.client_seed_problem("g" * 32) or "")
    assert "lowercase hex" in (fair_deal.client_seed_problem("a" * 33) or "")
    assert "string" in (fair_deal.client_seed_problem(12) or "")


hexes = st.binary(min_size=16, max_size=64).map(bytes.hex)
seeds_of = st.fixed_dictionaries({"ann": hexes, "bob": hexes, "cy": st.just("")})


@settings(max_examples=150, deadline=None)
@given(
    server=st.binary(min_size=32, max_size=32),
    seeds=seeds_of,
    nonce=st.integers(1, 10_000),
    which=st.sampled_from(["server", "ann", "bob", "cy", "nonce"]),
    other=st.binary(min_size=16, max_size=64),
    bump=st.integers(1, 10_000),
)
def test_any_change_of_any_seed_changes_the_deck(server: bytes, seeds: dict[str, str], nonce: int, which: str, other: bytes, bump: int) -> None:
    cards = load_ruleset().deck
    before = fair_deal.fair_deck(server.hex(), nonce, PLAYERS, seeds, cards)
    server2, seeds2, nonce2 = server, dict(seeds), nonce
    if which == "server":
        server2 = bytes([server[0] ^ 1]) + server[1:] if other[:32] == server else other[:32].ljust(32, b"\x00")
        if server2 == server:
            server2 = bytes([server[0] ^ 1]) + server[1:]
    elif which == "nonce":
        nonce2 = nonce + bump
    else:
        seeds2[which] = other.hex() if other.hex() != seeds[which] else other.hex() + "00"
    after = fair_deal.fair_deck(server2.hex(), nonce2, PLAYERS, seeds2, cards)
    assert after != before
