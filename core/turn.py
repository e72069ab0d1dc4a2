"""decide(state, command, ruleset) -> events: the one place the rules are consulted.

The turn structure of the base game lives here, one function per action:
knock (A7.1), draw from the stock (A7.2, A11.2) or the discard pile (A7.2),
lay a spread (A7.3, A8), hit (A9), discard (A7.4, A10); and the deal (A4, A5).
What a variant can change is asked of the ruleset's hooks.  An illegal
command raises :class:`IllegalAction` and changes nothing: ``decide`` never
mutates the state.
"""

from __future__ import annotations

from typing import Callable

import msgspec

from .commands import DealHand, Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread, PlayerCommand
from .commitment import commit, draw_blind, is_salt, plain_commitment
from .dealing import deal, shuffled
from .fair_deal import SCHEME as FAIR_SCHEME, client_seed_problem, fair_deck
from .errors import IllegalAction, RulesetError, SetupError
from .events import (
    CardDiscarded,
    CardDrawn,
    CardHit,
    EmptyStockCalled,
    Event,
    HandDealt,
    HandEnded,
    Knocked,
    SpreadLaid,
)
from .ruleset import Ruleset
from .settlement import Ending
from .state import State, evolve

# --- ending a hand ---------------------------------------------------------------------


def totals_of(state: State, ruleset: Ruleset, hands: dict[str, list[str]] | None = None) -> dict[str, int]:
    hands = state.hands if hands is None else hands
    pts = ruleset.points
    totals: dict[str, int] = {}
    # plain loops: ``sum(map(pts.__getitem__, hand))`` calls a slot wrapper per card (about
    # 40 % more instructions for a hand of five); the same sums, the same KeyError
    for p in state.players:
        t = 0
        for c in hands[p]:
            t += pts[c]
        totals[p] = t
    return totals


def end_hand(state: State, ruleset: Ruleset, ending: Ending, hands: dict[str, list[str]]) -> HandEnded:
    """The ``hand_ended`` event for an ending: totals, ledger, next dealer (B-21: always to the left)."""
    ledger = ruleset.hooks.tonk_settle(ending, state, ruleset) or ()
    players = state.players
    final: dict[str, tuple[str, ...]] = {}  # a plain loop (cheaper than a comprehension; once a hand)
    for p in players:
        final[p] = tuple(hands[p])
    return HandEnded(
        hand_no=state.hand_no,
        end=ending.end,
        hands=final,
        totals=dict(ending.totals),
        ledger=tuple(ledger),
        next_dealer=state.left_of(state.dealer),
        player=ending.player,
        players=tuple(ending.players),
        outcome=ending.outcome,
    )


def _ending(state: State, ruleset: Ruleset, end: str, player: str | None, hands: dict[str, list[str]], **kw) -> Ending:
    return Ending(end=end, seats=state.players, totals=totals_of(state, ruleset, hands), player=player, **kw)


def _hands_after(state: State, player: str, remove: tuple[str, ...] = (), add: tuple[str, ...] = ()) -> dict[str, list[str]]:
    hands = dict(state.hands)
    h = list(hands[player])
    for c in remove:
        h.remove(c)
    h.extend(add)
    hands[player] = h
    return hands


def _post_state(state: State, events: list[Event], ruleset: Ruleset | None = None) -> State:
    """The state after ``events`` (on a copy), for settlement hooks that look at the final position.

    With ``ruleset`` given and a settlement that reads only the ending, never the position
    (``ruleset.settle_reads_state`` false), ``state`` itself is returned instead of a copy:
    only for events that leave the hand number, the seats and the dealer alone, which is
    all :func:`end_hand` reads of it then."""
    if ruleset is not None and not ruleset.settle_reads_state:
        return state
    s = state.copy()
    for e in events:
        evolve(s, e)
    return s


# --- checks shared by the actions ---------------------------------------------------------


def _veto(state: State, command, ruleset: Ruleset) -> None:
    if ruleset.has_vetoes:
        v = ruleset.veto(state, command)
        if v is not None:
            raise v


def _must_have_drawn(state: State, what: str, rule: str) -> None:
    if state.drew is None:
        raise IllegalAction("MUST_DRAW_FIRST", rule, f"draw a card before you {what} (a turn starts with a draw)")


