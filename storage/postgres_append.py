"""An append to the PostgreSQL store in one round trip, when the store knows the game's last
row: the function ``tonk_append`` (migration ``0005_append_function``) takes the position lock,
checks the game's last row and the command id, and writes the rows, the ``games`` row, the
counter and the ``NOTIFY`` in one statement, so in one transaction of its own.

What the append's rules need from the store (the game's last row, its ``games`` row) is what
this store itself wrote at its last append of the game (or read under the lock at its first):
:class:`KnownGames` keeps it.  The rows are then made here as the rules make them
(:func:`~.append_rules.rows_after`: expected version, how a game starts, nothing after its
end, the chain links), and the function stores them only if the game's last row is still the
one they link to (its seq and hash, read under the lock) and the command id is new to the
game; otherwise it writes nothing and says why, and the store appends the usual way
(:class:`~.postgres.PostgresTransaction`, which reads the truth under the lock and raises
:class:`~.errors.ConcurrencyError` or answers a retried command id).  The positions are handed
out inside the function from the counter it locked, so the global order is as before: gap-free,
in commit order.  The lock is held only while the server runs the one statement and commits,
never across a round trip to the client.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from ..core.events import Event
from . import projection
from .append_rules import EventRow, rows_after
from .chain import GENESIS
from .errors import StoreError
from .postgres_schema import NOTIFY_CHANNEL

#: games whose last row a store keeps (then it starts afresh: the next append of each reads it)
KNOWN_GAMES = 10_000

#: what ``tonk_append`` answers when it wrote nothing (else: the last position before its rows)
MOVED = -1  # the game's last row is not the one the rows link to (another writer appended)
SEEN = -2  # the command id was recorded for the game already


def create_append_function(cur: Any) -> None:
    """Migration step ``0005_append_function``: ``tonk_append``, one append in one statement."""
    from .projection import COLUMNS

    games_params = ", ".join(f"g_{c} {'INTEGER' if c in ('hands', 'events') else 'TEXT'}" for c in COLUMNS)
    games_values = ", ".join(f"g_{c}" for c in COLUMNS)
    games_set = ", ".join(f"{c} = excluded.{c}" for c in COLUMNS[1:])
    cur.execute(
        f"""
        CREATE FUNCTION tonk_append(
            p_game TEXT, p_after INTEGER, p_after_hash TEXT, p_command TEXT, p_at TEXT, p_chain INTEGER,
            p_types TEXT, p_payloads TEXT, p_hashes TEXT, p_note TEXT,
            {games_params}
        ) RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
            -- the rows' types, payloads and hashes, each list joined by U+001E (which JSON text,
            -- a type's name and a hex hash never hold): one text each, not an array to escape
            v_types TEXT[] := string_to_array(p_types, E'\\x1e');
            v_payloads TEXT[] := string_to_array(p_payloads, E'\\x1e');
            v_hashes TEXT[] := string_to_array(p_hashes, E'\\x1e');
            v_n INTEGER := cardinality(v_types);
            v_start BIGINT;
            v_seq INTEGER;
            v_hash TEXT;
        BEGIN
            -- the lock first: each statement below sees every append committed before it was granted
            SELECT last INTO v_start FROM event_position FOR UPDATE;
            SELECT seq, hash INTO v_seq, v_hash FROM events WHERE game_id = p_game ORDER BY seq DESC LIMIT 1;
            IF coalesce(v_seq, 0) <> p_after OR coalesce(v_hash, '{GENESIS}') <> p_after_hash THEN
                RETURN {MOVED};
            END IF;
            IF p_command <> '' AND EXISTS (SELECT 1 FROM events WHERE game_id = p_game AND command_id = p_command) THEN
                RETURN {SEEN};
            END IF;
            INSERT INTO events (game_id, seq, type, payload, recorded_at, hash, prev_hash, command_id, position, chain)
                SELECT p_game, p_after + u.i::INTEGER, u.t, u.p, p_at, u.h,
                       CASE WHEN u.i = 1 THEN p_after_hash ELSE v_hashes[u.i - 1] END, p_command, v_start + u.i, p_chain
                FROM unnest(v_types, v_payloads, v_hashes) WITH ORDINALITY AS u(t, p, h, i);
            INSERT INTO games ({", ".join(COLUMNS)}) VALUES ({games_values})
                ON CONFLICT (game_id) DO UPDATE SET {games_set};
            UPDATE event_position SET last = v_start + v_n;
            PERFORM pg_notify('{NOTIFY_CHANNEL}', (v_start + v_n)::TEXT || p_note);
            RETURN v_start;
        END
        $$
        """
    )


_CALL = f"SELECT tonk_append({', '.join(['%s'] * (10 + len(projection.COLUMNS)))})"
#: what joins a list of the rows' values into one parameter (JSON text escapes it; no type's
#: name nor hex hash holds it)
_SEP = "\x1e"


class Known(NamedTuple):
    """A game's last row as this store wrote (or read) it, and its ``games`` row then."""

    seq: int
    hash: str
    type: str
    games_row: tuple[Any, ...] | None


