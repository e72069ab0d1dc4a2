"""Names and ids that enter from outside (hand records, ``tonk play`` options, imports): one rule.

A name (a player, a case id, a spread id) is text of 1 to :data:`MAX_NAME_LENGTH`
characters, every one printable (no control characters, no line or paragraph
separators, no invisible format characters such as bidi overrides; a plain
space is fine inside), with no leading or trailing whitespace.  A game id is
what the engine makes: a UUID in its canonical lower-case text
(``8-4-4-4-12`` hex digits).

:func:`check_name` and :func:`check_game_id` raise :class:`BadName`, whose
message says what is wrong and shows the text with its control characters
visible (``'ann\\x1b[31m'``).
"""

from __future__ import annotations

import re
from typing import Any

from .errors import TonkError
from .safe_json import json_shown

MAX_NAME_LENGTH = 40

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class BadName(TonkError):
    """A name or id that breaks the rule of :mod:`tonk.core.names`."""


def shown(text: str, limit: int = 60) -> str:
    """``text`` quoted with every control or invisible character escaped (``'a\\x1b[1m'``)."""
    r = repr(text[:limit])
    return r[:-1] + "...'" if len(text) > limit else r


#: how much of a value an error quotes: any real id, name or option, but not a pasted file
QUOTE_LIMIT = 500


def quoted(text: str) -> str:
    """A value the user gave, as an error quotes it: :func:`shown`, cut after
    :data:`QUOTE_LIMIT` characters (an unknown id of 100,000 characters is not echoed whole)."""
    return shown(text, QUOTE_LIMIT)


def name_problem(text: Any) -> str | None:
    """What is wrong with ``text`` as a name, or ``None``."""
    if not isinstance(text, str):
        return f"must be text, not {json_shown(text)}"
    if not text:
        return "is empty"
    if len(text) > MAX_NAME_LENGTH:
        return f"is {len(text)} characters long (at most {MAX_NAME_LENGTH})"
    if text != text.strip():
        return "starts or ends with whitespace"
    if not text.isprintable():
        bad = next(c for c in text if not c.isprintable())
        return f"contains the non-printable character U+{ord(bad):04X}"
    return None


def check_name(text: Any, what: str) -> str:
    """``text`` if it is a valid name, else :class:`BadName` naming ``what`` (``player name``)."""
    problem = name_problem(text)
    if problem is not None:
        value = shown(text) if isinstance(text, str) else ""
        raise BadName(f"{what} {value + ' ' if value else ''}{problem}; a name is 1 to {MAX_NAME_LENGTH} printable characters without leading or trailing spaces".replace("  ", " "))
    return text


def check_game_id(text: Any, what: str = "game id") -> str:
    """``text`` if it is a game id as the engine makes them (a UUID), else :class:`BadName`."""
    if not isinstance(text, str) or not _UUID.fullmatch(text):
        value = shown(text) if isinstance(text, str) else json_shown(text)
        raise BadName(f"{what} {value} is not a game id (a UUID such as 0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b)")
    return text