def _in_hand(state: State, player: str, card: str, rule: str) -> None:
    if card not in state.hands[player]:
        raise IllegalAction("CARD_NOT_IN_HAND", rule, f"{card} is not in {player}'s hand")


# --- the actions -------------------------------------------------------------------------


# Each action has a ``verify_<action>`` that raises the violation the command commits in
# this position (or returns what the check found, e.g. the spread's shape), and the action
# itself is its verify plus the events.  ``can`` (and the legal actions) ask the same
# verify functions, so each rule is written once.


def verify_knock(state: State, cmd: Knock, ruleset: Ruleset) -> None:
    """A7.1: a knock comes at the start of one's turn (or before discarding with knock-before-discard)."""
    if state.drew is not None and ruleset.knock_timing == "start_of_turn":
        raise IllegalAction("KNOCK_NOT_AT_TURN_START", "A7.1", "a knock is only allowed at the start of your turn, before drawing")
    if ruleset.has_vetoes:
        _veto(state, cmd, ruleset)


def knock(state: State, cmd: Knock, ruleset: Ruleset) -> list[Event]:
    """A7.1: knock; every hand is counted (A12.3) and the outcome settled (A12.4-A12.7)."""
    verify_knock(state, cmd, ruleset)
    p = cmd.player
    totals = totals_of(state, ruleset)
    outcome = ruleset.hooks.tonk_knock_outcome(p, totals, ruleset)
    ending = Ending(end="knock", seats=state.players, totals=totals, player=p, outcome=outcome)
    first = Knocked(player=p)
    after = _post_state(state, [first]) if ruleset.settle_reads_state else state  # as _post_state(state, [first], ruleset)
    return [first, end_hand(after, ruleset, ending, state.hands)]


def verify_draw_stock(state: State, cmd, ruleset: Ruleset) -> None:
    """A7.2: exactly one draw a turn; then the variants' vetoes.  Asking for an empty stock
    is allowed (it ends the hand, A11.2).  Every draw is verified by this."""
    if state.drew is not None:
        raise IllegalAction("ALREADY_DREW", "A7.2", "you have already drawn this turn: exactly one card is drawn per turn")
    if ruleset.has_vetoes:
        _veto(state, cmd, ruleset)


def draw_stock(state: State, cmd: DrawStock, ruleset: Ruleset) -> list[Event]:
    """A7.2: take the stock top; with an empty stock the request ends the hand (A11.2, B-18, A12.8)."""
    verify_draw_stock(state, cmd, ruleset)
    p = cmd.player
    if not state.stock:
        first = EmptyStockCalled(player=p)
        ending = _ending(state, ruleset, "stock_exhausted", p, state.hands)
        return [first, end_hand(_post_state(state, [first], ruleset), ruleset, ending, state.hands)]
    dealt = state.dealt
    if dealt is not None and isinstance(dealt.salt, str):  # a salted deal: the draw's hash must not name the card
        blind = draw_blind(dealt.salt, dealt.hand_no, len(dealt.stock) - len(state.stock))
        return [CardDrawn(player=p, source="stock", card=state.stock[-1], blind=blind)]
    return [CardDrawn(player=p, source="stock", card=state.stock[-1])]


def verify_draw_discard(state: State, cmd: DrawDiscard, ruleset: Ruleset) -> None:
    """A7.2: one draw a turn (as from the stock), from a discard pile that holds a card (B-29)."""
    verify_draw_stock(state, cmd, ruleset)
    if not state.discard:
        raise IllegalAction("DISCARD_PILE_EMPTY", "A7.2", "the discard pile is empty: draw from the stock")


def draw_discard(state: State, cmd: DrawDiscard, ruleset: Ruleset) -> list[Event]:
    """A7.2: take the top card of the discard pile (only the top is usable, A7.5)."""
    verify_draw_discard(state, cmd, ruleset)
    return [CardDrawn(player=cmd.player, source="discard", card=state.discard[-1])]


def _tonk_out_if_empty(state: State, ruleset: Ruleset, first: Event, hands: dict[str, list[str]], player: str) -> list[Event]:
    if hands[player]:
        return [first]
    after = _post_state(state, [first], ruleset)
    ending = _ending(state, ruleset, "tonk_out", player, hands)
    return [first, end_hand(after, ruleset, ending, hands)]


