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
from typing import Iterable, TypeVar, Union

import msgspec

from .commands import Command, DealHand, Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
from .commitment import PLAIN, expected_commitment
from .turn import decide
from .legal import discard_commands, turn_start_commands
from .errors import IllegalAction, RulesetError, VariantFault
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


def command_of_event(event: Event) -> Command | None:
    """The command that produced a recorded event (``None`` for events no command asks for)."""
    if type(event) is CardDrawn:
        return DrawStock(event.player) if event.source == "stock" else DrawDiscard(event.player)
    if type(event) is CardDiscarded:
        return Discard(event.player, event.card)
    if type(event) is SpreadLaid:
        return LaySpread(event.player, tuple(event.cards), dict(event.jokers_as))
    if type(event) is CardHit:
        return Hit(event.player, event.card, event.spread_id, event.jokers_as.get(event.card))
    if type(event) is Knocked:
        return Knock(event.player)
    if type(event) is EmptyStockCalled:
        return DrawStock(event.player)
    if type(event) is HandDealt and not event.explicit:
        return deal_command(event)
    return None


def deal_command(event: HandDealt) -> DealHand:
    """The command that dealt a recorded hand from a deck (not an explicit position)."""
    salt = event.salt if isinstance(event.salt, str) else None
    if isinstance(event.client_seeds, dict):  # a fair deal: its deck is checked against its seeds apart (core.deal_audit)
        not_sat = tuple(event.not_sat) if isinstance(event.not_sat, tuple) else ()
        return DealHand(deck=tuple(event.deck), salt=salt, client_seeds=dict(event.client_seeds), not_sat=not_sat)
    return DealHand(deck=tuple(event.deck), salt=salt)


def conservation_check(events: Iterable[Event]) -> Finding | None:
    """Card conservation over a log, without the rules: fold the events; after each one
    inside a hand every card of the hand's deck (its recorded order, or an explicit
    position's own cards, each once) must be in exactly one place (A1.1).  The first
    problem, or ``None``; what follows it rests on it."""
    state = State()
    deck: tuple[str, ...] | None = None
    deck_set: frozenset[str] = frozenset()  # the set of ``deck``, built once a hand (not once an event)
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
            deck_set = frozenset(deck)
        if deck is not None and (state.in_hand or type(e) is HandEnded):
            problem = conservation_problem(state, deck, deck_set)
            if problem:
                return Finding(gid, seq, state.hand_no, "A1.1", problem)
    return None


#: an event of ``TIMED_EVENTS`` (one a seat's own action begins with, which may carry ``timed_out``)
_Timed = TypeVar("_Timed", bound=Union[Knocked, CardDrawn, EmptyStockCalled, SpreadLaid, CardHit, CardDiscarded])


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
        return _not_a_game(first)
    if ruleset is None:
        if load_ruleset is None:
            raise RulesetError(f"game {first.game_id}: no ruleset and no ruleset loader given to audit it")
        ruleset = load_ruleset(first.ruleset)
    return _GameAudit(first, ruleset, list(it)).run()


def _not_a_game(first: Event | None) -> AuditReport:
    """The report on a log that does not start with ``game_started``."""
    gid = getattr(first, "game_id", "?")
    report = AuditReport(gid, 0 if first is None else 1, 0)
    report.findings.append(Finding(gid, 1, 0, "log", "a game's log must start with game_started", None, event_type(first) if first else None))
    return report


