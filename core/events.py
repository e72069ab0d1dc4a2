"""Events: what happened, in the past tense.  State is the fold of these.

Events carry facts (the card drawn, the spread laid and its cards in order,
each hand's totals and ledger), so replaying a game never re-runs the rules
or the shuffle.  They are frozen msgspec Structs forming one tagged union with
a stable ``type`` tag each.

Schema evolution (``FORMAT_VERSION``): a new field always gets a default, no
field ever changes type, unknown fields are ignored on decode, and an older
format is upcast on read (``upcast``).  The canonical bytes of an event are
its msgspec JSON with a deterministic key order (``encode``): the event
store hashes exactly these bytes.
"""

from __future__ import annotations

from typing import Any, Sequence, Union, cast

import msgspec

FORMAT_VERSION = 1
ENGINE_VERSION = "0.1.0"


class Payment(msgspec.Struct, frozen=True):
    """One ledger line: ``from_`` pays ``to`` ``amount`` base-stake units for ``reason``."""

    from_: str = msgspec.field(name="from")
    to: str = ""
    amount: int = 0
    reason: str = ""


class PluginPin(msgspec.Struct, frozen=True):
    """Which distribution and version provided a variant when the game was recorded."""

    dist: str
    version: str


class RulesetSpec(msgspec.Struct, frozen=True):
    """A ruleset as pinned in a game: variant names in order, resolved options, plugin versions."""

    variants: tuple[str, ...] = ()
    options: dict[str, Any] = {}
    plugins: dict[str, PluginPin] = {}


class SpreadFacts(msgspec.Struct, frozen=True):
    """A spread as recorded: id, owner, kind (``book``/``run``), cards (runs ascending)."""

    id: str
    owner: str
    kind: str
    cards: tuple[str, ...]
    jokers_as: dict[str, str] = {}


class _Event(msgspec.Struct, frozen=True, tag_field="type"):
    # every subclass repeats ``frozen=True``: msgspec inherits it anyway, mypy's dataclass
    # transform does not (it would take the subclass for a mutable one)
    pass


class GameStarted(_Event, frozen=True, tag="game_started"):
    """A game at one table: seats clockwise, the first dealer, the pinned ruleset."""

    game_id: str
    players: tuple[str, ...]
    dealer: str
    ruleset: RulesetSpec
    cut: tuple[tuple[str, ...], ...] = ()
    engine_version: str = ENGINE_VERSION
    format_version: int = FORMAT_VERSION
    #: the fair deal (``core.fair_deal``): sha256 of the server seed, committed before any seat
    #: sat; set only on a table dealt with ``tonk-deal-v1`` (unset: left out of the bytes)
    server_seed_hash: str | msgspec.UnsetType = msgspec.UNSET


class HandDealt(_Event, frozen=True, tag="hand_dealt"):
    """A hand starts.  ``deck`` is the whole deck order, top first, and
    ``commitment`` its sha256; ``hands``, ``discard`` and ``stock`` (top first)
    are the position that results.  An explicit position (a hand record's
    mid-hand setup) has ``explicit`` true, an empty ``deck`` and may hold
    spreads on the ``table`` already.

    ``commitment_scheme`` and ``salt`` (``tonk.core.commitment``) are set only on
    a salted deal (served tables): unset, they are left out of the canonical
    bytes, and the scheme is the unsalted ``sha256``.

    ``deal_scheme`` (``tonk-deal-v1``, ``core.fair_deal``), ``nonce`` (the hand number) and
    ``client_seeds`` (seat -> lowercase hex; a bot's ``""``) are set only on a fair deal: the
    deck follows from them and the server seed ``game_ended`` reveals.  ``not_sat`` (set only
    then) names the people's seats dealt in with the empty seed because they had not sat
    down by the table's sitting deadline."""

    hand_no: int
    dealer: str
    first_player: str
    deck: tuple[str, ...]
    commitment: str
    hands: dict[str, tuple[str, ...]]
    discard: tuple[str, ...]
    stock: tuple[str, ...]
    table: tuple[SpreadFacts, ...] = ()
    explicit: bool = False
    commitment_scheme: str | msgspec.UnsetType = msgspec.UNSET
    salt: str | msgspec.UnsetType = msgspec.UNSET
    deal_scheme: str | msgspec.UnsetType = msgspec.UNSET
    nonce: int | msgspec.UnsetType = msgspec.UNSET
    client_seeds: dict[str, str] | msgspec.UnsetType = msgspec.UNSET
    not_sat: tuple[str, ...] | msgspec.UnsetType = msgspec.UNSET


class Knocked(_Event, frozen=True, tag="knocked"):
    """``timed_out`` (set only then): the seat's turn timer ran out and the server's greedy
    bot played this turn for it (served tables)."""

    player: str
    timed_out: bool | msgspec.UnsetType = msgspec.UNSET


