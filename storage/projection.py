"""The ``games`` table: one row per game, a projection of its events.

It is derived data: :func:`rebuild` recomputes it from the events alone, and
every append updates it in the same transaction through the same
:class:`GameSummary`, so the incremental and the rebuilt tables are equal.

Columns: ``game_id``, ``started_at`` / ``ended_at`` (when ``game_started`` /
``game_ended`` were recorded), ``players``, ``variants`` (the pinned house
rules, in order), ``options`` (the resolved options), ``hands`` (hands
dealt), ``net`` (each player's running total in stake units, from the
ledgers), ``status`` (``open`` or ``ended``) and ``events`` (the game's
version).  List and dict columns hold JSON text.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from typing import Any, Iterable

import msgspec

from ..core.events import Event, GameEnded, GameStarted, HandDealt, HandEnded
from ..core.settlement import add_ledger
from .codec import first_event

COLUMNS = ("game_id", "started_at", "ended_at", "players", "variants", "options", "hands", "net", "status", "events")
JSON_COLUMNS = ("players", "variants", "options", "net")

_json = msgspec.json.Encoder(order="deterministic")
_INSERT = f"INSERT OR REPLACE INTO games ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)})"
_SELECT = f"SELECT {', '.join(COLUMNS)} FROM games"


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
        self._apply(event, type(event), recorded_at)

    def apply_many(self, events: list[Event], recorded_at: str) -> None:
        """:meth:`apply` for events recorded at one time (only four types change a row)."""
        self.events += len(events)
        for e in events:
            t = type(e)
            if t in _CHANGING:
                self._apply(e, t, recorded_at)

    def _apply(self, event: Event, t: type, recorded_at: str) -> None:
        if t is HandEnded:
            self.net = dict(add_ledger(defaultdict(int, self.net), event.ledger))
        elif t is HandDealt:
            self.hands += 1
        elif t is GameStarted:
            self.started_at = recorded_at
            self.players = list(event.players)
            self.variants = list(event.ruleset.variants)
            self.options = dict(event.ruleset.options)
            self.net = {p: 0 for p in event.players}
        elif t is GameEnded:
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


def update(conn: sqlite3.Connection, game_id: str, events: Iterable[Event], recorded_at: str | Iterable[str], *, new: bool = False) -> None:
    """Fold newly appended events into the game's row (inside the append's transaction).
    ``recorded_at`` is one time for all the events, or one per event; ``new`` says the
    game had no event before (its row, if any, is stale and replaced)."""
    found = None if new else conn.execute(_SELECT + " WHERE game_id = ?", (game_id,)).fetchone()
    summary = GameSummary.from_row(found) if found else GameSummary(game_id)
    if isinstance(recorded_at, str):
        summary.apply_many(list(events), recorded_at)
    else:
        for e, at in zip(events, recorded_at):
            summary.apply(e, at)
    conn.execute(_INSERT, summary.row())


def write(conn: sqlite3.Connection, summaries: Iterable[GameSummary]) -> None:
    conn.executemany(_INSERT, (s.row() for s in summaries))


def select(conn: sqlite3.Connection, player: str | None = None, variant: str | None = None) -> list[dict[str, Any]]:
    sql = _SELECT
    where, args = [], []
    if player is not None:
        where.append("EXISTS (SELECT 1 FROM json_each(games.players) WHERE value = ?)")
        args.append(player)
    if variant is not None:
        where.append("EXISTS (SELECT 1 FROM json_each(games.variants) WHERE value = ?)")
        args.append(variant)
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY started_at, game_id"
    return [row_to_dict(r) for r in conn.execute(sql, args)]


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


#: the event types that change a row besides the counts (hand_dealt is counted in SQL)
_FOLDED_TYPES = "('game_started', 'hand_ended', 'game_ended')"


def derive(conn: sqlite3.Connection) -> dict[str, GameSummary | None]:
    """Every game's row computed from its events alone, reading only what a row needs (the
    counts in SQL, and the payloads of game_started, hand_ended and game_ended); ``None``
    for a game whose events cannot give a row (an undecodable payload, no game_started
    first: ``tonk verify``'s chain check names the event)."""
    out: dict[str, GameSummary | None] = {}
    # (CASE, not a boolean sum: the same SQL on SQLite and PostgreSQL)
    for gid, n, hands in conn.execute("SELECT game_id, count(*), sum(CASE WHEN type = 'hand_dealt' THEN 1 ELSE 0 END) FROM events GROUP BY game_id"):
        summary = GameSummary(gid)
        summary.events, summary.hands = n, hands
        out[gid] = summary
    current = None
    dec = None
    sql = f"SELECT game_id, seq, type, payload, recorded_at FROM events WHERE type IN {_FOLDED_TYPES} ORDER BY game_id, seq"
    for gid, seq, type_, payload, at in conn.execute(sql):
        summary = out.get(gid)
        if summary is None:
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
        summary._apply(event, type(event), at)
    return out


def findings(conn: sqlite3.Connection) -> list[ProjectionFinding]:
    """Every difference between the ``games`` table and the events, game by game."""
    stored = {r[0]: GameSummary.from_row(r) for r in conn.execute(_SELECT)}
    derived = derive(conn)
    out: list[ProjectionFinding] = []
    for gid in sorted(set(stored) | set(derived)):
        row, truth = stored.get(gid), derived.get(gid, False)
        if truth is False:
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


def derived_rows(conn: sqlite3.Connection, player: str | None = None, variant: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows of :func:`select`, computed from the events (what ``tonk games`` shows), and
    the ids of the games whose stored row disagrees with them (or whose events give none)."""
    stored = {r[0]: r for r in conn.execute(_SELECT)}
    rows, disagree = [], []
    for gid, truth in derive(conn).items():
        found = stored.pop(gid, None)
        if truth is None:
            disagree.append(gid)
            continue
        row = truth.row()
        if found != row:
            disagree.append(gid)
        d = row_to_dict(row)
        if player is not None and player not in d["players"]:
            continue
        if variant is not None and variant not in d["variants"]:
            continue
        rows.append(d)
    disagree.extend(stored)  # rows of games with no events at all
    rows.sort(key=lambda d: (d["started_at"], d["game_id"]))
    return rows, sorted(disagree)
