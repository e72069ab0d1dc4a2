"""Legal actions for the player to act, consistent with ``decide``.

Two ways to the same list:

* :func:`legal_actions_checked` generates candidates from the position
  (draws, knocks, every spread the ruleset can form from the hand, every card
  on every spread, every discard) and keeps each one only if ``decide``
  accepts it.  Consistent with ``decide`` by construction, and slow: every
  knock candidate settles a whole hand.
* :func:`legal_actions` is the fast path used in play and simulation.  When
  the ruleset has no veto hooks, ``decide`` accepts a candidate exactly when
  its base-game checks pass (whose turn, draw first, cards held, a non-empty
  discard pile) and the ruleset's spread or hit check does not raise
  :class:`IllegalAction`; those checks are made directly, in the same order,
  without building events or settling a hand.  With veto hooks it falls back
  to the checked path.  This relies on the hookspecs' contract that only the
  spread and hit checks and vetoes forbid actions (settlement, knock outcome
  and turn-end hooks never raise ``IllegalAction``); the tests compare both
  paths, list for list, on random positions under every installed variant.
"""

from __future__ import annotations

from .cards import ORDER_OF, RANK_OF, STANDARD_DECK, SUIT_OF, SUITS
from .commands import Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
from .turn import decide, shortcuts
from .errors import IllegalAction
from .ruleset import Ruleset
from .state import State


def candidate_actions(state: State, ruleset: Ruleset) -> list:
    """Every action worth asking ``decide`` about (a superset of the legal ones)."""
    if not state.in_hand:
        return []
    p = state.to_act
    if state.drew is None:
        return [Knock(p), DrawStock(p), DrawDiscard(p)]
    hand = state.hands[p]
    out: list = []
    if ruleset.knock_timing == "before_discard":
        out.append(Knock(p))
    for shape in ruleset.spread_candidates(hand):
        cards = tuple(shape.cards)
        out.append(LaySpread(p, cards, dict(shape.jokers_as)) if shape.jokers_as else LaySpread(p, cards))
    for spread in state.table.values():
        for card in dict.fromkeys(hand):
            for joker_as in ruleset.hit_options(spread, card):
                out.append(Hit(p, card, spread.id, joker_as))
    for card in dict.fromkeys(hand):
        out.append(Discard(p, card))
    return out


def is_legal(state: State, command, ruleset: Ruleset) -> bool:
    try:
        decide(state, command, ruleset)
    except IllegalAction:
        return False
    return True


def legal_actions_checked(state: State, ruleset: Ruleset) -> list:
    """The legal actions, each candidate confirmed by ``decide`` (the reference path)."""
    return [c for c in candidate_actions(state, ruleset) if is_legal(state, c, ruleset)]


def _could_fit_classic(spread, card: str) -> bool:
    """A necessary condition for the base game's hit check to accept ``card`` on ``spread``:
    a book takes only its rank while it has fewer than four cards; a run takes only the
    next card of its suit at either end (A9.2)."""
    cards = spread.cards
    if spread.kind == "book":
        return RANK_OF[card] == RANK_OF[cards[0]] and len(cards) < 4
    if SUIT_OF[card] != SUIT_OF[cards[0]]:
        return False
    o = ORDER_OF[card]
    return o == ORDER_OF[cards[-1]] + 1 or o == ORDER_OF[cards[0]] - 1


# One bit per natural card, suit-major (suit * 16 + rank order): a hand's bits show at once
# whether it holds three consecutive cards of a suit.  And a count per rank, one 4-bit
# field per rank order (a natural card adds 1 << (rank order * 4)): a rank held three or
# four times shows as a field with its 4-bit or both its 2-bit and 1-bit set (a count of 3
# to 7; a deck of distinct cards gives at most 4, so no field overflows into the next).
_RUN_BIT = {c: 1 << (SUITS.index(SUIT_OF[c]) * 16 + ORDER_OF[c]) for c in STANDARD_DECK}
_RANK_COUNT = {c: 1 << (ORDER_OF[c] * 4) for c in STANDARD_DECK}
_NIBBLE_LOW = sum(1 << (4 * i) for i in range(16))


