"""Decoding stored payloads, through the format's upcast.

A game's format version is the ``format_version`` of its ``game_started``
event (covered by the hash chain).  Payloads of the current version decode
straight into the event union; an older version is decoded to plain data,
brought up to date by :func:`tonk.core.events.upcast`, then converted.
"""

from __future__ import annotations

from typing import Callable

import msgspec

from ..core.events import FORMAT_VERSION, Event, GameStarted, decode, upcast
from .errors import StoreError

Decoder = Callable[[str | bytes], Event]


def decoder_for(format_version: int) -> Decoder:
    """A function decoding one payload written in ``format_version``."""
    if format_version == FORMAT_VERSION:
        return decode
    if format_version > FORMAT_VERSION or format_version < 1:
        raise StoreError(f"event format version {format_version} is not readable by this engine (format {FORMAT_VERSION})")

    def decode_old(payload: str | bytes) -> Event:
        raw = msgspec.json.decode(payload)
        return msgspec.convert(upcast(raw, format_version), Event)

    return decode_old


def first_event(payload: str | bytes) -> tuple[Event, Decoder]:
    """Decode a game's first event and pick the decoder for the rest of the game."""
    try:
        event = decode(payload)
    except msgspec.ValidationError:
        # an older game_started may not fit today's definition: ask its version first
        raw = msgspec.json.decode(payload)
        version = raw.get("format_version", 1) if isinstance(raw, dict) else FORMAT_VERSION
        if not isinstance(version, int) or version == FORMAT_VERSION:
            raise
        dec = decoder_for(version)
        return dec(payload), dec
    if isinstance(event, GameStarted) and event.format_version != FORMAT_VERSION:
        dec = decoder_for(event.format_version)
        return dec(payload), dec
    return event, decode


def decode_error(game_id: str, seq: int, exc: Exception) -> StoreError:
    return StoreError(f"game {game_id} seq {seq}: the stored payload cannot be decoded ({exc})")


def decode_rows(game_id: str, rows: list[tuple[int, str | bytes]]) -> list[Event]:
    """The events of one game's ``(seq, payload)`` rows, in order; :class:`StoreError`
    naming the first payload that cannot be decoded."""
    try:
        first, dec = first_event(rows[0][1])
    except (msgspec.DecodeError, msgspec.ValidationError, StoreError) as exc:
        raise decode_error(game_id, rows[0][0], exc) from None
    try:
        out = [first]
        out.extend([dec(p) for _, p in rows[1:]])
        return out
    except (msgspec.DecodeError, msgspec.ValidationError):
        for seq, p in rows[1:]:
            try:
                dec(p)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise decode_error(game_id, seq, exc) from None
        raise
