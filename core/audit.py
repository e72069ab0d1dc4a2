"""Audit: re-run the rules over a recorded game and check every recorded event.

The game is audited under the ruleset pinned in its ``game_started`` event
(never under other rules: a missing variant or another version of one is an
error, :class:`RulesetError`).  Each recorded event is turned back into the
command that produced it; ``decide`` is asked again and what it produces
must equal, field for field, what was recorded.  The first divergence is a
finding naming the event's sequence number (1-based position in the game),
the hand, the rule, and what was expected against what was recorded; the
audit of that game stops there, since everything after it rests on a state
the rules never reached.

Also checked: card conservation at every deal and hand end (every card of
the deck exactly once across hands, piles and table),
the commitment of every deal (ledgers are re-derived, so zero-sum by
construction), and a ``game_ended`` net equal to the running
totals.  Hash chains are the event store's business (``tonk.storage``).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

import msgspec

from .commands import DealHand, Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
from .commitment import PLAIN, expected_commitment
from .turn import decide
from .legal import _DISCARDS, _TURN_START, _discards_of, _turn_start
from .errors import IllegalAction, RulesetError
from .events import (
    CardDiscarded,
    CardDrawn,
    CardHit,
    EmptyStockCalled,
    Event,
    GameEnded,
    GameStarted,
    HandDealt,
    HandEnded,
    Knocked,
    SpreadLaid,
    TIMED_EVENTS,
    event_type,
)
from .ruleset import Ruleset, RulesetLoader
from .state import State, conservation_problem, evolve


class Finding(msgspec.Struct, frozen=True):
    """One thing wrong with a recorded game."""

    game_id: str
    seq: int
    hand_no: int
    rule: str
    message: str
    expected: object = None
    recorded: object = None


class AuditReport(msgspec.Struct):
    game_id: str
    events: int
    hands: int
    findings: list[Finding] = []

    @property
    def clean(self) -> bool:
        return not self.findings


def command_of_event(event: Event):
    """The command that produced a recorded event (``None`` for events no command asks for)."""
    t = type(event)
    if t is CardDrawn:
        return DrawStock(event.player) if event.source == "stock" else DrawDiscard(event.player)
    if t is CardDiscarded:
        return Discard(event.player, event.card)
    if t is SpreadLaid:
        return LaySpread(event.player, tuple(event.cards), dict(event.jokers_as))
    if t is CardHit:
        return Hit(event.player, event.card, event.spread_id, event.jokers_as.get(event.card))
    if t is Knocked:
        return Knock(event.player)
    if t is EmptyStockCalled:
        return DrawStock(event.player)
    if t is HandDealt and not event.explicit:
        salt = event.salt if isinstance(event.salt, str) else None
        return DealHand(deck=tuple(event.deck), salt=salt)
    return None


def conservation_check(events: Iterable[Event]) -> Finding | None:
    """Card conservation over a log, without the rules: fold the events; after each one
    inside a hand every card of the hand's deck (its recorded order, or an explicit
    position's own cards, each once) must be in exactly one place (A1.1).  The first
    problem, or ``None``; what follows it rests on it."""
    state = State()
    deck: tuple[str, ...] | None = None
    gid = "?"
    for seq, e in enumerate(events, start=1):
        if type(e) is GameStarted:
            gid = e.game_id
        try:
            evolve(state, e)
        except Exception as exc:
            return Finding(gid, seq, state.hand_no, "A1.1", f"{event_type(e)} cannot be applied to the position before it ({type(exc).__name__}: {exc})")
        if type(e) is HandDealt:
            if e.deck:
                deck = tuple(e.deck)
            else:  # an explicit position: its own cards, each once
                cards: list[str] = [c for h in e.hands.values() for c in h] + list(e.stock) + list(e.discard)
                cards += [c for s in e.table for c in s.cards]
                doubled = sorted(c for c, n in Counter(cards).items() if n > 1)
                if doubled:
                    return Finding(gid, seq, e.hand_no, "A1.1", "the position holds a card twice: " + " ".join(doubled))
                deck = tuple(cards)
        if deck is not None and (state.in_hand or type(e) is HandEnded):
            problem = conservation_problem(state, deck)
            if problem:
                return Finding(gid, seq, state.hand_no, "A1.1", problem)
    return None


_TIMED = frozenset(TIMED_EVENTS)


def scheme_of(dealt: HandDealt) -> str:
    """The commitment scheme of a deal (unset: the unsalted scheme of older logs)."""
    return dealt.commitment_scheme if isinstance(dealt.commitment_scheme, str) else PLAIN


def deal_commitment(dealt: HandDealt) -> str | None:
    """The commitment a deal must carry under its recorded scheme (``None``: no valid one)."""
    salt = dealt.salt if isinstance(dealt.salt, str) else None
    return expected_commitment(scheme_of(dealt), dealt.deck, salt)


def _plain(e: Event) -> object:
    return msgspec.to_builtins(e)


def audit_events(events: Iterable[Event], *, ruleset: Ruleset | None = None, load_ruleset: RulesetLoader | None = None) -> AuditReport:
    """Audit one game's events under ``ruleset``, or under the ruleset ``load_ruleset`` builds
    from the spec the game pins (e.g. :func:`tonk.variants.load_ruleset`).  Raises
    :class:`RulesetError` if its rules cannot be loaded."""
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, GameStarted):
        gid = getattr(first, "game_id", "?")
        rep = AuditReport(gid, 0 if first is None else 1, 0)
        rep.findings.append(Finding(gid, 1, 0, "log", "a game's log must start with game_started", None, event_type(first) if first else None))
        return rep
    gid = first.game_id
    if ruleset is None:
        if load_ruleset is None:
            raise RulesetError(f"game {gid}: no ruleset and no ruleset loader given to audit it")
        ruleset = load_ruleset(first.ruleset)
    state = evolve(State(), first)
    report = AuditReport(gid, 1, 0)
    findings = report.findings

    def finding(seq: int, rule: str, message: str, expected=None, recorded=None) -> None:
        findings.append(Finding(gid, seq, state.hand_no, rule, message, expected, recorded))

    events_list = list(it)
    deck = ruleset.deck
    deck_set = ruleset.deck_set  # the set of ``deck``, built once per ruleset
    report.events = 1 + len(events_list)
    i = 0
    n = len(events_list)
    while i < n:
        e = events_list[i]
        seq = i + 2
        t = type(e)
        if t in _TIMED and e.timed_out is not msgspec.UNSET:
            # a turn the server's bot played when the seat's timer ran out: the same action
            # the rules produce, marked as such (the mark is no rule's business)
            e = events_list[i] = msgspec.structs.replace(e, timed_out=msgspec.UNSET)
        # the commonest events first: a draw or a discard is none of the special cases below.
        # Commands are frozen values, so the shared ones of tonk.core.legal are the same
        # commands as new ones built from the event
        if t is CardDrawn:
            turn_start = _TURN_START.get(e.player) or _turn_start(e.player)
            cmd = turn_start[1] if e.source == "stock" else turn_start[2]  # DrawStock, DrawDiscard
        elif t is CardDiscarded:
            discards = _DISCARDS.get(e.player)
            if discards is None:
                discards = _discards_of(e.player)
            cmd = discards[e.card]  # Discard(player, card)
        elif t is GameStarted:
            finding(seq, "log", "a second game_started in one game", None, _plain(e))
            return report
        elif t is GameEnded:
            if state.in_hand:
                finding(seq, "log", "game_ended while a hand is in play", None, _plain(e))
                return report
            if e.net and e.net != state.net:
                finding(seq, "A12", "the game's closing net does not equal the sum of its ledgers", state.net, e.net)
                return report
            evolve(state, e)
            if i + 1 < n:  # a duplicate game_ended, or any event after the end
                after = events_list[i + 1]
                finding(seq + 1, "log", f"{event_type(after)} after game_ended: an ended game takes no more events", None, _plain(after))
                return report
            i += 1
            continue
        elif t is HandDealt and e.explicit:
            if state.in_hand:
                finding(seq, "log", "a new position while a hand is in play", None, _plain(e))
                return report
            evolve(state, e)
            problem = conservation_problem(state, deck, deck_set)
            if problem:
                finding(seq, "A1.1", problem)
                return report
            report.hands += 1
            i += 1
            continue
        else:
            cmd = command_of_event(e)
        if cmd is None:
            finding(seq, "log", f"{event_type(e)} does not follow from any action here", None, _plain(e))
            return report
        try:
            expected = decide(state, cmd, ruleset)
        except Exception:
            expected = None
        # A deal that the rules re-derive as recorded carries the sha256 of its own deck (decide
        # computes it from the same deck); otherwise the commitment is checked first, as before.
        if t is HandDealt and (expected is None or expected[0] != e):
            want = deal_commitment(e)
            if e.commitment != want:
                finding(seq, "A4", f"the deal's commitment is not what its scheme ({scheme_of(e)}) gives for its deck order", want, e.commitment)
                return report
        try:
            if expected is None:
                expected = decide(state, cmd, ruleset)  # raises again: decide changes nothing
        except IllegalAction as exc:
            finding(seq, exc.rule, f"illegal {event_type(e)}: {exc.message} [{exc.code}]", None, _plain(e))
            return report
        except Exception as exc:  # a setup error on a deal (wrong deck) and the like
            finding(seq, "A4", f"{event_type(e)} cannot be re-derived: {exc}", None, _plain(e))
            return report
        if len(expected) == 1 and e == expected[0]:  # one event, as recorded: the common case
            evolve(state, e)
            if t is HandDealt:
                report.hands += 1
                problem = conservation_problem(state, deck, deck_set)
                if problem:
                    finding(seq, "A1.1", problem)
                    return report
            i += 1
            continue
        recorded = events_list[i : i + len(expected)]
        for k, want in enumerate(expected):
            got = recorded[k] if k < len(recorded) else None
            if got != want:
                rule = "A12" if isinstance(want, HandEnded) else "log"
                what = event_type(want)
                if got is None:
                    msg = f"the log ends where the rules produce {what}"
                elif isinstance(want, HandEnded) and isinstance(got, HandEnded):
                    msg = "the hand's recorded ending (totals, ledger or next dealer) is not what the rules produce"
                else:
                    msg = f"recorded {event_type(got)} differs from what the rules produce ({what})"
                finding(seq + k, rule, msg, _plain(want), _plain(got) if got is not None else None)
                return report
        for ev in recorded:
            evolve(state, ev)
            if type(ev) is HandDealt:
                report.hands += 1
                problem = conservation_problem(state, deck, deck_set)
                if problem:
                    finding(seq, "A1.1", problem)
                    return report
        i += len(expected)
    return report
