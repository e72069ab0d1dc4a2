"""The Tonk rules engine: cards, commands, events, state, decide/evolve, legal actions,
settlement, hand records and adjudication.

The names most users need are importable from here::

    from tonk.core import Game, Ruleset, IllegalAction
"""

from .cards import Card, parse_card, parse_cards
from .commands import DealHand, Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
from .turn import decide
from .errors import HandRecordError, IllegalAction, RulesetError, SetupError, TonkError, UnknownVariant
from .events import Event, decode, encode
from .game import Game, command_from
from .legal import legal_actions
from .ruleset import Ruleset
from .state import State, evolve, fold

__all__ = [
    "Card",
    "parse_card",
    "parse_cards",
    "DealHand",
    "Discard",
    "DrawDiscard",
    "DrawStock",
    "Hit",
    "Knock",
    "LaySpread",
    "decide",
    "HandRecordError",
    "IllegalAction",
    "RulesetError",
    "SetupError",
    "TonkError",
    "UnknownVariant",
    "Event",
    "decode",
    "encode",
    "Game",
    "command_from",
    "legal_actions",
    "Ruleset",
    "State",
    "evolve",
    "fold",
]
