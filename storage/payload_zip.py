"""The SQLite store's compression of large payloads (schema 5, :mod:`.sqlite_layout`).

A payload of at least :data:`MIN_SIZE` bytes (in practice each hand's ``hand_dealt``, whose
deck, hands and stock repeat the same cards) is stored as a blob: one byte naming the preset
dictionary (:data:`DICTIONARIES`), then a raw deflate stream (RFC 1951, 2 KB window, no
header) of the payload's canonical bytes, primed with that dictionary (zlib's ``zdict``).
Inflating gives the exact bytes back; the hash chain is computed on them, as on every other
payload.  Smaller payloads, and a payload that would not get smaller, stay text.

A dictionary, once used, never changes: a new one gets the next number and the old one
stays here, so that every stored payload can be read.  Dictionary 1 is the text of a
``game_started``, a ``hand_ended`` and a ``hand_dealt`` with the 52 cards, written out
below (its sha256 is pinned by ``tests/storage/test_store_lean_layout.py``).
"""

from __future__ import annotations

import zlib

#: payloads at least this long (in bytes) are compressed
MIN_SIZE = 512
#: deflate's window: 2**11 bytes (the dictionary fits it; small windows start fast)
_WBITS = -11
#: deflate's effort and memory when packing (what inflating needs does not depend on them): level 1
#: with memLevel 8 packs a ``hand_dealt`` in 12.6 µs to 228 bytes, level 6 with memLevel 2 took
#: 22.8 µs for 210 bytes (400 hands of a simulated store, 2026-12-01)
_LEVEL = 1
_MEM_LEVEL = 8

#: dictionary 1 (never edit: add a new one)
DICTIONARY_1 = (
    b'{"type":"game_started","game_id":"","players":[],"dealer":"","ruleset":{"variants":[],"options":'
    b'{"allow_conflicts":false,"base_stake":1,"cards_per_player":5,"caught_scheme":"pagat","initial_tonk_totals":[49,50],'
    b'"jokers":0,"knock_timing":"start_of_turn","max_turns_per_hand":0,"stock_tie":"split_as_catch"},'
    b'"plugins":{"classic":{"dist":"tonk","version":"0.1.0"}}},"cut":[],"engine_version":"0.1.0","format_version":1}'
    b'{"type":"hand_ended","hand_no":1,"end":"knock","hands":{},"totals":{},"ledger":[{"from":"","to":"","amount":1,'
    b'"reason":"knock_win"}],"next_dealer":"","player":"","players":[],"outcome":"knocker_won"}'
    b'{"type":"hand_dealt","hand_no":1,"dealer":"","first_player":"","deck":['
    b'"AS","2S","3S","4S","5S","6S","7S","8S","9S","10S","JS","QS","KS",'
    b'"AH","2H","3H","4H","5H","6H","7H","8H","9H","10H","JH","QH","KH",'
    b'"AD","2D","3D","4D","5D","6D","7D","8D","9D","10D","JD","QD","KD",'
    b'"AC","2C","3C","4C","5C","6C","7C","8C","9C","10C","JC","QC","KC"],'
    b'"commitment":"","hands":{},"discard":[],"stock":[],"table":[],"explicit":false}'
)
#: every dictionary by the number that starts a compressed payload
DICTIONARIES = {1: DICTIONARY_1}
#: the dictionary new payloads are compressed with
CURRENT = 1


def pack(data: bytes) -> bytes | str:
    """What ``payload`` stores for the canonical bytes ``data``: the compressed blob, or the
    text when ``data`` is small or does not get smaller."""
    if len(data) >= MIN_SIZE:
        z = zlib.compressobj(_LEVEL, zlib.DEFLATED, _WBITS, _MEM_LEVEL, zlib.Z_DEFAULT_STRATEGY, DICTIONARIES[CURRENT])
        packed = bytes((CURRENT,)) + z.compress(data) + z.flush()
        if len(packed) < len(data):
            return packed
    return data.decode("utf-8")


def unpack(value: bytes) -> bytes:
    """The canonical bytes of a stored blob (a blob that is not a whole stream of a known
    dictionary comes back as it is: it fails the chain check like any changed payload)."""
    zdict = DICTIONARIES.get(value[0]) if value else None
    if zdict is None:
        return value
    try:
        z = zlib.decompressobj(_WBITS, zdict)
        data = z.decompress(value[1:])
    except zlib.error:
        return value
    return data if z.eof and not z.unused_data else value


def as_text(value: bytes | str) -> str:
    """A stored payload (or the ``events`` view's) as the payload's text."""
    return unpack(value).decode("utf-8") if isinstance(value, bytes) else value
