"""Errors the engine raises, and the violation codes of illegal actions.

Every error a user can cause derives from :class:`TonkError` and carries a
sentence a person understands; the CLI prints it in one line, without a
traceback.
"""

from __future__ import annotations

from enum import StrEnum


class Violation(StrEnum):
    """The violation codes of illegal actions (cases/README.md); each member is its code as
    text (``Violation.HAND_OVER == "HAND_OVER"``), and ``meaning`` says what it is."""

    HAND_OVER = "HAND_OVER"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    KNOCK_NOT_AT_TURN_START = "KNOCK_NOT_AT_TURN_START"
    ALREADY_DREW = "ALREADY_DREW"
    MUST_DRAW_FIRST = "MUST_DRAW_FIRST"
    DISCARD_PILE_EMPTY = "DISCARD_PILE_EMPTY"
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    INVALID_SPREAD = "INVALID_SPREAD"
    NO_SUCH_SPREAD = "NO_SUCH_SPREAD"
    HIT_DOES_NOT_FIT = "HIT_DOES_NOT_FIT"
    KNOCK_BLOCKED_BY_HIT = "KNOCK_BLOCKED_BY_HIT"
    MUST_LAY_DOWN_SPREAD = "MUST_LAY_DOWN_SPREAD"
    HIT_LIMIT_REACHED = "HIT_LIMIT_REACHED"
    DISCARD_PICK_NOT_USABLE = "DISCARD_PICK_NOT_USABLE"
    DISCARD_PICK_MUST_BE_USED = "DISCARD_PICK_MUST_BE_USED"
    KNOCK_LIMIT = "KNOCK_LIMIT"
    NO_REDISCARD_OF_PICK = "NO_REDISCARD_OF_PICK"
    NO_GAME_HAND = "NO_GAME_HAND"

    @property
    def meaning(self) -> str:
        return _MEANINGS[self]


_MEANINGS: dict[str, str] = {
    Violation.HAND_OVER: "the hand has already ended",
    Violation.NOT_YOUR_TURN: "acting out of turn",
    Violation.KNOCK_NOT_AT_TURN_START: "knock after drawing",
    Violation.ALREADY_DREW: "second draw in a turn",
    Violation.MUST_DRAW_FIRST: "spread, hit or discard before drawing",
    Violation.DISCARD_PILE_EMPTY: "draw from an empty discard pile",
    Violation.CARD_NOT_IN_HAND: "the card named is not in the player's hand",
    Violation.INVALID_SPREAD: "not a book of 3-4 cards of one rank or a run of 3+ consecutive cards of one suit, ace low",
    Violation.NO_SUCH_SPREAD: "the hit's target spread does not exist",
    Violation.HIT_DOES_NOT_FIT: "the card cannot extend the target spread",
    Violation.KNOCK_BLOCKED_BY_HIT: "variant hit-penalty: a player who was hit may not knock yet",
    Violation.MUST_LAY_DOWN_SPREAD: "variant mandatory-laydown: a spread may not be held at the end of a turn",
    Violation.HIT_LIMIT_REACHED: "variant one-hit-per-turn: one hit per turn",
    Violation.DISCARD_PICK_NOT_USABLE: "variant discard-pick-must-meld: the discard top cannot be used at once",
    Violation.DISCARD_PICK_MUST_BE_USED: "variant discard-pick-must-meld: the card taken from the discard pile must be used next",
    Violation.KNOCK_LIMIT: "variant knock-limit: the count is above the knock limit",
    Violation.NO_REDISCARD_OF_PICK: "variant no-rediscard-of-pick: the card taken from the discard pile may not be discarded this turn",
    Violation.NO_GAME_HAND: "no hand is in progress",
}


class TonkError(Exception):
    """Base class of every error a user can cause (bad input, bad rules, illegal play)."""


class IllegalAction(TonkError):
    """A command the rules forbid.  Nothing changed; the same player is still to act.

    ``code`` is a violation code of ``cases/README.md``, ``rule`` the rule id
    of ``rules.md`` (``A7.2``) or ``V:<variant>`` for a house rule, and the
    message a sentence a person understands.
    """

    def __init__(self, code: str, rule: str, message: str):
        super().__init__(message)
        # a code of cases/README.md is a Violation (equal to its text); a third-party
        # variant's own code stays text
        self.code: str = Violation(code) if code in Violation.__members__ else code
        self.rule = rule
        self.message = message

    def __repr__(self) -> str:
        return f"IllegalAction({str(self.code)!r}, {self.rule!r}, {self.message!r})"

    def __str__(self) -> str:
        return f"{self.message} [{self.code}, rule {self.rule}]"


class RulesetError(TonkError):
    """A ruleset that cannot be built: unknown variant, bad option, conflict."""


class VariantFault(RulesetError):
    """A house rule the project did not ship that raised in one of its hooks or answered
    something the hook's spec does not allow (:mod:`tonk.core.plugin_guard`): the message
    names the variant, its file or distribution, the hook and what is wrong."""


class UnknownVariant(RulesetError):
    """A variant name that no installed plugin provides."""

    def __init__(self, name: str, known: list[str] | None = None):
        hint = f"; installed: {', '.join(sorted(known))}" if known else ""
        from .names import quoted  # (names imports this module)

        super().__init__(f"unknown variant {quoted(name)}{hint}")
        self.name = name


class SetupError(TonkError):
    """A game or position that cannot be set up (seats, deck, explicit position)."""


class HandRecordError(TonkError):
    """A malformed hand record; the message names the case and the field."""