def verify_lay_spread(state: State, cmd: LaySpread, ruleset: Ruleset):
    """A7.3, A8: after drawing, a book or run of cards held; returns the spread's shape."""
    p = cmd.player
    _must_have_drawn(state, "lay a spread", "A7.3")
    hand = state.hands[p]
    for c in cmd.cards:
        if c not in hand:
            raise IllegalAction("CARD_NOT_IN_HAND", "A7.3", f"{c} is not in {p}'s hand")
    shape = ruleset.hooks.tonk_check_spread(list(cmd.cards), dict(cmd.jokers_as), ruleset)
    if ruleset.has_vetoes:
        _veto(state, cmd, ruleset)
    return shape


def lay_spread(state: State, cmd: LaySpread, ruleset: Ruleset) -> list[Event]:
    """A7.3, A8: lay a new book or run from hand, after drawing."""
    shape = verify_lay_spread(state, cmd, ruleset)
    p = cmd.player
    sid = f"S{state.next_spread_no}"
    ev = SpreadLaid(player=p, spread_id=sid, kind=shape.kind, cards=tuple(shape.cards), jokers_as=dict(shape.jokers_as))
    return _tonk_out_if_empty(state, ruleset, ev, _hands_after(state, p, remove=tuple(cmd.cards)), p)


def verify_hit(state: State, cmd: Hit, ruleset: Ruleset):
    """A9: after drawing, a card held that fits a spread on the table; returns the spread
    and its shape after the hit."""
    _must_have_drawn(state, "hit a spread", "A7.3")
    _in_hand(state, cmd.player, cmd.card, "A9.1")
    spread = state.table.get(cmd.target)
    if spread is None:
        raise IllegalAction("NO_SUCH_SPREAD", "A9.1", f"there is no spread {cmd.target!r} on the table")
    shape = ruleset.hooks.tonk_check_hit(spread, cmd.card, cmd.joker_as, ruleset)
    if ruleset.has_vetoes:
        _veto(state, cmd, ruleset)
    return spread, shape


def hit(state: State, cmd: Hit, ruleset: Ruleset) -> list[Event]:
    """A9: add one card from hand to any spread on the table (B-13, B-15)."""
    spread, shape = verify_hit(state, cmd, ruleset)
    p = cmd.player
    ev = CardHit(player=p, spread_id=spread.id, card=cmd.card, cards=tuple(shape.cards), jokers_as=dict(shape.jokers_as))
    if len(state.hands[p]) > 1:  # cards left after the hit: no tonk out (the card is in hand)
        return [ev]
    return _tonk_out_if_empty(state, ruleset, ev, _hands_after(state, p, remove=(cmd.card,)), p)


def verify_discard(state: State, cmd: Discard, ruleset: Ruleset) -> None:
    """A7.4: after drawing, a card held."""
    # _must_have_drawn(state, "discard", "A7.4") and _in_hand(state, p, cmd.card, "A7.4"),
    # each asked only when it raises: a discard is half of all actions (docs/benchmarks.md);
    # B-35: both cite the discard rule A7.4
    if state.drew is None:
        _must_have_drawn(state, "discard", "A7.4")
    if cmd.card not in state.hands[cmd.player]:
        _in_hand(state, cmd.player, cmd.card, "A7.4")
    if ruleset.has_vetoes:
        _veto(state, cmd, ruleset)


