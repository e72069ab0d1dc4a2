"""One line of plain English for every rule id the engine cites, written from rules.md.

A verdict names a rule by its id: an illegal action cites the rule it breaks (rules.md
B-35, ``V:<variant>`` for a house rule), an audit finding the rule a recorded event
breaks (``A1.1``, ``A4``, ``A12``; ``log`` and ``chain`` for the record itself), and an
ending is settled by a rule of A5 or A12.  :func:`statement` gives the line a person
reads under the id; :func:`ending_rule` and :func:`payment_rule` name the rule of an
ending and of a ledger entry.  Each line is ours, faithful to the rule's text in
``rules.md`` (section A, B or C); ``section`` names the heading it sits under there.
The two ids that are no rule of the game (``log``, ``chain``) cite ``docs/cli-json.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Protocol, Sequence

from .errors import TonkError
from .names import quoted


@dataclass(frozen=True)
class RuleStatement:
    """A rule id, the ``rules.md`` heading it sits under, and its one-line statement."""

    id: str
    section: str
    text: str


class UnknownRule(TonkError, LookupError):
    """A rule id without a statement (a third-party variant's ``V:<name>``, a typo)."""

    def __init__(self, rule_id: str, what: str = "rule id"):
        super().__init__(f"unknown {what} {quoted(rule_id)}; `tonk rules` lists the rule ids")
        self.rule_id = rule_id


_A1 = "A1. Equipment and card values"
_A4 = "A4. The deal"
_A5 = "A5. Initial tonk (49 or 50 in the dealt hand)"
_A6 = "A6. Turn order"
_A7 = "A7. Structure of a turn"
_A8 = "A8. Spreads"
_A9 = "A9. Hitting"
_A12 = 'A12. End of hand and payments ("POST-PLAY (PAYOUT)")'
_B_ENGINE = "Engine-level ambiguities (texts silent)"
_C1 = "C1. Variants in the seed documents"
_C3 = "C3. Card values and deck"
_C4 = "C4. Initial (dealt-hand) tonk"
_C5 = "C5. Turn structure and knocking"
_C6 = "C6. End of hand and payouts"
#: the ids that are no rule of the game: the audit's checks of the record itself
RECORD_SECTION = "the game's record (docs/cli-json.md, audit findings)"

RULES: tuple[RuleStatement, ...] = (
    RuleStatement("A1.1", _A1, "one standard 52-card deck without jokers is used: every card exists once and is in exactly one place"),
    RuleStatement("A4", _A4, "the dealer gives each player five cards one at a time, starting to their left; the next card starts the discard pile and the rest is the stock"),
    RuleStatement("A5.2", _A5, "a player dealt 49 or 50 points shows the hand: it is not played, and that player receives twice the stake from each player"),
    RuleStatement("A5.3", _A5, "if more than one player is dealt 49 or 50 points it is a draw: nobody is paid and a new hand is dealt"),
    RuleStatement("A6.1", _A6, "play begins with the player to the dealer's left and moves clockwise; only the player whose turn it is may act"),
    RuleStatement("A7.1", _A7, "you may knock only at the start of your turn, before drawing: you lay your hand face up, claim the lowest total, and the hand ends"),
    RuleStatement("A7.2", _A7, "unless you knock, you draw exactly one card: the top card of the stock or of the discard pile"),
    RuleStatement("A7.3", _A7, "after drawing and before discarding you may lay spreads and hit spreads with cards from your hand"),
    RuleStatement("A7.4", _A7, "a discard ends your turn; you must have drawn first, and the card must be in your hand"),
    RuleStatement("A8.1", _A8, "a spread is three or more different cards laid face up, a book or a run; fewer than three is never a spread"),
    RuleStatement("A8.2", _A8, "a book is three or four cards of the same rank"),
    RuleStatement("A8.3", _A8, "a run is three or more consecutive cards of one suit, ace low only: Q-K-A and K-A-2 are not runs"),
    RuleStatement("A9.1", _A9, "hitting adds a card from your hand to a spread on the table, yours or another player's, during your turn before discarding"),
    RuleStatement("A9.2", _A9, "a hit must leave the spread valid: a book takes a card of its rank (at most four), a run the next card of its suit at either end"),
    RuleStatement("A12", _A12, "a hand ends by an initial tonk, a tonk out, a last discard, a knock or an exhausted stock, and is settled; nothing more is played in it"),
    RuleStatement("A12.1", _A12, "playing all your cards without discarding is a tonk out: you receive double the stake from each player"),
    RuleStatement("A12.2", _A12, "running out of cards by a discard wins the basic stake from each player"),
    RuleStatement("A12.4", _A12, "a knocker with a total lower than every other player's wins the basic stake from each of them (a tie is not lower, B-01)"),
    RuleStatement("A12.5", _A12, "a knocker who is not lowest pays double the stake to each player with an equal or lower total"),
    RuleStatement("A12.6", _A12, "in addition, whoever actually held the lowest hand receives the basic stake from each other player; tied lowest players are each paid, not by each other (A12.7)"),
    RuleStatement("A12.8", _A12, "if the stock runs dry, the player with the lowest total receives the basic stake from each player; tied lowest players are each paid, not by each other (B-06)"),
    RuleStatement("B-31", _B_ENGINE, "the rules never force an end with an empty stock; a host-set turn cap ends such a hand with no payments"),
    RuleStatement("V:no-initial-discard", _C1, "house rule: no card is turned up after the deal; the first player draws from the stock (or knocks) and the discard pile starts with the first discard"),
    RuleStatement("V:mandatory-laydown", _C1, "house rule: you may not end a turn by discarding while your hand holds a spread, except a book of exactly three aces"),
    RuleStatement("V:double-requires-new-spread", _C1, "house rule: a tonk out pays double only if the player laid a new spread (new_spread_scope); going out by hits only wins the basic stake from each player"),
    RuleStatement("V:jokers-wild", _C3, "house rule: the two jokers are wild and stand for any card a spread needs; which card must be clear"),
    RuleStatement("V:deuces-wild", _C3, "house rule: the four 2s are wild too and stand for any card a spread needs; which card must be clear"),
    RuleStatement("V:initial-tonk-50-only", _C4, "house rule: only a dealt 50 is an initial tonk (not 49): the hand is not played and each player pays it twice the stake; two or more are a draw"),
    RuleStatement("V:initial-tonk-totals", _C4, "house rule: the dealt totals that make an initial tonk are those the table agreed (initial_tonk_totals); each player pays it twice the stake; two or more draw"),
    RuleStatement("V:low-initial-tonk", _C4, "house rule: a dealt total at or below low_tonk_max (13 unless agreed) is an initial tonk too, paid twice the stake by each player; two or more are a draw"),
    RuleStatement("V:multiple-initial-tonks-all-paid", _C4, "house rule: if several players are dealt an initial tonk, each player without one pays each of them twice the stake; tonk players do not pay each other"),
    RuleStatement("V:knock-limit", _C5, "house rule: you may knock only with a hand total at or below the agreed limit"),
    RuleStatement("V:hit-penalty", _C5, "house rule: a player whose spread another player hits may not knock on their next turn; each further hit adds turns"),
    RuleStatement("V:one-hit-per-turn", _C5, "house rule: at most one card may be hit onto spreads per turn"),
    RuleStatement("V:discard-pick-must-meld", _C5, "house rule: the discard-pile top may be taken only to use it at once in a spread or hit, never to keep in hand"),
    RuleStatement("V:hit-runs-only", _C5, "house rule: cards may be hit only onto runs, not onto books"),
    RuleStatement("V:no-rediscard-of-pick", _C5, "house rule: the card taken from the discard pile may not be discarded in the same turn"),
    RuleStatement("V:caught-scheme", _C6, "house rule: when the knocker is caught, who pays whom follows the scheme the table agreed (option caught_scheme, rules.md C6.29), not A12.5-A12.6"),
    RuleStatement("V:stock-tie", _C6, "house rule: if the stock runs dry and two or more players tie for the lowest total, the hand is a draw and nobody is paid"),
    RuleStatement("V:stock-end-immediate", _C6, "house rule: the hand ends once the turn that drew the last stock card is over, and is settled as a dry stock (A12.8)"),
    RuleStatement("log", RECORD_SECTION, "not a rule of the game: a game's log starts with game_started, each event follows from an action, nothing follows game_ended"),
    RuleStatement("chain", RECORD_SECTION, "not a rule of the game: each stored event is linked by hash to the one before it, so no event can change unseen"),
)

_BY_ID: dict[str, RuleStatement] = {r.id: r for r in RULES}

#: an ending's ``type`` (and a knock's ``outcome``) -> the rule that settles it
_ENDING_RULES: dict[str, str] = {
    "initial_tonk": "A5.2",
    "initial_tonk_draw": "A5.3",
    "tonk_out": "A12.1",
    "out_by_discard": "A12.2",
    "knock:knocker_won": "A12.4",
    "knock:knocker_caught": "A12.5",
    "stock_exhausted": "A12.8",
    "turn_cap": "B-31",
}

#: a ledger entry's ``reason`` -> the rule that makes the payment
_PAYMENT_RULES: dict[str, str] = {
    "initial_tonk": "A5.2",
    "tonk_out": "A12.1",
    "out_by_discard": "A12.2",
    "knock_win": "A12.4",
    "caught_penalty": "A12.5",
    "low_hand": "A12.6",
    "stock_exhausted_low": "A12.8",
}


def rule(rule_id: str) -> RuleStatement:
    """The statement of ``rule_id`` with its section; :class:`UnknownRule` if it has none."""
    try:
        return _BY_ID[rule_id]
    except (KeyError, TypeError):
        raise UnknownRule(str(rule_id)) from None


def statement(rule_id: str) -> str:
    """The one-line statement of ``rule_id`` (``"A7.4"`` -> ``"a discard ends your turn; ..."``),
    to print under a verdict that cites it; :class:`UnknownRule` for an id without one."""
    return rule(rule_id).text


def ending_rule(end_type: str, outcome: str | None = None) -> str:
    """The rule id that settles an ending (a verdict's ``end.type`` and, for a knock, its
    ``outcome``); :class:`UnknownRule` for an ending no rule here settles."""
    key = f"{end_type}:{outcome}" if end_type == "knock" else end_type
    try:
        return _ENDING_RULES[key]
    except KeyError:
        raise UnknownRule(key, "ending") from None


def payment_rule(reason: str) -> str:
    """The rule id behind a ledger entry's ``reason``; :class:`UnknownRule` for another reason."""
    try:
        return _PAYMENT_RULES[reason]
    except KeyError:
        raise UnknownRule(reason, "payment reason") from None


def ending_rules() -> dict[str, str]:
    """Every ending this module settles (``type``, or ``knock:<outcome>``) -> its rule id."""
    return dict(_ENDING_RULES)


def payment_rules() -> dict[str, str]:
    """Every ledger ``reason`` -> the rule id that makes the payment."""
    return dict(_PAYMENT_RULES)


class RulesetFacts(Protocol):
    """What the choice of a settling rule reads of a ruleset (a :class:`~tonk.core.ruleset.Ruleset`)."""

    @property
    def variants(self) -> Sequence[str]: ...

    @property
    def options(self) -> Mapping[str, Any]: ...


_BASE_TONK_TOTALS = [49, 50]


def _totals_rule(rules: RulesetFacts) -> str:
    """The rule naming the dealt totals that are an initial tonk: A5 for 49 or 50, else the
    house rule whose option says which (``initial_tonk_totals``, A5.1, C4.12, C4.13)."""
    wanted = sorted(rules.options.get("initial_tonk_totals", _BASE_TONK_TOTALS))
    if wanted == _BASE_TONK_TOTALS:
        return "A5.2"
    return "V:initial-tonk-50-only" if wanted == [50] else "V:initial-tonk-totals"


def _initial_tonk_rule(rules: RulesetFacts, total: int | None) -> str:
    """The rule that made a dealt ``total`` an initial tonk (``None``: not known)."""
    wanted = rules.options.get("initial_tonk_totals", _BASE_TONK_TOTALS)
    if "low-initial-tonk" in rules.variants and (total is None or total not in wanted):
        return "V:low-initial-tonk"
    return _totals_rule(rules)


def _ending_rule_under(rules: RulesetFacts, end: Mapping[str, Any], ledger: Sequence[Mapping[str, Any]], totals: Mapping[str, int]) -> str | None:
    kind = str(end.get("type"))
    variants = rules.variants
    if kind == "initial_tonk":
        return _initial_tonk_rule(rules, totals.get(str(end.get("player"))))
    if kind == "initial_tonk_draw":
        if "multiple-initial-tonks-all-paid" in variants:
            return "V:multiple-initial-tonks-all-paid"
        tonks = {_initial_tonk_rule(rules, totals.get(str(p))) for p in end.get("players") or ()}
        if "V:low-initial-tonk" in tonks:
            return "V:low-initial-tonk"
        base = _totals_rule(rules)
        return "A5.3" if base == "A5.2" else base
    if kind == "tonk_out" and "double-requires-new-spread" in variants:
        return "V:double-requires-new-spread"
    if kind == "knock" and end.get("outcome") == "knocker_caught" and rules.options.get("caught_scheme", "pagat") != "pagat":
        return "V:caught-scheme"
    if kind == "stock_exhausted":
        if rules.options.get("stock_tie", "split_as_catch") == "draw" and not ledger:  # a tie for lowest: nobody paid
            return "V:stock-tie"
        if "stock-end-immediate" in variants:
            return "V:stock-end-immediate"
    try:
        return ending_rule(kind, end.get("outcome"))
    except UnknownRule:  # an ending of a third-party variant
        return None


def _payment_rule_under(rules: RulesetFacts, reason: str, end: Mapping[str, Any], end_rule: str | None) -> str | None:
    if reason == "initial_tonk" and end.get("type") in ("initial_tonk", "initial_tonk_draw") and end_rule not in (None, "A5.3"):
        return end_rule  # paid by the rule that made the tonk (or, all paid, the draw)
    if reason == "tonk_out" and "double-requires-new-spread" in rules.variants:
        return "V:double-requires-new-spread"
    if reason in ("caught_penalty", "low_hand") and rules.options.get("caught_scheme", "pagat") != "pagat":
        return "V:caught-scheme"
    try:
        return payment_rule(reason)
    except UnknownRule:  # a payment of a third-party variant
        return None


def settling_rules(
    rules: RulesetFacts,
    end: Mapping[str, Any] | None,
    ledger: Iterable[Mapping[str, Any]],
    totals: Mapping[str, int],
) -> tuple[str | None, dict[str, str]]:
    """The rule that settles a verdict's ending and, per ledger ``reason``, the rule that
    makes those payments, under the ruleset ``rules`` (its variants and resolved options):
    a house rule of section C (``V:<variant>``) where it or a non-default option changes the
    settlement (a caught scheme, a dry-stock draw, other initial-tonk totals, ...), the base
    rule of A5/A12 otherwise.  ``end``, ``ledger`` and ``totals`` are the verdict's
    ``end``, ``ledger`` and ``hand_totals`` (an initial tonk's rule depends on the dealt
    total).  ``(None, {})`` for a hand that has not ended; a reason or ending of a
    third-party variant has no rule here and is left out."""
    if end is None:
        return None, {}
    entries = list(ledger)
    end_rule = _ending_rule_under(rules, end, entries, totals)
    payments: dict[str, str] = {}
    for entry in entries:
        reason = str(entry.get("reason"))
        if reason not in payments:
            rule_id = _payment_rule_under(rules, reason, end, end_rule)
            if rule_id is not None:
                payments[reason] = rule_id
    return end_rule, payments
