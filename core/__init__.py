"""The Tonk rules engine: cards, commands, events, state, decide/evolve, legal actions,
settlement, hand records and adjudication.

The names most users need are importable from here::

    from tonk.core import Game, Ruleset, IllegalAction

They are loaded on first use (a module ``__getattr__``): importing
``tonk.core`` or one of its light modules (``tonk.core.errors``,
``tonk.core.cards``) does not load the whole engine, which keeps
``tonk --help`` quick.  No exported name is also the name of a submodule
(``decide`` lives in :mod:`tonk.core.turn`), so importing a submodule never
rebinds an exported name.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

#: exported name -> the submodule that defines it
_EXPORTS = {
    "Card": "cards",
    "parse_card": "cards",
    "parse_cards": "cards",
    "DealHand": "commands",
    "Discard": "commands",
    "DrawDiscard": "commands",
    "DrawStock": "commands",
    "Hit": "commands",
    "Knock": "commands",
    "LaySpread": "commands",
    "decide": "turn",
    "HandRecordError": "errors",
    "IllegalAction": "errors",
    "RulesetError": "errors",
    "SetupError": "errors",
    "TonkError": "errors",
    "UnknownVariant": "errors",
    "Event": "events",
    "decode": "events",
    "encode": "events",
    "Game": "game",
    "parse_command": "game",
    "legal_actions": "legal",
    "Ruleset": "ruleset",
    "State": "state",
    "evolve": "state",
    "fold": "state",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # for type checkers and editors: the same names, eagerly
    from .cards import Card, parse_card, parse_cards
    from .commands import DealHand, Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
    from .errors import HandRecordError, IllegalAction, RulesetError, SetupError, TonkError, UnknownVariant
    from .events import Event, decode, encode
    from .game import Game, parse_command
    from .legal import legal_actions
    from .ruleset import Ruleset
    from .state import State, evolve, fold
    from .turn import decide
