"""Re-adjudicating a recorded game under other house rules ("what if we had played with ...?").

:func:`reconsider` takes a recorded game's events and another
:class:`~tonk.core.ruleset.Ruleset` and plays every hand again: the same
dealer, the same deck order (the deal is re-made from the recorded order, so a
variant that deals differently deals differently from the same cards), and
the same recorded actions in the same order, each asked of ``decide`` under
the other rules.  For each hand it reports which action would have been
illegal (sequence number, violation code, rule id and sentence) and how the
hand's ending and ledger would differ from what was recorded.

Decisions (documented here and in ``docs/cli-json.md``):

* **An illegal action stops that hand.**  Every later action of the hand rests
  on a position the other rules never reach (skipping the action would, for a
  draw, shift every later card), so the hand's re-adjudication stops at the
  first illegal action: its status is ``stopped``, its ending and ledger under
  the other rules are unknown (``null``), and the actions after it are counted
  as ``unplayed``.  The next hand is re-adjudicated from its own recorded deal
  as usual.
* **A hand that ends earlier** under the other rules (an initial tonk the
  original rules did not have, a turn cap, a variant's end of turn) is
  ``ended_early``: its ending and ledger are compared, and the recorded actions
  after the end are ``unplayed``.
* **A hand still in play** after its last recorded action (the recording ended
  it by a rule the other rules lack, e.g. a turn cap) is ``unfinished``: no
  ending, no ledger.
* **A recorded deal the other rules cannot make** (a different deck, e.g. with
  jokers; too few cards for the deal size) makes the hand ``not_comparable``.
* Every hand is dealt by its recorded dealer, whatever the other rules' dealer
  rotation, so that hands stay comparable one by one.  The other rules' net is
  the sum of the ledgers of the hands that ended under them (``complete`` says
  whether every recorded hand did).
* A different ``base_stake`` makes a hand ``different`` when its payout in
  money (ledger units times the stake) changes, even if the units do not.
* Options: ``--variant`` gives the whole variant list (``classic`` alone means
  the base game); an option not given with ``--option`` keeps its recorded
  value when the other ruleset declares it through the base game or a variant
  the recording also used (the stake, the turn cap), otherwise its default.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import msgspec

from ..core.audit import command_of_event
from ..core.commands import DealHand, describe_command
from ..core.turn import decide
from ..core.errors import IllegalAction, RulesetError, SetupError
from ..core.events import Event, GameEnded, GameStarted, HandDealt, HandEnded, RulesetSpec
from ..core.ruleset import Ruleset
from ..core.settlement import net_of
from ..core.state import State, evolve

# --- results -------------------------------------------------------------------------------


class IllegalStep(msgspec.Struct, frozen=True):
    """A recorded action the other rules forbid."""

    seq: int
    player: str
    action: str
    code: str
    rule: str
    message: str


class Outcome(msgspec.Struct, frozen=True):
    """How a hand ended and what it paid: ``net`` is each player's gain in the hand."""

    end: str
    player: str | None
    players: tuple[str, ...]
    outcome: str | None
    totals: dict[str, int]
    ledger: list[dict[str, Any]]
    net: dict[str, int]


class HandReconsidered(msgspec.Struct):
    """One hand under the other rules.

    ``status``: ``same`` (same ending and ledger), ``different`` (every action
    legal, another ending or ledger), ``ended_early``, ``stopped`` (an action
    became illegal), ``unfinished`` or ``not_comparable`` (see the module doc).
    """

    hand_no: int
    dealer: str
    status: str
    actions: int
    replayed: int
    unplayed: int
    recorded: Outcome | None
    reconsidered: Outcome | None
    illegal: list[IllegalStep] = []
    differences: list[str] = []
    note: str | None = None


class Reconsideration(msgspec.Struct):
    game_id: str
    recorded_rules: RulesetSpec
    rules: RulesetSpec
    hands: list[HandReconsidered]
    recorded_net: dict[str, int]
    net: dict[str, int]
    complete: bool

    @property
    def changed(self) -> bool:
        return any(h.status != "same" for h in self.hands)


# --- the work ----------------------------------------------------------------------------------


def _outcome(ended: HandEnded, players: tuple[str, ...]) -> Outcome:
    net = net_of(players, ended.ledger)
    return Outcome(
        end=ended.end,
        player=ended.player,
        players=tuple(ended.players),
        outcome=ended.outcome,
        totals=dict(ended.totals),
        ledger=[msgspec.to_builtins(p) for p in ended.ledger],
        net=net,
    )


def _differences(rec: Outcome, new: Outcome) -> list[str]:
    out = []
    if (rec.end, rec.player, rec.players, rec.outcome) != (new.end, new.player, new.players, new.outcome):
        out.append(f"ending: {_end_text(rec)} -> {_end_text(new)}")
    for p in rec.totals:
        if rec.totals.get(p) != new.totals.get(p):
            out.append(f"total of {p}: {rec.totals.get(p)} -> {new.totals.get(p)}")
    for p in rec.net:
        if rec.net.get(p) != new.net.get(p):
            out.append(f"payout to {p}: {rec.net.get(p, 0):+d} -> {new.net.get(p, 0):+d}")
    if not any(d.startswith("payout") for d in out) and rec.ledger != new.ledger:
        out.append("ledger lines differ (same net per player)")
    return out