class CardDrawn(_Event, frozen=True, tag="card_drawn"):
    """``source`` is ``stock`` or ``discard``; ``timed_out`` as for ``knocked``.

    ``blind`` (set only on a stock draw of a salted deal, ``core.commitment.draw_blind``)
    keeps the event's hash from naming the card while the hand is in play; unset, it is
    left out of the canonical bytes."""

    player: str
    source: str
    card: str
    timed_out: bool | msgspec.UnsetType = msgspec.UNSET
    blind: str | msgspec.UnsetType = msgspec.UNSET


class EmptyStockCalled(_Event, frozen=True, tag="empty_stock_called"):
    """The player asked for the empty stock: the hand ends (A11.2); ``timed_out`` as for ``knocked``."""

    player: str
    timed_out: bool | msgspec.UnsetType = msgspec.UNSET


class SpreadLaid(_Event, frozen=True, tag="spread_laid"):
    """``timed_out`` as for ``knocked`` (the timer ran out after the seat had drawn)."""

    player: str
    spread_id: str
    kind: str
    cards: tuple[str, ...]
    jokers_as: dict[str, str] = {}
    timed_out: bool | msgspec.UnsetType = msgspec.UNSET


class CardHit(_Event, frozen=True, tag="card_hit"):
    """``cards`` is the target spread after the hit, in order; ``timed_out`` as for ``spread_laid``."""

    player: str
    spread_id: str
    card: str
    cards: tuple[str, ...]
    jokers_as: dict[str, str] = {}
    timed_out: bool | msgspec.UnsetType = msgspec.UNSET


class CardDiscarded(_Event, frozen=True, tag="card_discarded"):
    """``timed_out`` as for ``spread_laid``."""

    player: str
    card: str
    timed_out: bool | msgspec.UnsetType = msgspec.UNSET


#: the events a seat's own action can begin with: each may carry ``timed_out`` (the server's
#: bot played the rest of the seat's turn when its timer ran out)
TIMED_EVENTS = (Knocked, CardDrawn, EmptyStockCalled, SpreadLaid, CardHit, CardDiscarded)


class HandEnded(_Event, frozen=True, tag="hand_ended"):
    """How the hand ended, every hand total and the ledger.

    ``end`` is one of ``initial_tonk``, ``initial_tonk_draw``, ``tonk_out``,
    ``out_by_discard``, ``knock``, ``stock_exhausted`` and, from the host's
    safeguard (B-31), ``turn_cap`` (no payments)."""

    hand_no: int
    end: str
    hands: dict[str, tuple[str, ...]]
    totals: dict[str, int]
    ledger: tuple[Payment, ...]
    next_dealer: str
    player: str | None = None
    players: tuple[str, ...] = ()
    outcome: str | None = None


class GameEnded(_Event, frozen=True, tag="game_ended", omit_defaults=True):
    """The host closed the game; ``net`` is each player's running total in stake units.

    ``seed`` (decimal text) is the secret seed the engine drew for a game started
    without one (the cut and every deck follow from it), revealed only now that the
    game is over; empty for a seeded game.  Fields at their default are left out of
    the canonical bytes (``net`` is never empty), so a game_ended without a seed
    encodes exactly as in format 1.

    ``server_seed`` (lowercase hex) is the fair deal's server seed (``core.fair_deal``),
    revealed now: with it every deck of the game can be recomputed; empty otherwise."""

    reason: str
    net: dict[str, int] = {}
    seed: str = ""
    server_seed: str = ""


Event = Union[
    GameStarted,
    HandDealt,
    Knocked,
    CardDrawn,
    EmptyStockCalled,
    SpreadLaid,
    CardHit,
    CardDiscarded,
    HandEnded,
    GameEnded,
]

EVENT_TYPES: dict[str, type] = {cls.__struct_config__.tag: cls for cls in Event.__args__}  # type: ignore[attr-defined]

_encoder = msgspec.json.Encoder(order="deterministic")
_decoder = msgspec.json.Decoder(Event)


def encode(event: Event) -> bytes:
    """Canonical bytes of an event (deterministic key order): what the store keeps and hashes."""
    return _encoder.encode(event)


def decode(data: bytes | str) -> Event:
    """Decode one event, upcasting older formats."""
    return _decoder.decode(data)


def game_started(events: Sequence[Event]) -> GameStarted:
    """The ``game_started`` a game's log begins with (:class:`ValueError` if it does not)."""
    first = events[0] if events else None
    if not isinstance(first, GameStarted):
        raise ValueError("a game's log must start with game_started")
    return first


def event_type(event: Event) -> str:
    return cast(str, event.__struct_config__.tag)  # every event class has a text tag


def to_builtins(event: Event) -> dict:
    return msgspec.to_builtins(event)


def upcast(raw: dict[str, Any], format_version: int) -> dict[str, Any]:
    """Bring a raw event of an older format version to the current one.

    Version 1 is the first format, so there is nothing to upcast yet; the
    hook exists so that readers always pass through it.
    """
    if format_version > FORMAT_VERSION:
        raise ValueError(f"event format {format_version} is newer than this engine's ({FORMAT_VERSION})")
    return raw
