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
from typing import Any, Iterable

import msgspec

from ..core.events import Event, GameEnded, GameStarted, HandDealt, HandEnded

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
            net = self.net
            for pay in event.ledger:
                net[pay.from_] = net.get(pay.from_, 0) - pay.amount
                net[pay.to] = net.get(pay.to, 0) + pay.amount
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