def _stake_differences(rec: Outcome, new: Outcome, rec_options: Mapping[str, Any], new_options: Mapping[str, Any]) -> list[str]:
    """Ledgers are in stake units; under another ``base_stake`` the same units move other
    money, and that is a difference a player cares about (decision: docs/decisions.md)."""
    a, b = rec_options.get("base_stake", 1), new_options.get("base_stake", 1)
    if a == b:
        return []
    return [
        f"money to {p} at stake {a} -> {b}: {rec.net.get(p, 0) * a:+d} -> {new.net.get(p, 0) * b:+d}"
        for p in rec.net
        if rec.net.get(p, 0) * a != new.net.get(p, 0) * b
    ]


def _end_text(o: Outcome) -> str:
    who = o.player or ", ".join(o.players)
    text = f"{o.end}" + (f" by {who}" if who else "")
    return text + (f" ({o.outcome})" if o.outcome else "")


def _split_hands(events: Sequence[Event]) -> list[tuple[int, list[tuple[int, Event]]]]:
    """Each hand's events with their 1-based sequence numbers, starting at its ``hand_dealt``."""
    hands: list[tuple[int, list[tuple[int, Event]]]] = []
    for seq, e in enumerate(events, start=1):
        if type(e) is HandDealt:
            hands.append((seq, [(seq, e)]))
        elif type(e) is GameEnded:
            continue
        elif hands:
            hands[-1][1].append((seq, e))
    return hands


def reconsider(events: Iterable[Event], ruleset: Ruleset) -> Reconsideration:
    """Play every recorded hand again under ``ruleset`` (see the module doc for what is compared)."""
    events = list(events)
    first = events[0] if events else None
    if not isinstance(first, GameStarted):
        raise SetupError("a game's log must start with game_started")
    players = tuple(first.players)
    recorded_net = {p: 0 for p in players}
    net = {p: 0 for p in players}
    complete = True
    results: list[HandReconsidered] = []
    for _, hand in _split_hands(events):
        dealt = hand[0][1]
        assert isinstance(dealt, HandDealt)
        recorded_end = next((e for _, e in hand if type(e) is HandEnded), None)
        recorded = _outcome(recorded_end, players) if recorded_end is not None else None
        if recorded is not None:
            for p, n in recorded.net.items():
                recorded_net[p] += n
        actions = [(seq, cmd) for seq, e in hand[1:] if (cmd := command_of_event(e)) is not None]
        result = _reconsider_hand(first, dealt, actions, ruleset, net, recorded)
        results.append(result)
        if result.reconsidered is not None and result.status not in ("stopped", "unfinished", "not_comparable"):
            for p, n in result.reconsidered.net.items():
                net[p] += n
        else:
            complete = False
    return Reconsideration(
        game_id=first.game_id,
        recorded_rules=first.ruleset,
        rules=ruleset.spec,
        hands=results,
        recorded_net=recorded_net,
        net=net,
        complete=complete,
    )


def _reconsider_hand(
    first: GameStarted,
    dealt: HandDealt,
    actions: list[tuple[int, Any]],
    ruleset: Ruleset,
    net: dict[str, int],
    recorded: Outcome | None,
) -> HandReconsidered:
    state = evolve(State(), msgspec.structs.replace(first, dealer=dealt.dealer, ruleset=ruleset.spec))
    state.hand_no = dealt.hand_no - 1
    state.net = dict(net)

    def result(status: str, replayed: int, unplayed: int, reconsidered: Outcome | None = None, **more: Any) -> HandReconsidered:
        return HandReconsidered(
            hand_no=dealt.hand_no, dealer=dealt.dealer, status=status, actions=len(actions), replayed=replayed, unplayed=unplayed,
            recorded=recorded, reconsidered=reconsidered, **more,
        )

    note = None
    if dealt.explicit:
        evolve(state, dealt)
    else:
        try:
            for e in decide(state, DealHand(deck=tuple(dealt.deck)), ruleset):
                evolve(state, e)
        except (SetupError, IllegalAction, RulesetError) as exc:
            return result(
                "not_comparable", 0, len(actions),
                note=f"the recorded deal cannot be made under these rules: {getattr(exc, 'message', None) or exc}",
            )
        redealt = state.dealt
        if redealt is not None and dict(redealt.hands) != dict(dealt.hands):
            note = "the same deck order deals other hands under these rules"
    replayed = 0
    for i, (seq, cmd) in enumerate(actions):
        if not state.in_hand:
            break
        try:
            produced = decide(state, cmd, ruleset)
        except IllegalAction as exc:
            step = IllegalStep(seq, cmd.player, describe_command(cmd), exc.code, exc.rule, exc.message)
            return result("stopped", replayed, len(actions) - i - 1, illegal=[step], note=note)
        for e in produced:
            evolve(state, e)
        replayed += 1
    unplayed = len(actions) - replayed
    if state.in_hand:
        return result("unfinished", replayed, 0, note=note)
    assert state.last_ending is not None
    new = _outcome(state.last_ending, first.players)
    if recorded is None:
        diffs = ["the recording does not end this hand"]
        status = "different"
    else:
        diffs = _differences(recorded, new) + _stake_differences(recorded, new, first.ruleset.options, ruleset.options)
        status = "different" if diffs else "same"
    if unplayed:
        status = "ended_early"
        diffs.insert(0, f"the hand ends after {replayed} of {len(actions)} recorded actions")
    return result(status, replayed, unplayed, new, differences=diffs, note=note)


def to_builtins(r: Reconsideration) -> dict[str, Any]:
    """Plain data for ``--json`` (see docs/cli-json.md)."""
    return msgspec.to_builtins(r)


__all__ = [
    "reconsider",
    "Reconsideration",
    "HandReconsidered",
    "IllegalStep",
    "Outcome",
    "to_builtins",
]