#: a game with no events: what an append of its first events links to
NEW_GAME = Known(0, GENESIS, "", None)


class KnownGames:
    """The last row of each game this store appended to (bounded: past :data:`KNOWN_GAMES`
    games it forgets them all; an append of a game not known goes the usual way)."""

    def __init__(self) -> None:
        self._games: dict[str, Known] = {}

    def get(self, game_id: str, version: int) -> Known | None:
        """What an append after ``version`` events links to, if known (a new game always is)."""
        if version == 0:
            return NEW_GAME
        known = self._games.get(game_id)
        return known if known is not None and known.seq == version and known.games_row is not None else None

    def wrote(self, rows: Sequence[EventRow], games_row: tuple[Any, ...]) -> None:
        """The store committed ``rows`` (one game's, in order) and the game's ``games`` row."""
        if not rows:
            return
        if len(self._games) >= KNOWN_GAMES:
            self._games.clear()
        last = rows[-1]
        self._games[last[0]] = Known(last[1], last[5], last[2], games_row)

    def forget(self, game_id: str | None = None) -> None:
        """Forget one game (``None``: every game)."""
        if game_id is None:
            self._games.clear()
        else:
            self._games.pop(game_id, None)


def one_trip(
    cur: Any, known: Known, game_id: str, events: list[Event], encoded: list[tuple[str, bytes]], cmd: str, version: int, note: str
) -> tuple[int, list[EventRow], tuple[Any, ...]] | None:
    """Append in one round trip (``cur``: a cursor of an autocommit connection), linking to ``known`` (the game's last row after ``version``
    events): (the last position before the rows, the rows, the ``games`` row), or ``None``
    when the function wrote nothing (the game moved on, or the command id was seen): then the
    caller appends the usual way.  The rules' errors (a second ``game_started``, an event after
    the end) are raised here, before anything is sent."""
    try:
        _, rows, at = rows_after(game_id, events, encoded, cmd, version, (known.seq, known.hash, known.type) if version else None, lambda: 0)
    except StoreError:
        return None  # refused by the rules: the usual way says so exactly as it always has
    summary = projection.GameSummary.from_row(known.games_row) if version and known.games_row else projection.GameSummary(game_id)
    summary.apply_many(events, at)
    games_row = summary.row()
    payloads = _SEP.join([r[3] for r in rows])
    if payloads.count(_SEP) != len(rows) - 1:
        return None  # (never: canonical JSON escapes every control character) the usual way then
    args = (
        game_id, version, known.hash, cmd, at, rows[0][9],
        _SEP.join([r[2] for r in rows]), payloads, _SEP.join([r[5] for r in rows]), note,
        *games_row,
    )  # fmt: skip
    start = cur.execute(_CALL, args).fetchone()[0]
    if start < 0:
        return None
    return start, [r[:8] + (start + i,) + r[9:] for i, r in enumerate(rows, 1)], games_row