class _GameAudit:
    """One game's audit under way: the log after its ``game_started``, the position the rules
    reached, the report.  Each step checks the recorded events from one position of the log on
    and answers how many it accounted for; 0 when it recorded a finding, which ends the audit.
    The event at ``log[i]`` is the game's event number ``i + 2`` (its ``seq``)."""

    __slots__ = ("ruleset", "deck", "deck_set", "state", "report", "log")

    def __init__(self, first: GameStarted, ruleset: Ruleset, log: list[Event]):
        self.ruleset = ruleset
        self.deck = ruleset.deck
        self.deck_set = ruleset.deck_set  # the set of ``deck``, built once per ruleset
        self.state = evolve(State(), first)
        self.report = AuditReport(first.game_id, 1 + len(log), 0)
        self.log = log

    def run(self) -> AuditReport:
        """Every event in turn, until the log ends or a finding stops the audit.

        The commonest events first: a draw, a discard or a knock (not marked timed out) is none
        of the special cases of :meth:`step`, and its command is a shared one of
        :mod:`tonk.core.legal` (commands are frozen values, the same as new ones built from the
        event); a deal from a deck is none of them either.  The rules are asked once per
        command: what they decide (or their refusal) is judged by :meth:`judge`."""
        log = self.log
        state, ruleset = self.state, self.ruleset
        unset = msgspec.UNSET
        # each seat's shared commands, looked up once a game (a player not seated gets
        # them from the same functions: decide refuses the command then)
        starts = {p: turn_start_commands(p) for p in state.players}
        discards = {p: discard_commands(p) for p in state.players}
        i, n = 0, len(log)
        while i < n:
            e = log[i]
            if type(e) is CardDrawn and e.timed_out is unset:
                commands = starts.get(e.player) or turn_start_commands(e.player)
                cmd: Command = commands[1 if e.source == "stock" else 2]
            elif type(e) is CardDiscarded and e.timed_out is unset:
                cmd = (discards.get(e.player) or discard_commands(e.player))[e.card]
            elif type(e) is Knocked and e.timed_out is unset:
                cmd = (starts.get(e.player) or turn_start_commands(e.player))[0]
            else:
                if type(e) is HandDealt and not e.explicit:  # a deal from a deck: none of step's special cases
                    taken = self.rederive(i, e, deal_command(e))
                else:
                    taken = self.step(i)
                if not taken:
                    break
                i += taken
                continue
            # rederive's common case inline: one event, as recorded (none of these is a deal)
            try:
                expected = decide(state, cmd, ruleset)
            except VariantFault:  # the rules cannot be run: no finding about the game
                raise
            except Exception as exc:
                taken = self.judge(i, e, [], exc)
            else:
                if len(expected) == 1 and e == expected[0]:
                    evolve(state, expected[0])  # equal to ``e``: see judge
                    i += 1
                    continue
                taken = self.judge(i, e, expected, None)  # anything else: what the rules decided, judged
            if not taken:
                break
            i += taken
        return self.report

    def step(self, i: int) -> int:
        """The log's event ``i`` when it is not a plain draw or discard: a timed-out action is
        checked without its mark, and the events no command produces by their own rules."""
        e = self.log[i]
        if isinstance(e, TIMED_EVENTS) and e.timed_out is not msgspec.UNSET:
            e = self.untimed(i, e)
        if type(e) is GameStarted:
            return self.stop(i + 2, "log", "a second game_started in one game", None, _plain(e))
        if type(e) is GameEnded:
            return self.game_end(i, e)
        if type(e) is HandDealt and e.explicit:
            return self.explicit_position(i, e)
        cmd = command_of_event(e)
        if cmd is None:
            return self.stop(i + 2, "log", f"{event_type(e)} does not follow from any action here", None, _plain(e))
        return self.rederive(i, e, cmd)

    def untimed(self, i: int, e: _Timed) -> _Timed:
        """A turn the server's bot played when the seat's timer ran out is the same action the
        rules produce, marked as such (the mark is no rule's business): the log's event ``i``
        without the mark, which the rest of the audit reads in its place."""
        plain = msgspec.structs.replace(e, timed_out=msgspec.UNSET)
        self.log[i] = plain
        return plain

    def rederive(self, i: int, e: Event, cmd: Command) -> int:
        """Ask the rules for ``cmd`` again: what they produce must be what the log records from
        event ``i`` on."""
        try:
            expected = decide(self.state, cmd, self.ruleset)
        except VariantFault:  # the rules cannot be run: no finding about the game
            raise
        except Exception as exc:
            return self.judge(i, e, [], exc)
        return self.judge(i, e, expected, None)

    def judge(self, i: int, e: Event, expected: list[Event], refusal: Exception | None) -> int:
        """What the rules produced for the command of the log's event ``i`` (``expected``), or
        why they refused it (``refusal``), against what the log records from event ``i`` on."""
        seq = i + 2
        if len(expected) == 1 and e == expected[0]:  # one event, as recorded: the common case
            # the rules' event is applied, equal to the recorded one field for field (the same
            # position): its cards and seats are the objects the position holds already, whose
            # hashes are known (a recorded event's text is decoded afresh, each string hashed
            # again where the position looks it up)
            evolve(self.state, expected[0])
            return 1 if type(e) is not HandDealt or self.dealt(seq) else 0
        # A deal that the rules re-derive as recorded carries the commitment of its own deck
        # (decide computes it from the same deck); otherwise the commitment is checked first.
        if type(e) is HandDealt and (refusal is not None or expected[0] != e) and not self.commitment_holds(seq, e):
            return 0
        if isinstance(refusal, IllegalAction):
            return self.stop(seq, refusal.rule, f"illegal {event_type(e)}: {refusal.message} [{refusal.code}]", None, _plain(e))
        if refusal is not None:  # a setup error on a deal (wrong deck) and the like
            return self.stop(seq, "A4", f"{event_type(e)} cannot be re-derived: {refusal}", None, _plain(e))
        return self.compare(i, expected)

    def commitment_holds(self, seq: int, dealt: HandDealt) -> bool:
        want = deal_commitment(dealt)
        if dealt.commitment == want:
            return True
        self.finding(seq, "A4", f"the deal's commitment is not what its scheme ({scheme_of(dealt)}) gives for its deck order", want, dealt.commitment)
        return False

    def compare(self, i: int, expected: list[Event]) -> int:
        """The events the rules produce against those recorded from event ``i`` on, one by one;
        equal, they are applied."""
        seq = i + 2
        recorded = self.log[i : i + len(expected)]
        if recorded != expected:  # the first that differs (or is missing) is the finding
            for k, want in enumerate(expected):
                got = recorded[k] if k < len(recorded) else None
                if got != want:
                    rule, message = _divergence(want, got)
                    return self.stop(seq + k, rule, message, _plain(want), _plain(got) if got is not None else None)
        for ev in expected:  # equal to those recorded (see judge)
            evolve(self.state, ev)
            if type(ev) is HandDealt and not self.dealt(seq):
                return 0
        return len(expected)

    def dealt(self, seq: int) -> bool:
        """A hand re-derived and applied: counted, and its cards must be the deck."""
        self.report.hands += 1
        return self.conserved(seq)

    def explicit_position(self, i: int, e: HandDealt) -> int:
        """A hand record's position: no rule makes it, but its cards must be the deck."""
        seq = i + 2
        if self.state.in_hand:
            return self.stop(seq, "log", "a new position while a hand is in play", None, _plain(e))
        evolve(self.state, e)
        if not self.conserved(seq):
            return 0
        self.report.hands += 1
        return 1

    def game_end(self, i: int, e: GameEnded) -> int:
        """The host closes the game: between hands, with the running totals, as the last event."""
        seq = i + 2
        state = self.state
        if state.in_hand:
            return self.stop(seq, "log", "game_ended while a hand is in play", None, _plain(e))
        if e.net and e.net != state.net:
            return self.stop(seq, "A12", "the game's closing net does not equal the sum of its ledgers", state.net, e.net)
        evolve(state, e)
        if i + 1 < len(self.log):  # a duplicate game_ended, or any event after the end
            after = self.log[i + 1]
            return self.stop(seq + 1, "log", f"{event_type(after)} after game_ended: an ended game takes no more events", None, _plain(after))
        return 1

    def conserved(self, seq: int) -> bool:
        """Whether every card of the deck is in exactly one place (A1.1); if not, a finding."""
        problem = conservation_problem(self.state, self.deck, self.deck_set)
        if problem:
            self.finding(seq, "A1.1", problem)
            return False
        return True

    def finding(self, seq: int, rule: str, message: str, expected: object = None, recorded: object = None) -> None:
        self.report.findings.append(Finding(self.report.game_id, seq, self.state.hand_no, rule, message, expected, recorded))

    def stop(self, seq: int, rule: str, message: str, expected: object = None, recorded: object = None) -> int:
        """A finding that ends the audit (what follows rests on a state the rules never reached)."""
        self.finding(seq, rule, message, expected, recorded)
        return 0


def _divergence(want: Event, got: Event | None) -> tuple[str, str]:
    """The rule and the sentence of a recorded event that is not the one the rules produce."""
    rule = "A12" if isinstance(want, HandEnded) else "log"
    what = event_type(want)
    if got is None:
        return rule, f"the log ends where the rules produce {what}"
    if isinstance(want, HandEnded) and isinstance(got, HandEnded):
        return rule, "the hand's recorded ending (totals, ledger or next dealer) is not what the rules produce"
    return rule, f"recorded {event_type(got)} differs from what the rules produce ({what})"
