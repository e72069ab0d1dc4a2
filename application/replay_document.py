"""The replay of a recorded game as one document of plain data: what the replay viewer shows.

For every event and every perspective (the omniscient auditor ``*`` and each
player) the document holds the event as that perspective saw it and the table
after it, both computed by the engine (:func:`tonk.core.views.event_view` and
:func:`tonk.core.views.player_view`, the same as ``tonk replay --json``), so the
viewer in the browser only shows them and never applies a rule.  Also: each
hand's first and last event with its ledger and the net after it, and the audit
verdict with each finding's event.

A document for one player (``viewer=PLAYER``) holds that player's steps only,
and no audit text that names a card the player never saw: it can be given to
that player without showing them anything the table hid from them.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import msgspec

from ..core.errors import TonkError
from ..core.events import Event, GameStarted, HandDealt, HandEnded, event_type
from ..core.names import quoted
from ..core.state import State, evolve
from ..core.views import AUDITOR, event_view, player_view, visible_cards

#: the version of the document's shape (the viewer refuses another)
DOCUMENT_FORMAT = 1

_CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[A2-9JQK])[SHDC](?![A-Za-z0-9])|(?<![A-Za-z0-9])X[12](?![A-Za-z0-9])")

WITHHELD = "details withheld: they name cards this player did not see (the auditor's replay shows them)"


class ReplayError(TonkError):
    """A game that cannot be replayed (an unknown player, a damaged log)."""


def replay_document(game_id: str, events: Sequence[Event], viewer: str | None = None, audit: dict[str, Any] | None = None) -> dict[str, Any]:
    """The replay of ``events`` as plain data (JSON-ready).

    ``viewer``: ``None`` for every perspective (the auditor's and each player's),
    or one player's name (or ``*``) for that perspective alone.  ``audit``: the
    game's audit result (the JSON object of ``tonk audit --json``), or ``None``.
    """
    first = events[0] if events else None
    if not isinstance(first, GameStarted):
        raise ReplayError("the game's log does not start with game_started (run tonk audit on it)")
    players = list(first.players)
    if viewer is not None and viewer != AUDITOR and viewer not in players:
        raise ReplayError(f"{quoted(viewer)} is not a player of this game (players: {', '.join(players)})")
    perspectives = [AUDITOR, *players] if viewer is None else [viewer]
    steps: dict[str, list[dict[str, Any]]] = {p: [] for p in perspectives}
    hands: list[dict[str, Any]] = []
    state = State()
    for seq, event in enumerate(events, start=1):
        try:
            evolve(state, event)
        except Exception as exc:  # a damaged log: the viewer cannot show it
            raise ReplayError(f"event {seq} cannot be applied to the position before it ({type(exc).__name__}: {exc}); run tonk audit") from None
        for p in perspectives:
            steps[p].append({"seq": seq, "event": event_view(event, p), "view": msgspec.to_builtins(player_view(state, p))})
        if type(event) is HandDealt:
            hands.append({"hand_no": event.hand_no, "dealer": event.dealer, "first": seq, "last": None, "end": None})
        elif type(event) is HandEnded and hands:
            hands[-1].update(
                last=seq,
                end=event.end,
                player=event.player,
                totals=dict(event.totals),
                ledger=[msgspec.to_builtins(p) for p in event.ledger],
                net=dict(state.net),
            )
    for hand in hands:
        if hand["last"] is None:  # a hand still being played when the log ends
            hand["last"] = len(events)
    return {
        "format": DOCUMENT_FORMAT,
        "game_id": game_id,
        "players": players,
        "ruleset": {"variants": list(first.ruleset.variants), "options": dict(first.ruleset.options)},
        "events": len(events),
        "types": [event_type(e) for e in events],
        "perspectives": perspectives,
        "steps": steps,
        "hands": hands,
        "audit": None if audit is None else _audit_for(audit, viewer, steps),
    }


def _audit_for(audit: dict[str, Any], viewer: str | None, steps: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The audit result as the document holds it: every finding's event, rule and sentence;
    for one player, no sentence naming a card that player never saw and no raw events."""
    keep = ("check", "seq", "hand_no", "rule", "message")
    findings = [{k: f.get(k) for k in keep} for f in audit.get("findings", [])]
    if viewer is not None and viewer != AUDITOR:
        seen = visible_cards(steps[viewer])
        for f in findings:
            if any(card not in seen for card in _CARD.findall(f["message"] or "")):
                f["message"] = WITHHELD
    else:
        for f, raw in zip(findings, audit.get("findings", [])):
            f["expected"], f["recorded"] = raw.get("expected"), raw.get("recorded")
    return {"verdict": audit.get("verdict"), "checks": dict(audit.get("checks", {})), "error": audit.get("error"), "findings": findings}


__all__ = ["DOCUMENT_FORMAT", "ReplayError", "replay_document"]
