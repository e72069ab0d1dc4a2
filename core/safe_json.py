"""Decoding JSON from files a user (or an attacker) hands us, within sane limits.

Python's ``json`` accepts ``NaN`` and ``Infinity``, turns a number of
thousands of digits into an ``int`` (or a ``ValueError`` past 4300 digits)
and recurses once per nesting level (a ``RecursionError`` on deep input);
msgspec recurses too.  Every reader of outside JSON (hand records, JSONL
imports) goes through here instead, and gets a :class:`UnsafeJSON` with a
sentence a person understands:

* nesting deeper than :data:`MAX_DEPTH` levels;
* an integer of more than :data:`MAX_INT_DIGITS` digits, a number out of a
  float's range (``1e999``);
* ``NaN``, ``Infinity``, ``-Infinity`` (not JSON);
* a string (or key) with a lone surrogate, an escape ``\\ud800``-``\\udfff`` that pairs with
  no other: no Unicode text, so nothing could write it out again as UTF-8 (a report, an
  answer, a store).

``decode_at(text, pos)`` decodes one value starting at ``pos`` (so a large
document can be read one element at a time); ``loads(text)`` a whole
document; ``check_depth_bytes(data)`` checks the nesting of raw bytes before
another decoder (msgspec) sees them.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

from .errors import TonkError

MAX_DEPTH = 64
"""Deepest nesting accepted (a hand record nests 5 levels, an event 4)."""

MAX_INT_DIGITS = 30
"""Most digits an integer may have (64-bit values have at most 20)."""


class UnsafeJSON(TonkError):
    """JSON outside the limits (or not JSON); ``pos`` is the character offset where the
    value being decoded starts, when known."""

    def __init__(self, message: str, pos: int | None = None):
        super().__init__(message)
        self.message = message
        self.pos = pos


def _parse_int(text: str) -> int:
    digits = len(text) - (text[0] == "-")
    if digits > MAX_INT_DIGITS:
        raise UnsafeJSON(f"an integer of {digits} digits (at most {MAX_INT_DIGITS} are accepted)")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise UnsafeJSON(f"the number {text[:24]}{'...' if len(text) > 24 else ''} is out of range")
    return value


def _parse_constant(text: str) -> Any:
    raise UnsafeJSON(f"{text} is not a JSON number")


_DECODER = json.JSONDecoder(parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
_SPACE = re.compile(r"[ \t\n\r]*")


def skip_space(text: str, pos: int) -> int:
    """The offset of the first non-blank character at or after ``pos``."""
    blank = _SPACE.match(text, pos)  # always matches, if only the empty string
    return blank.end() if blank else pos


def too_deep(limit: int = MAX_DEPTH) -> str:
    return f"nesting deeper than {limit} levels"


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`UnsafeJSON` if ``value`` (decoded JSON) nests deeper than ``limit``."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > limit:
            raise UnsafeJSON(too_deep(limit))
        if type(v) is dict:
            stack.extend((x, depth + 1) for x in v.values() if type(x) in (dict, list))
        elif type(v) is list:
            stack.extend((x, depth + 1) for x in v if type(x) in (dict, list))


#: an escape of a surrogate code point (the decoder pairs a high and a low one into one
#: character) or such a code point itself: only a text with one can hold a lone surrogate
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}|[\ud800-\udfff]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def check_text(value: Any) -> None:
    """Raise :class:`UnsafeJSON` if a string of ``value`` (decoded JSON; keys too) holds a lone surrogate."""
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) is str:
            lone = _LONE_SURROGATE.search(v)
            if lone:
                shown = v if len(v) <= 24 else v[:24] + "..."
                raise UnsafeJSON(f"the string {shown!r} holds the lone surrogate U+{ord(lone.group()):04X}: it is not Unicode text")
        elif type(v) is dict:
            stack.extend(v)
            stack.extend(v.values())
        elif type(v) is list:
            stack.extend(v)


def json_shown(value: Any, limit: int = 40) -> str:
    """A decoded JSON value in an error message, as JSON writes it (``null``, ``true``, ``2.0``,
    ``"2"``; a list or an object by its kind), never as Python does (``None``, ``True``, ``'2'``);
    escaped to ASCII, so no control character of a file reaches a terminal."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= limit else text[:limit] + "..."


def decode_at(text: str, pos: int) -> tuple[Any, int]:
    """Decode the JSON value starting at ``pos``: ``(value, end)``.  Raises
    :class:`json.JSONDecodeError` for text that is not JSON and :class:`UnsafeJSON`
    (with ``pos``) for JSON outside the limits."""
    try:
        value, end = _DECODER.raw_decode(text, pos)
    except RecursionError:
        raise UnsafeJSON(too_deep(), pos) from None
    except UnsafeJSON as exc:
        exc.pos = pos
        raise
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise UnsafeJSON(str(exc), pos) from None
    try:
        check_depth(value)
        if _SURROGATE_ESCAPE.search(text, pos, end):
            check_text(value)
    except UnsafeJSON as exc:
        exc.pos = pos
        raise
    return value, end


def loads(text: str) -> Any:
    """A whole JSON document, within the limits."""
    start = skip_space(text, 0)
    value, end = decode_at(text, start)
    end = skip_space(text, end)
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def line_of(text: str, pos: int) -> int:
    """The 1-based line of offset ``pos``."""
    return text.count("\n", 0, pos) + 1


_BYTES_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def check_depth_bytes(data: bytes, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`UnsafeJSON` if the JSON text ``data`` nests deeper than ``limit``
    (brackets inside strings do not count).  Cheap for ordinary input: a text with at
    most ``limit`` opening brackets cannot nest deeper."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return
    brackets = _BYTES_STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    if brackets and max(accumulate(map(_STEP.__getitem__, brackets))) > limit:
        raise UnsafeJSON(too_deep(limit))
