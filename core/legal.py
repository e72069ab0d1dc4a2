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

from .commands import Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
from .turn import decide, shortcuts
from .errors import IllegalAction
from .ruleset import Ruleset
from .spreads import natural_hit_fits, natural_spread_possible
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
    if sc.classic_spreads and not natural_spread_possible(hand):
        candidates = ()  # the base game's candidates would be empty: the hook is not asked
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
                if classic and not natural_hit_fits(spread.kind, spread.cards, card):
                    continue  # the base game's hit rule, asked without raising
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