def _may_hold_natural_spread(hand: list[str]) -> bool:
    """Whether the base game's spread candidates of ``hand`` can be non-empty: three
    consecutive ranks of one suit or three cards of one rank (A8.2, A8.3).  A hand with
    any other card (a joker) is always worth asking about."""
    try:
        runs = sum(map(_RUN_BIT.__getitem__, hand))
    except KeyError:
        return True
    if runs & (runs >> 1) & (runs >> 2):
        return True
    counts = sum(map(_RANK_COUNT.__getitem__, hand))
    # a field >= 3: its 4-bit set, or its 2-bit and its 1-bit
    return bool(((counts >> 2) | ((counts >> 1) & counts)) & _NIBBLE_LOW)


# Commands are frozen values: the turn-start choices of a player and a player's discards
# are built once and shared (bounded: cleared when many players have come and gone).
_TURN_START: dict[str, tuple] = {}
_DISCARDS: dict[str, "_Discards"] = {}
_CACHE_LIMIT = 1024


def _turn_start(p: str) -> tuple:
    if len(_TURN_START) >= _CACHE_LIMIT:
        _TURN_START.clear()
    t = _TURN_START[p] = (Knock(p), DrawStock(p), DrawDiscard(p))
    return t


class _Discards(dict):
    """A player's ``Discard`` commands by card, each built on first use (``__missing__``), so
    the list of discards is one ``map`` over the hand's distinct cards."""

    __slots__ = ("player",)

    def __init__(self, player: str):
        super().__init__()
        self.player = player

    def __missing__(self, card: str) -> Discard:
        d = self[card] = Discard(self.player, card)
        return d


def _discards_of(p: str) -> "_Discards":
    if len(_DISCARDS) >= _CACHE_LIMIT:
        _DISCARDS.clear()
    d = _DISCARDS[p] = _Discards(p)
    return d


def legal_actions(state: State, ruleset: Ruleset) -> list:
    """The actions the player to act may take now (same list, same order as
    :func:`legal_actions_checked`)."""
    if not state.in_hand:
        return []
    if ruleset.has_vetoes:  # the ruleset's own flag (Shortcuts.has_vetoes is a copy of it)
        return legal_actions_checked(state, ruleset)
    p = state.to_act
    if state.drew is None:
        # start of a turn: a knock is allowed (A7.1), so is asking for the stock even when it
        # is empty (A11.2); the discard pile must hold a card (B-29)
        t = _TURN_START.get(p) or _turn_start(p)
        return list(t) if state.discard else list(t[:2])
    sc = shortcuts(ruleset)  # only after a draw: the turn start needs no hook
    hand = state.hands[p]
    out: list = []
    if ruleset.knock_timing == "before_discard":
        out.append(Knock(p))
    if sc.classic_spreads and not _may_hold_natural_spread(hand):
        candidates = ()
    else:
        candidates = sc.spread_candidates(hand)
    if candidates:
        held = set(hand)
        check_spread = sc.check_spread
        for shape in candidates:
            cards = tuple(shape.cards)
            cmd = LaySpread(p, cards, dict(shape.jokers_as)) if shape.jokers_as else LaySpread(p, cards)
            if not all(c in held for c in cards):
                continue
            try:
                check_spread(list(cards), dict(cmd.jokers_as))
            except IllegalAction:
                continue
            out.append(cmd)
    distinct = dict.fromkeys(hand)
    if state.table:
        check_hit = sc.check_hit
        hit_options = sc.hit_options
        classic = sc.classic_hits
        for spread in state.table.values():
            for card in distinct:
                if classic and not _could_fit_classic(spread, card):
                    continue
                for joker_as in hit_options(spread, card):
                    try:
                        check_hit(spread, card, joker_as)
                    except IllegalAction:
                        continue
                    out.append(Hit(p, card, spread.id, joker_as))
    discards = _DISCARDS.get(p)
    if discards is None:
        discards = _discards_of(p)
    out += map(discards.__getitem__, distinct)  # one Discard per distinct card, in hand order
    return out
