"""The audit's draws and discards (its commonest events, checked on a short path of their own):
a changed one is found where it is, with the rule and message of the general path."""

from __future__ import annotations

import msgspec
import pytest

from tonk.application.simulate import SimConfig, play_game
from tonk.core.audit import audit_events
from tonk.core.events import CardDiscarded, CardDrawn, Event


@pytest.fixture(scope="module")
def recorded() -> tuple[list[Event], object]:
    config = SimConfig(hands=6, players=3, bots=("random",), seed=21, hands_per_game=6)
    ruleset = config.ruleset()
    return play_game(config, ruleset, 0), ruleset


def _nth(events: list[Event], kind: type, n: int = 1) -> int:
    seen = 0
    for i, e in enumerate(events):
        if type(e) is kind:
            seen += 1
            if seen == n:
                return i
    raise AssertionError(f"no {kind.__name__} number {n}")


def _audit(events: list[Event], ruleset) -> list:
    return audit_events(events, ruleset=ruleset).findings


def test_the_recorded_game_audits_clean(recorded):
    events, ruleset = recorded
    assert _audit(events, ruleset) == []


def test_a_discard_of_a_card_not_held_is_illegal_at_its_seq(recorded):
    events, ruleset = recorded
    i = _nth(events, CardDiscarded, 2)
    e = events[i]
    held = set().union(*(set(h) for h in _hands_before(events, i, ruleset).values()))
    foreign = next(c for c in ruleset.deck if c not in held)
    tampered = events[:i] + [msgspec.structs.replace(e, card=foreign)] + events[i + 1 :]
    (f,) = _audit(tampered, ruleset)
    assert (f.seq, f.rule) == (i + 1, "A7.4")
    assert f.message.startswith("illegal card_discarded:") and "[CARD_NOT_IN_HAND]" in f.message


def test_a_draw_of_another_card_differs_from_what_the_rules_produce(recorded):
    events, ruleset = recorded
    i = next(k for k, e in enumerate(events) if type(e) is CardDrawn and e.source == "stock")
    e = events[i]
    other = next(c for c in ruleset.deck if c != e.card)
    tampered = events[:i] + [msgspec.structs.replace(e, card=other)] + events[i + 1 :]
    (f,) = _audit(tampered, ruleset)
    assert (f.seq, f.rule) == (i + 1, "log")
    assert f.message == "recorded card_drawn differs from what the rules produce (card_drawn)"
    assert f.expected["card"] == e.card and f.recorded["card"] == other


def test_a_draw_by_a_player_out_of_turn_is_found(recorded):
    events, ruleset = recorded
    i = _nth(events, CardDrawn, 1)
    e = events[i]
    someone_else = next(p for p in ("P1", "P2", "P3") if p != e.player)
    tampered = events[:i] + [msgspec.structs.replace(e, player=someone_else)] + events[i + 1 :]
    (f,) = _audit(tampered, ruleset)
    assert (f.seq, f.rule) == (i + 1, "A6.1")
    assert "[NOT_YOUR_TURN]" in f.message


@pytest.mark.parametrize("kind", [CardDrawn, CardDiscarded])
def test_a_draw_or_discard_by_someone_not_seated_is_found(recorded, kind):
    # the audit looks up each seat's shared commands once a game; a player not seated gets
    # them from the same functions, and decide refuses the command (A6.1)
    events, ruleset = recorded
    i = _nth(events, kind, 2)
    tampered = events[:i] + [msgspec.structs.replace(events[i], player="Zed")] + events[i + 1 :]
    (f,) = _audit(tampered, ruleset)
    assert (f.seq, f.rule) == (i + 1, "A6.1")
    assert "[NOT_YOUR_TURN]" in f.message and "'Zed' is not a player at this table" in f.message


def test_a_discard_where_a_draw_is_due_is_found(recorded):
    events, ruleset = recorded
    i = _nth(events, CardDrawn, 3)
    e = events[i]
    tampered = events[:i] + [CardDiscarded(player=e.player, card=_hands_before(events, i, ruleset)[e.player][0])] + events[i + 1 :]
    (f,) = _audit(tampered, ruleset)
    assert (f.seq, f.rule) == (i + 1, "A7.4")
    assert "[MUST_DRAW_FIRST]" in f.message


def _hands_before(events: list[Event], i: int, ruleset) -> dict[str, list[str]]:
    from tonk.core.state import fold

    return fold(events[:i]).hands
