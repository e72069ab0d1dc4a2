"""Commands: what a player (or the host) asks for.  ``decide`` turns them into events.

Player commands carry the acting player's name; the engine checks it against
whose turn it is (A6.1).  Decoding user input is strict: unknown fields are
rejected.
"""

from __future__ import annotations

from typing import Union, cast, get_args

import msgspec


class _Command(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="action"):
    # every subclass repeats ``frozen=True``: msgspec inherits it anyway, mypy's dataclass
    # transform does not (it would take the subclass for a mutable one)
    pass


class Knock(_Command, frozen=True, tag="knock"):
    """End the hand by exposing one's hand (A7.1)."""

    player: str


class DrawStock(_Command, frozen=True, tag="draw_stock"):
    """Take the top stock card; with an empty stock, ask for it and so end the hand (A11.2)."""

    player: str


class DrawDiscard(_Command, frozen=True, tag="draw_discard"):
    """Take the top card of the discard pile (A7.2)."""

    player: str


class LaySpread(_Command, frozen=True, tag="spread"):
    """Lay a new book or run (A8).  ``jokers_as`` maps each wild card to the card it stands for."""

    player: str
    cards: tuple[str, ...]
    jokers_as: dict[str, str] = {}


class Hit(_Command, frozen=True, tag="hit"):
    """Add one card from hand to a spread on the table (A9)."""

    player: str
    card: str
    target: str
    joker_as: str | None = None


class Discard(_Command, frozen=True, tag="discard"):
    """Discard one card face up; ends the turn (A7.4)."""

    player: str
    card: str


class DealHand(_Command, frozen=True, tag="deal"):
    """Host command: deal the next hand, from an explicit deck order or a shuffle seed;
    with ``salt``, the deal's commitment is salted (``tonk.core.commitment``).

    With ``server_seed`` and ``client_seeds`` (a served table's fair deal, ``tonk.core.fair_deal``)
    the deck is the ``tonk-deal-v1`` deck of the next hand (nonce: its number); ``not_sat``
    names the people's seats dealt in with the empty seed after the sitting deadline."""

    deck: tuple[str, ...] | None = None
    seed: int | None = None
    salt: str | None = None
    server_seed: str | None = None
    client_seeds: dict[str, str] | None = None
    not_sat: tuple[str, ...] = ()


#: the six actions of a turn (A7), the one list of them: knock, draw from the stock or the
#: discard pile, lay a spread, hit, discard
PlayerCommand = Union[Knock, DrawStock, DrawDiscard, LaySpread, Hit, Discard]
Command = Union[PlayerCommand, DealHand]

PLAYER_COMMANDS: tuple[type[PlayerCommand], ...] = get_args(PlayerCommand)
#: each player command by its action name, the tag of its JSON form (``knock``, ``draw_stock``, ...)
COMMAND_OF_ACTION: dict[str, type[PlayerCommand]] = {str(c.__struct_config__.tag): c for c in PLAYER_COMMANDS}
#: the action names, in the order of :data:`PlayerCommand`
ACTIONS: tuple[str, ...] = tuple(COMMAND_OF_ACTION)


def action_fields(action: str) -> frozenset[str]:
    """The fields an action carries besides its player (``spread``: ``cards``, ``jokers_as``)."""
    return frozenset(COMMAND_OF_ACTION[action].__struct_fields__) - {"player"}

_decoder = msgspec.json.Decoder(Command)


def decode_command(data: bytes | str) -> Command:
    """Decode a command from JSON (strict: unknown fields and actions are errors)."""
    return _decoder.decode(data)


def describe_command(command: Command) -> str:
    """Short text of a command, e.g. ``hit 8S on S1``."""
    if isinstance(command, LaySpread):
        return "spread " + " ".join(command.cards)
    if isinstance(command, Hit):
        return f"hit {command.card} on {command.target}"
    if isinstance(command, Discard):
        return f"discard {command.card}"
    if isinstance(command, DealHand):
        return "deal"
    return cast(str, command.__struct_config__.tag)  # knock, draw_stock, draw_discard
