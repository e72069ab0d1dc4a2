"""What a served table is asked and answers: its settings, a seat's view, a command's result,
and the errors a request can meet (each with the HTTP-neutral ``kind`` a front end maps)."""

from __future__ import annotations

from typing import Any

import msgspec

from ..core.errors import TonkError
from ..core.views import PlayerView

HOST = "@host"  # the creator's token: may close the table
SPECTATOR = ""  # a viewer at no seat: sees no hidden card


class TableSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A new table: seat names clockwise, which seats bots play, the ruleset, limits.

    ``options`` are the ruleset's options (``base_stake`` is the stake);
    ``hand_limit`` ends the game after that many hands (none: until closed);
    ``turn_timer`` is seconds a human seat has for a turn before the ``stand_in`` bot plays it
    (none: no timer); ``stand_in`` is that bot's name (none: ``greedy``); ``sit_deadline`` (a
    timed table only) is seconds the people have to sit down (``POST /tables/{id}/sit``) before
    hand 1 is dealt without the seeds not sent."""

    seats: list[str]
    bots: dict[str, str] = {}
    variants: list[str] = []
    options: dict[str, Any] = {}
    dealer: str | None = None
    hand_limit: int | None = None
    turn_timer: float | None = None
    sit_deadline: float | None = None
    stand_in: str | None = None


class HandCommitment(msgspec.Struct, frozen=True):
    """The commitment to the deck order of the hand in play (``core.commitment``): its
    ``hand_dealt`` event's ``commitment`` and scheme.  Never the salt or the deck: those are
    revealed when the hand ends."""

    hand_no: int
    scheme: str
    commitment: str


class CreatedTable(msgspec.Struct, frozen=True):
    """The answer to a table's creation: the only time the tokens are shown; ``commitment``
    is the first hand's (none when the game ended at its deal)."""

    table: str
    version: int
    tokens: dict[str, str]
    host_token: str
    commitment: HandCommitment | None = None
    server_seed_hash: str | None = None  # the fair deal's commitment to its server seed
    status: str = "waiting"


class RematchedTable(msgspec.Struct, frozen=True):
    """The answer to the host's rematch: the new table (same seats and rules) and its host
    token, shown once.  No seat's token: each seat finds its own in its view of the ended
    table (:class:`RematchLink`)."""

    table: str
    version: int
    host_token: str
    rematch_of: str
    commitment: HandCommitment | None = None
    server_seed_hash: str | None = None
    status: str = "waiting"


class RematchLink(msgspec.Struct, frozen=True):
    """In a seat's view of an ended table: the rematch the host started, and the seat's token
    there (derived from the token the request presented; none on a stream opened by its cookie)."""

    table: str
    token: str | None = None


class SeatView(msgspec.Struct, frozen=True):
    """What one seat may see now: the engine's view, the legal actions when it is this seat's
    turn, the event version to send with a command, the last ended hand in full, and the
    commitment of the hand in play (none when no hand is in play)."""

    table: str
    seat: str
    version: int
    status: str  # waiting, playing, closing, ended
    hand_limit: int | None
    turn_timer: float | None
    bots: dict[str, str]
    view: PlayerView
    legal: list[Any]
    last_hand: dict[str, Any] | None = None
    commitment: HandCommitment | None = None
    rematch: RematchLink | None = None
    hand_total: int | None = None  # the seat's hand counted by the ruleset (None when it holds no hand)
    server_seed_hash: str | None = None  # the fair deal's commitment (None: a table from before fair deals)
    sat: list[str] = []  # the people's seats that have sat down
    client_seed: str | None = None  # this seat's own seed, once it has sat
    sit_deadline: float | None = None
    stand_in: str | None = None  # the bot that plays a timed-out turn (None: no turn timer)


class SatDown(msgspec.Struct, frozen=True):
    """The answer to a seat sitting down: its seed (fixed from now on), who has sat, the
    table's status (``playing`` once every person's seat has sat and hand 1 was dealt)."""

    table: str
    seat: str
    client_seed: str
    status: str
    version: int
    sat: list[str]
    server_seed_hash: str
    commitment: HandCommitment | None = None


class CommandResult(msgspec.Struct, frozen=True, omit_defaults=True):
    """A command applied: its events, the bots' turns and the deal that followed it in the same append, as the seat saw them, and the version after them.
    A retried command id gets exactly this answer again.  ``view``: the author seat's view
    right after it, only when the request asks for it (``?view=true``; otherwise left out)."""

    table: str
    command_id: str
    version: int
    events: list[dict[str, Any]]
    view: SeatView | None = None


class TableError(TonkError):
    """A request the table refuses; ``kind`` says which (a front end maps it to a status)."""

    kind = "bad_request"

    def __init__(self, message: str, **extra: Any):
        super().__init__(message)
        self.message = message
        self.extra = extra


class UnknownTable(TableError):
    kind = "not_found"


class BadToken(TableError):
    kind = "unauthorized"


class Forbidden(TableError):
    kind = "forbidden"


class StaleVersion(TableError):
    kind = "conflict"


class CommandIdReused(TableError):
    """A command id already applied to another command (another seat's, or another action):
    a retry must repeat the command it retries."""

    kind = "conflict"


class SeedFixed(TableError):
    """A sit the table refuses as it stands: the seat sat with another seed (a seat's seed
    is fixed once it has sat), or hand 1 was dealt without it."""

    kind = "conflict"


class TableOver(TableError):
    kind = "gone"


class Unavailable(TableError):
    """What the server cannot do as installed or configured (e.g. receipts without the
    ``evidence`` extra or without the store's signing key); the message says why."""

    kind = "unavailable"


class RematchExists(TableError):
    """A table whose rematch the host has started already (one rematch per ended game)."""

    kind = "conflict"


class StillInPlay(TableError):
    """Replay and audit of a game open when it has ended."""

    kind = "conflict"
