"""Commitments to a deal's deck order, and the fair shuffle of served tables.

Two schemes, named in the ``hand_dealt`` event (``commitment_scheme``):

* ``sha256`` (the default; every deal recorded before served tables): the
  sha256 of the deck order, cards joined by single spaces, top first.  Right
  for reproducible simulation, wrong for live play: late in a hand only a few
  cards are unknown, so the unsalted hash can be brute-forced.
* ``sha256-salted``: ``sha256(salt || 0x0a || deck text)``, the salt 32 random
  bytes as 64 hex characters, drawn from the OS CSPRNG and revealed with the
  deck when the hand ends (until then no seat's view carries it).

Served tables also shuffle with :func:`secure_shuffle` (``secrets``), never a
seeded Mersenne Twister, whose output can be predicted.

A salted hand also hides what its events' hashes would otherwise give away.  A stock
draw hidden from the other seats names one of at most 54 cards, and its chain hash
(``storage.chain``) is sent to every seat: without more, trying each card would find
it.  So each stock draw of a salted hand carries a **blind** (:func:`draw_blind`):
``HMAC-SHA256(key = the salt's 64 ASCII hex characters, message =
"tonk-draw-blind-v1\n" + hand number + "\n" + k)`` in lowercase hex, ``k`` the number
of cards drawn from the stock earlier in the hand (0 for the first draw), numbers in
decimal.  No seat sees a blind while the hand is in play (``core.views``); when the
hand ends the salt is revealed with the deck, and anyone can recompute every blind,
rebuild every draw from the stock order and check each hash.  Unsalted deals
(simulation, reproducible games) carry no blind, so their events keep their bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Sequence

PLAIN = "sha256"
SALTED = "sha256-salted"
SCHEMES = (PLAIN, SALTED)
SALT_HEX_LENGTH = 64


def plain_commitment(deck: Sequence[str]) -> str:
    """The unsalted scheme: sha256 of the deck order (cards joined by spaces, top first)."""
    return hashlib.sha256(" ".join(deck).encode()).hexdigest()


def salted_commitment(deck: Sequence[str], salt: str) -> str:
    """The salted scheme: sha256 of the salt's text, a newline, then the deck order's text."""
    return hashlib.sha256(salt.encode("ascii") + b"\n" + " ".join(deck).encode()).hexdigest()


def commit(deck: Sequence[str], salt: str | None = None) -> tuple[str, str]:
    """``(scheme, commitment)`` for a deck: salted when a salt is given."""
    if salt is None:
        return PLAIN, plain_commitment(deck)
    return SALTED, salted_commitment(deck, salt)


def new_salt() -> str:
    """A fresh secret salt: 32 bytes from the OS CSPRNG, in hex."""
    return secrets.token_hex(SALT_HEX_LENGTH // 2)


def is_salt(text: object) -> bool:
    """Whether ``text`` is a salt of the salted scheme (64 lowercase hex characters)."""
    return isinstance(text, str) and len(text) == SALT_HEX_LENGTH and all(c in "0123456789abcdef" for c in text)


BLIND_CONTEXT = b"tonk-draw-blind-v1\n"


def draw_blind(salt: str, hand_no: int, index: int) -> str:
    """The blind of the ``index``-th stock draw (0 first) of hand ``hand_no`` dealt with
    ``salt``: what keeps the draw's hash from naming its card until the salt is revealed."""
    message = BLIND_CONTEXT + f"{hand_no}\n{index}".encode("ascii")
    return hmac.new(salt.encode("ascii"), message, hashlib.sha256).hexdigest()


def secure_shuffle(deck: Sequence[str]) -> list[str]:
    """A shuffle of ``deck`` from the OS CSPRNG (unpredictable, not reproducible)."""
    cards = list(deck)
    secrets.SystemRandom().shuffle(cards)
    return cards


def expected_commitment(scheme: str, deck: Sequence[str], salt: str | None) -> str | None:
    """What a deal's commitment must be under its recorded scheme (``None``: scheme unknown
    or a salted deal without a valid salt)."""
    if scheme == PLAIN:
        return plain_commitment(deck)
    if scheme == SALTED and is_salt(salt):
        return salted_commitment(deck, salt)  # type: ignore[arg-type]
    return None
