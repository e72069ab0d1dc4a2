"""Replaying a recorded game event by event: the table after each step, as one player
saw it or as the omniscient auditor.  Replay folds the recorded events and consults no
rule, so it works without the variants the game was played with.

``tonk replay`` and the service's replay route both build their output here
(:func:`replay_document` is the document ``tonk replay --json`` prints)."""

from __future__ import annotations

from typing import Any, Callable, Iterator

import msgspec

from ..core.errors import TonkError
from ..core.events import Event, GameEnded, GameStarted
from ..core.names import quoted
from ..core.state import State, evolve
from ..core.views import AUDITOR, PlayerView, event_view, player_view


class ReplayError(TonkError):
    """The replay asked for cannot be given (a viewer not at the table, an event out of
    range, a damaged log); the message says which."""


HandFilter = Callable[[int], bool]


def replay_steps(
    events: list[Event], viewer: str, at: int | None = None, hands: HandFilter | None = None
) -> Iterator[tuple[int, dict[str, Any], PlayerView]]:
    """``(seq, event_view, player_view)`` after each event (only event ``at`` if given;
    with ``hands``, only the events of the hands whose number it accepts).

    Raises :class:`ReplayError` for a viewer who is not at the table, an ``at``
    out of range or outside ``hands``, or an event that cannot be applied to the state before it
    (a damaged log: ``tonk audit`` names what is wrong).
    """
    first = events[0] if events else None
    if not isinstance(first, GameStarted):
        raise ReplayError("the game's log does not start with game_started (run tonk audit on it)")
    if viewer != AUDITOR and viewer not in first.players:
        raise ReplayError(f"{quoted(viewer)} is not a player of this game (players: {', '.join(first.players)})")
    if at is not None and not 1 <= at <= len(events):
        raise ReplayError(f"--at {at} is out of range: the game has events 1 to {len(events)}")
    state = State()
    for seq, event in enumerate(events, start=1):
        try:
            evolve(state, event)
        except Exception as exc:  # a damaged log; replay must not crash on it
            raise ReplayError(f"event {seq} cannot be applied to the position before it ({type(exc).__name__}: {exc}); run tonk audit") from None
        if at is not None and seq != at:
            continue
        if hands is not None and (type(event) in (GameStarted, GameEnded) or not hands(state.hand_no)):
            if at is not None:  # the one event asked for is not among those --hand selects: say so, not nothing
                where = "belongs to no hand" if type(event) in (GameStarted, GameEnded) else f"is of hand {state.hand_no}"
                raise ReplayError(f"--at {at}: event {at} {where}, not one of the hands --hand selects")
            continue
        yield seq, event_view(event, viewer), player_view(state, viewer)
        if at is not None:
            return


def replay_document(game_id: str, viewer: str, events: list[Event], at: int | None = None, hands: HandFilter | None = None) -> dict[str, Any]:
    """The replay as plain data (docs/cli-json.md, ``tonk replay --json``)."""
    steps = [{"seq": seq, "event": ev, "view": msgspec.to_builtins(view)} for seq, ev, view in replay_steps(events, viewer, at, hands)]
    return {"game_id": game_id, "viewer": viewer, "events": len(events), "steps": steps}