def discard(state: State, cmd: Discard, ruleset: Ruleset) -> list[Event]:
    """A7.4, A10.2: discard to end the turn; an empty hand after it is out by discard (A12.2)."""
    verify_discard(state, cmd, ruleset)
    p = cmd.player
    hand = state.hands[p]
    ev = CardDiscarded(player=p, card=cmd.card)
    if len(hand) == 1:  # the last card (it is in hand): out by discard
        hands = _hands_after(state, p, remove=(cmd.card,))
        ending = _ending(state, ruleset, "out_by_discard", p, hands)
        return [ev, end_hand(_post_state(state, [ev], ruleset), ruleset, ending, hands)]
    if not ruleset.has_turn_end and not (ruleset.max_turns and state.turn_no >= ruleset.max_turns):
        return [ev]
    hands = _hands_after(state, p, remove=(cmd.card,))
    after = None
    if ruleset.has_turn_end:
        after = _post_state(state, [ev])
        req = ruleset.turn_end(after, p)
        if req is not None:
            ending = _ending(state, ruleset, req.end, req.player, hands)
            if req.end == "knock":
                if req.player is None:
                    raise RulesetError("a variant ended the hand by a knock (tonk_turn_end) without naming the knocker")
                ending.outcome = ruleset.knock_outcome(req.player, ending.totals)
            return [ev, end_hand(after, ruleset, ending, hands)]
    if ruleset.max_turns and state.turn_no >= ruleset.max_turns:
        after = after or _post_state(state, [ev], ruleset)
        ending = _ending(state, ruleset, "turn_cap", None, hands)
        return [ev, end_hand(after, ruleset, ending, hands)]
    return [ev]


#: each player command's rules: its verify function (raising the violation the command
#: commits) and its action (the verify function, then the events)
RULES: dict[type[PlayerCommand], tuple[Callable[..., object], Callable[..., list[Event]]]] = {
    Knock: (verify_knock, knock),
    DrawStock: (verify_draw_stock, draw_stock),
    DrawDiscard: (verify_draw_discard, draw_discard),
    LaySpread: (verify_lay_spread, lay_spread),
    Hit: (verify_hit, hit),
    Discard: (verify_discard, discard),
}
VERIFY = {command: verify for command, (verify, _) in RULES.items()}
_ACTIONS = {command: action for command, (_, action) in RULES.items()}


def deal_hand(state: State, cmd: DealHand, ruleset: Ruleset) -> list[Event]:
    """A4, A5: deal the next hand from a deck order or a seeded shuffle; settle initial tonks."""
    if not state.players:
        raise SetupError("no game has been started")
    if state.in_hand:
        raise IllegalAction("HAND_OVER", "A12", "a hand is still in play; it must end before the next deal")
    if state.game_over:
        raise SetupError("the game is over")
    n = len(state.players)
    ruleset.check_seats(n)
    if cmd.server_seed is not None:
        deck = _fair_deck(state, cmd, ruleset)
    elif cmd.deck is not None:
        deck = tuple(cmd.deck)
        # the same test as comparing sorted lists, since the ruleset's deck holds each card
        # once (Ruleset refuses a deck with a card twice): as many cards as the deck, and
        # every card of the deck among them, is each card exactly once and nothing else
        # (asked as what the deck's set lacks: cheaper than building the deal's own set)
        if len(deck) != len(ruleset.deck) or ruleset.deck_set.difference(deck):
            raise SetupError("the deck given is not exactly the ruleset's deck (every card once)")
    elif cmd.seed is not None:
        deck = tuple(shuffled(ruleset.deck, cmd.seed))
    else:
        raise SetupError("a deal needs a deck order or a seed")
    dealer = state.dealer
    hands, disc, stock = deal(deck, state.players, dealer, ruleset.deal_size(n), ruleset.upcard)
    if cmd.salt is not None:
        return _salted_deal(state, cmd, deck, dealer, hands, disc, stock, ruleset)
    dealt = HandDealt(
        hand_no=state.hand_no + 1,
        dealer=dealer,
        first_player=state.left_of(dealer),
        deck=deck,
        commitment=plain_commitment(deck),
        hands=hands,
        discard=disc,
        stock=stock,
    )
    return [dealt] + initial_tonk_events(state, dealt, ruleset)


def _fair_deck(state: State, cmd: DealHand, ruleset: Ruleset) -> tuple[str, ...]:
    """The ``tonk-deal-v1`` deck of the next hand (served tables: ``core.fair_deal``)."""
    if cmd.salt is None or cmd.client_seeds is None or cmd.deck is not None or cmd.seed is not None:
        raise SetupError("a fair deal needs the server seed, every seat's client seed and a salt, and no deck or seed")
    unknown = set(cmd.client_seeds) - set(state.players)
    if unknown:
        raise SetupError(f"client seeds for seats not at the table: {', '.join(sorted(unknown))}")
    for seat, seed in cmd.client_seeds.items():
        if seed and client_seed_problem(seed):
            raise SetupError(f"{seat}: {client_seed_problem(seed)}")
    return fair_deck(cmd.server_seed, state.hand_no + 1, state.players, cmd.client_seeds, ruleset.deck)  # type: ignore[arg-type]


