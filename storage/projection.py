"""The ``games`` table: one row per game, a projection of its events.

It is derived data: a rebuild (:func:`fold_games`) recomputes it from the events
alone, and every append updates it in the same transaction through the same
:class:`GameSummary`, so the incremental and the rebuilt tables are equal.  The
fold and the check against the events (:func:`derive`, :func:`findings`) are here,
for every back end; the stores only read and write the rows (:mod:`.base`).

Columns: ``game_id``, ``started_at`` / ``ended_at`` (when ``game_started`` /
``game_ended`` were recorded), ``players``, ``variants`` (the pinned house
rules, in order), ``options`` (the resolved options), ``hands`` (hands
dealt), ``net`` (each player's running total in stake units, from the
ledgers), ``status`` (``open`` or ``ended``) and ``events`` (the game's
version).  List and dict columns hold JSON text.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Iterator

import msgspec

from ..core.events import Event, GameEnded, GameStarted, HandDealt, HandEnded, decode
from ..core.settlement import add_ledger
from .codec import Decoder, decode_error, first_event

COLUMNS = ("game_id", "started_at", "ended_at", "players", "variants", "options", "hands", "net", "status", "events")
JSON_COLUMNS = ("players", "variants", "options", "net")

_json = msgspec.json.Encoder(order="deterministic")


class GameSummary:
    """What the projection knows of one game, updated event by event."""

    __slots__ = COLUMNS

    def __init__(self, game_id: str):
        self.game_id = game_id
        self.started_at = ""
        self.ended_at: str | None = None
        self.players: list[str] = []
        self.variants: list[str] = []
        self.options: dict[str, Any] = {}
        self.hands = 0
        self.net: dict[str, int] = {}
        self.status = "open"
        self.events = 0

    @classmethod
    def from_row(cls, row: tuple) -> "GameSummary":
        s = cls(row[0])
        s.started_at, s.ended_at = row[1], row[2]
        s.players, s.variants, s.options = (msgspec.json.decode(v) for v in row[3:6])
        s.hands, s.net, s.status, s.events = row[6], msgspec.json.decode(row[7]), row[8], row[9]
        return s

    def apply(self, event: Event, recorded_at: str) -> None:
        self.events += 1
        if type(event) in _CHANGING:
            self._apply(event, recorded_at)

    def apply_many(self, events: list[Event], recorded_at: str) -> None:
        """:meth:`apply` for events recorded at one time (only four types change a row)."""
        self.events += len(events)
        for e in events:
            if type(e) in _CHANGING:
                self._apply(e, recorded_at)

    def _apply(self, event: Event, recorded_at: str) -> None:
        if isinstance(event, HandEnded):
            self.net = dict(add_ledger(defaultdict(int, self.net), event.ledger))
        elif isinstance(event, HandDealt):
            self.hands += 1
        elif isinstance(event, GameStarted):
            self.started_at = recorded_at
            self.players = list(event.players)
            self.variants = list(event.ruleset.variants)
            self.options = dict(event.ruleset.options)
            self.net = {p: 0 for p in event.players}
        elif isinstance(event, GameEnded):
            self.ended_at = recorded_at
            self.status = "ended"

    def row(self) -> tuple:
        return (
            self.game_id,
            self.started_at,
            self.ended_at,
            _json.encode(self.players).decode(),
            _json.encode(self.variants).decode(),
            _json.encode(self.options).decode(),
            self.hands,
            _json.encode(self.net).decode(),
            self.status,
            self.events,
        )


_CHANGING = frozenset((GameStarted, HandDealt, HandEnded, GameEnded))


def row_to_dict(row: tuple) -> dict[str, Any]:
    d = dict(zip(COLUMNS, row))
    for k in JSON_COLUMNS:
        d[k] = msgspec.json.decode(d[k])
    return d


def fold_games(rows: Iterable[tuple[str, int, str | bytes, str]]) -> Iterator[GameSummary]:
    """Every game's row folded from its events alone: ``rows`` are (game_id, seq,
    payload, recorded_at) of every event, by game and seq (a rebuild)."""
    summary: GameSummary | None = None
    dec: Decoder = decode
    for game_id, seq, payload, at in rows:
        try:
            if summary is None or game_id != summary.game_id:
                if summary is not None:
                    yield summary
                summary = GameSummary(game_id)
                event, dec = first_event(payload)
            else:
                event = dec(payload)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise decode_error(game_id, seq, exc) from None
        summary.apply(event, at)
    if summary is not None:
        yield summary


def matches(row: dict[str, Any], player: str | None, variant: str | None) -> bool:
    """Whether a row (:func:`row_to_dict`) has ``player`` seated and ``variant`` pinned (each when given)."""
    return (player is None or player in row["players"]) and (variant is None or variant in row["variants"])


# --- the projection checked against the events ------------------------------------------------

class ProjectionFinding(msgspec.Struct, frozen=True):
    """A ``games`` row that the events do not support: ``column`` differs (``row`` for a
    row missing or without events), ``stored`` is what the table says, ``derived`` what
    the events say."""

    game_id: str
    column: str
    stored: Any
    derived: Any
    message: str


#: the event types that change a row besides the counts (the back ends count hand_dealt)
FOLDED_TYPES = ("game_started", "hand_ended", "game_ended")


def derive(
    counts: Iterable[tuple[str, int, int]], folded: Iterable[tuple[str, int, str, str | bytes, str]]
) -> dict[str, GameSummary | None]:
    """Every game's row computed from its events alone, reading only what a row needs:
    ``counts`` (game_id, events, hands dealt) of every game, and ``folded`` (game_id, seq,
    type, payload, recorded_at) of every game_started, hand_ended and game_ended by game
    and seq; ``None`` for a game whose events cannot give a row (an undecodable payload,
    no game_started first: ``tonk verify``'s chain check names the event)."""
    out: dict[str, GameSummary | None] = {}
    for gid, n, hands in counts:
        summary = GameSummary(gid)
        summary.events, summary.hands = n, hands
        out[gid] = summary
    current = None
    dec: Decoder = decode
    for gid, seq, type_, payload, at in folded:
        found = out.get(gid)
        if found is None:
            continue
        try:
            if gid != current:
                current = gid
                if seq != 1 or type_ != "game_started":
                    raise ValueError("no game_started first")
                event, dec = first_event(payload)
            else:
                event = dec(payload)
        except Exception:  # an undecodable or foreign payload: the events give no row
            out[gid] = None
            continue
        found._apply(event, at)
    return out


def findings(rows: Iterable[tuple[Any, ...]], derived: dict[str, GameSummary | None]) -> list[ProjectionFinding]:
    """Every difference between the ``games`` table's ``rows`` and the rows ``derived``
    from the events (:func:`derive`), game by game."""
    stored = {r[0]: GameSummary.from_row(r) for r in rows}
    out: list[ProjectionFinding] = []
    for gid in sorted(set(stored) | set(derived)):
        row, truth = stored.get(gid), derived.get(gid)
        if gid not in derived:
            out.append(ProjectionFinding(gid, "row", "a row", "no events", "the games table has a row for a game with no events"))
        elif truth is None:
            continue  # the chain check reports why the events give no row
        elif row is None:
            out.append(ProjectionFinding(gid, "row", None, "a row", "the game's events have no row in the games table"))
        else:
            out.extend(differences(row, truth))
    return out


def differences(row: GameSummary, truth: GameSummary) -> list[ProjectionFinding]:
    out = []
    for col in COLUMNS[1:]:
        a, b = getattr(row, col), getattr(truth, col)
        if a != b:
            out.append(ProjectionFinding(row.game_id, col, a, b, f"the games table says {col} {_show(a)} but the events say {_show(b)}"))
    return out


def _show(value: Any) -> str:
    return _json.encode(value).decode() if not isinstance(value, str) else value


def derived_rows(
    rows: Iterable[tuple[Any, ...]], derived: dict[str, GameSummary | None], player: str | None = None, variant: str | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """The games' rows computed from the events (``derived``, what ``tonk games`` shows),
    optionally only games with ``player`` seated or ``variant`` pinned, and the ids of the
    games whose stored row (of ``rows``) disagrees with them (or whose events give none)."""
    stored = {r[0]: r for r in rows}
    out, disagree = [], []
    for gid, truth in derived.items():
        found = stored.pop(gid, None)
        if truth is None:
            disagree.append(gid)
            continue
        row = truth.row()
        if found != row:
            disagree.append(gid)
        d = row_to_dict(row)
        if matches(d, player, variant):
            out.append(d)
    disagree.extend(stored)  # rows of games with no events at all
    out.sort(key=lambda d: (d["started_at"], d["game_id"]))
    return out, sorted(disagree)
