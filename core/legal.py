"""Legal actions for the player to act: the candidates that the actions' verify functions accept.

:func:`candidate_actions` lists every action worth asking about (the draws and
the knock, every spread the ruleset can form from the hand, every card that may
fit a spread, every discard); :func:`legal_actions` keeps those that the
action's ``verify_<action>`` of :mod:`tonk.core.turn` accepts, the same
functions ``decide`` runs before it builds events, so no rule is written twice.
The generator leaves out only what the rules' own predicates rule out without
raising (a hit that the base game's hit rule ``natural_hit_fits`` refuses, when
the base game alone checks hits).  :func:`legal_actions_checked` keeps the
candidates that ``decide`` itself accepts: the reference the tests compare with.
"""

from __future__ import annotations

from .commands import Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
from .errors import IllegalAction
from .ruleset import Ruleset
from .spreads import natural_hit_fits
from .state import State
from .turn import VERIFY, decide, shortcuts

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
    """A player's ``Discard`` commands by card, each built on first use (``__missing__``)."""

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


def candidate_actions(state: State, ruleset: Ruleset) -> list:
    """Every action of the player to act worth asking about (a superset of the legal ones)."""
    if not state.in_hand:
        return []
    p = state.to_act
    if state.drew is None:
        return list(_TURN_START.get(p) or _turn_start(p))
    sc = shortcuts(ruleset)
    hand = state.hands[p]
    out: list = []
    if ruleset.knock_timing == "before_discard":
        out.append(_TURN_START.get(p, (Knock(p),))[0])
    for shape in sc.spread_candidates(hand):
        cards = tuple(shape.cards)
        out.append(LaySpread(p, cards, dict(shape.jokers_as)) if shape.jokers_as else LaySpread(p, cards))
    distinct = dict.fromkeys(hand)
    if state.table:
        classic = sc.classic_hits
        hit_options = sc.hit_options
        for spread in state.table.values():
            for card in distinct:
                if classic and not natural_hit_fits(spread.kind, spread.cards, card):
                    continue  # the base game's hit rule, asked without raising
                for joker_as in hit_options(spread, card):
                    out.append(Hit(p, card, spread.id, joker_as))
    discards = _DISCARDS.get(p)
    if discards is None:
        discards = _discards_of(p)
    out += map(discards.__getitem__, distinct)  # one Discard per distinct card, in hand order
    return out


def legal_actions(state: State, ruleset: Ruleset) -> list:
    """The actions the player to act may take now: the candidates whose verify function
    accepts them (same list, same order as :func:`legal_actions_checked`)."""
    out = []
    append = out.append
    verify = VERIFY
    for cmd in candidate_actions(state, ruleset):
        try:
            verify[type(cmd)](state, cmd, ruleset)
        except IllegalAction:
            continue
        append(cmd)
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