def _salted_deal(state: State, cmd: DealHand, deck: tuple[str, ...], dealer: str, hands, disc, stock, ruleset: Ruleset) -> list[Event]:
    """A deal committed with the salted scheme (served tables); a fair deal records its seeds."""
    salt = cmd.salt or ""
    if not is_salt(salt):
        raise SetupError("a deal's salt must be 64 lowercase hex characters")
    scheme, com = commit(deck, salt)
    dealt = HandDealt(
        hand_no=state.hand_no + 1,
        dealer=dealer,
        first_player=state.left_of(dealer),
        deck=deck,
        commitment=com,
        hands=hands,
        discard=disc,
        stock=stock,
        commitment_scheme=scheme,
        salt=salt,
    )
    if cmd.client_seeds is not None:  # a fair deal (from its seeds, or its record re-derived by the audit)
        dealt = msgspec.structs.replace(
            dealt,
            deal_scheme=FAIR_SCHEME,
            nonce=dealt.hand_no,
            client_seeds={p: (cmd.client_seeds or {}).get(p, "") for p in state.players},
            not_sat=tuple(cmd.not_sat) if cmd.not_sat else msgspec.UNSET,
        )
    return [dealt] + initial_tonk_events(state, dealt, ruleset)


def initial_tonk_events(state: State, dealt: HandDealt, ruleset: Ruleset) -> list[Event]:
    """A5, B-19: the initial-tonk check right after the deal, before the first turn."""
    pts = ruleset.points
    dealt_hands = dealt.hands
    totals = {}  # a plain loop: the check follows every deal, and most find no tonk
    for p in state.players:  # the seats are those of the deal
        t = 0
        for c in dealt_hands[p]:  # as in totals_of
            t += pts[c]
        totals[p] = t
    tonkers = ruleset.hooks.tonk_initial_tonks(dealt_hands, totals, ruleset)
    if not tonkers:
        return []
    hands = {p: list(h) for p, h in dealt.hands.items()}
    after = _post_state(state, [dealt])
    if len(tonkers) == 1:
        ending = Ending(end="initial_tonk", seats=state.players, totals=totals, player=tonkers[0])
    else:
        ending = Ending(end="initial_tonk_draw", seats=state.players, totals=totals, players=tuple(tonkers))
    return [end_hand(after, ruleset, ending, hands)]


def verify_turn(state: State, command) -> None:
    """A hand is in play (A12) and it is the command's player's turn (A6.1)."""
    if not state.in_hand:
        if state.last_ending is not None:
            raise IllegalAction("HAND_OVER", "A12", "the hand has already ended")
        raise IllegalAction("HAND_OVER", "A12", "no hand is in play")
    p = command.player
    if p != state.to_act:
        if p not in state.seat_of:
            raise IllegalAction("NOT_YOUR_TURN", "A6.1", f"{p!r} is not a player at this table")
        raise IllegalAction("NOT_YOUR_TURN", "A6.1", f"it is {state.to_act}'s turn, not {p}'s")


def verify(state: State, command, ruleset: Ruleset) -> None:
    """Raise the :class:`IllegalAction` a player command commits now; return if it is legal."""
    check = VERIFY.get(type(command))
    if check is None:
        raise TypeError(f"not a player command: {command!r}")
    verify_turn(state, command)
    check(state, command, ruleset)


def can(state: State, command, ruleset: Ruleset) -> bool:
    """Whether a player command is legal now (:func:`verify` raises nothing)."""
    try:
        verify(state, command, ruleset)
    except IllegalAction:
        return False
    return True


def decide(state: State, command, ruleset: Ruleset) -> list[Event]:
    """The events a command produces, or :class:`IllegalAction` (nothing changes): the
    action's verify function, then its events."""
    action = _ACTIONS.get(type(command))
    if action is None:
        if type(command) is DealHand:
            return deal_hand(state, command, ruleset)
        raise TypeError(f"not a command: {command!r}")
    if not state.in_hand or command.player != state.to_act:  # verify_turn passes otherwise
        verify_turn(state, command)
    return action(state, command, ruleset)
