"""The fair deal ``tonk-deal-v1``: a deck that neither the operator nor any player chose.

Normative text: ``docs/fair-deal.md`` (from the project's shared page).  In short, for a
server seed (32 bytes, committed by its sha256 before any seat sits), every seat's client
seed (lowercase hex; a bot's is empty) and the nonce (the hand number):

1. ``message = "tonk-deal-v1\\n" + str(nonce) + "\\n" + "\\n".join(seat + "=" + client_seed
   for each seat in seating order)``, UTF-8;
2. ``key = HMAC-SHA256(server_seed, message)``;
3. a byte stream ``SHA-256(key || counter)``, ``counter`` = 0, 1, 2, ... as 4-byte big-endian;
4. Fisher–Yates from the end with rejection sampling on 4-byte big-endian words;
5. the result, position 0 first, is the deck top card first.

The starting deck is ``S H D C`` × ``A 2 ... 10 J Q K`` then ``X1 X2``, keeping only the
cards of the ruleset's deck (its deck-building hook: jokers added, ranks removed).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from typing import Iterable, Iterator, Mapping, Sequence

from .cards import STANDARD_DECK
from .errors import SetupError

SCHEME = "tonk-deal-v1"
SERVER_SEED_BYTES = 32
CLIENT_SEED_MIN_BYTES = 16
CLIENT_SEED_MAX_BYTES = 64
#: every card a deck of this scheme may hold, in the scheme's starting order
CANONICAL_ORDER: tuple[str, ...] = STANDARD_DECK + ("X1", "X2")
_HEX = "0123456789abcdef"
_WORD = 2**32
#: a SHA-256 block read as eight 4-byte big-endian words
_BLOCK_WORDS = struct.Struct(">8I")


def new_server_seed() -> str:
    """A fresh server seed: 32 bytes from the OS CSPRNG, as 64 lowercase hex characters."""
    return secrets.token_hex(SERVER_SEED_BYTES)


def new_client_seed() -> str:
    """A client seed drawn locally (``tonk play``): 32 bytes from the OS CSPRNG, in hex."""
    return secrets.token_hex(32)


def seed_hash(server_seed_hex: str) -> str:
    """``server_seed_hash``: the sha256 of the server seed's 32 bytes, lowercase hex."""
    return hashlib.sha256(bytes.fromhex(server_seed_hex)).hexdigest()


def is_lower_hex(text: object) -> bool:
    return isinstance(text, str) and len(text) % 2 == 0 and not text.strip(_HEX)  # nothing but those characters


def is_server_seed(text: object) -> bool:
    """Whether ``text`` is a server seed (64 lowercase hex characters)."""
    return is_lower_hex(text) and len(text) == 2 * SERVER_SEED_BYTES  # type: ignore[arg-type]


def client_seed_problem(seed: object) -> str | None:
    """What is wrong with a client seed a seat sends (``None``: nothing)."""
    if not isinstance(seed, str):
        return "client_seed must be a string of lowercase hex"
    if not is_lower_hex(seed):
        return "client_seed must be lowercase hex (0-9, a-f), an even number of characters"
    n = len(seed) // 2
    if not CLIENT_SEED_MIN_BYTES <= n <= CLIENT_SEED_MAX_BYTES:
        return f"client_seed must be {CLIENT_SEED_MIN_BYTES} to {CLIENT_SEED_MAX_BYTES} bytes ({2 * CLIENT_SEED_MIN_BYTES} to {2 * CLIENT_SEED_MAX_BYTES} hex characters), not {n} bytes"
    return None


def starting_deck(cards: Iterable[str]) -> tuple[str, ...]:
    """The scheme's starting order of a ruleset's deck (:data:`CANONICAL_ORDER`, keeping
    only the cards the deck holds).  A deck with any other card cannot use this scheme."""
    have = set(cards)
    unknown = have - set(CANONICAL_ORDER)
    if unknown:
        raise SetupError(f"{SCHEME} deals only the standard cards and jokers X1 X2; this deck holds {' '.join(sorted(unknown))}")
    return tuple(c for c in CANONICAL_ORDER if c in have)


def message(nonce: int, players: Sequence[str], client_seeds: Mapping[str, str]) -> bytes:
    """Step 1: the message, every seat in seating order (a seat without a seed: empty)."""
    lines = "\n".join(f"{seat}={client_seeds.get(seat, '')}" for seat in players)
    return f"{SCHEME}\n{nonce}\n{lines}".encode("utf-8")


def deal_key(server_seed_hex: str, nonce: int, players: Sequence[str], client_seeds: Mapping[str, str]) -> bytes:
    """Step 2: ``HMAC-SHA256(server_seed, message)``."""
    return hmac.new(bytes.fromhex(server_seed_hex), message(nonce, players, client_seeds), hashlib.sha256).digest()


def words(key: bytes) -> Iterator[int]:
    """Step 3: the stream ``SHA-256(key || counter)`` read as 4-byte big-endian words."""
    counter = 0
    while True:
        yield from _BLOCK_WORDS.unpack(hashlib.sha256(key + counter.to_bytes(4, "big")).digest())
        counter += 1


def shuffle(cards: Sequence[str], key: bytes) -> tuple[str, ...]:
    """Step 4: Fisher–Yates from the end over the key's stream (:func:`shuffle_words`)."""
    return shuffle_words(cards, words(key))


def shuffle_words(cards: Sequence[str], stream: Iterator[int]) -> tuple[str, ...]:
    """Fisher–Yates from the end, each index drawn without bias: a word at or above the
    largest multiple of ``i + 1`` below 2^32 is discarded and the next one read."""
    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        bound = i + 1
        limit = _WORD - (_WORD % bound)
        x = next(stream)
        while x >= limit:
            x = next(stream)
        j = x % bound
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def fair_deck(server_seed_hex: str, nonce: int, players: Sequence[str], client_seeds: Mapping[str, str], cards: Iterable[str]) -> tuple[str, ...]:
    """The deck of hand ``nonce``, top card first (steps 1 to 5)."""
    if not is_server_seed(server_seed_hex):
        raise SetupError("a server seed is 64 lowercase hex characters (32 bytes)")
    return shuffle(starting_deck(cards), deal_key(server_seed_hex, nonce, players, client_seeds))
