"""Legal actions for the player to act: the candidates that the actions' verify functions accept.

* :func:`legal_actions_checked` generates candidates from the position
  (draws, knocks, every spread the ruleset can form from the hand, every card
  on every spread, every discard) and keeps each one only if ``decide``
  accepts it: the reference the tests compare with, and the path taken when
  the ruleset has veto hooks.
* :func:`legal_actions` is the path used in play and simulation: each
  candidate is asked of its action's ``verify_<action>`` in
  :mod:`tonk.core.turn` (the same functions ``decide`` runs before it builds
  events), so no rule is written here.  What it saves, and how (each derived
  from those rules, never a copy of them):

  - the base game's predicates are asked without raising before a candidate
    is built (``natural_spread_possible``, ``natural_hit_fits`` of
    :mod:`tonk.core.spreads`, the one home of those rules);
  - the turn-start commands' verdicts are kept per player and state of the
    discard pile (without veto hooks nothing else of the position is read);
  - after a draw every card held may be discarded (``verify_discard`` has
    nothing else to refuse without veto hooks), so the discards are taken as
    they are.

  The tests compare both paths, list for list, on random positions under
  every installed variant.
"""

from __future__ import annotations

from typing import Mapping

from .commands import Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
from .turn import can, decide, verify_discard, verify_hit, verify_knock, verify_lay_spread
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
_TURN_START: dict[str, tuple[Knock, DrawStock, DrawDiscard]] = {}
_DISCARDS: dict[str, "_Discards"] = {}
_CACHE_LIMIT = 1024


def turn_start_commands(player: str) -> tuple[Knock, DrawStock, DrawDiscard]:
    """``player``'s commands that may start a turn: knock, draw from the stock, draw from the
    discard pile.  Shared, not new: the same values as new ones (commands are frozen)."""
    commands = _TURN_START.get(player)
    if commands is None:
        if len(_TURN_START) >= _CACHE_LIMIT:
            _TURN_START.clear()
        commands = _TURN_START[player] = (Knock(player), DrawStock(player), DrawDiscard(player))
    return commands


class _Discards(dict[str, Discard]):
    """A player's ``Discard`` commands by card, each built on first use (``__missing__``), so
    the list of discards is one ``map`` over the hand's distinct cards."""

    __slots__ = ("player",)

    def __init__(self, player: str):
        super().__init__()
        self.player = player

    def __missing__(self, card: str) -> Discard:
        d = self[card] = Discard(self.player, card)
        return d


def discard_commands(player: str) -> Mapping[str, Discard]:
    """``player``'s ``Discard`` command for each card (``[card]``), shared as
    :func:`turn_start_commands` are."""
    discards = _DISCARDS.get(player)
    if discards is None:
        if len(_DISCARDS) >= _CACHE_LIMIT:
            _DISCARDS.clear()
        discards = _DISCARDS[player] = _Discards(player)
    return discards


def _accepts(verify, state: State, cmd, ruleset: Ruleset) -> bool:
    try:
        verify(state, cmd, ruleset)
    except IllegalAction:
        return False
    return True


def no_legal_action(state: State, ruleset: Ruleset) -> str:
    """Why the hand in play cannot go on when :func:`legal_actions` is empty: only a house
    rule refusing every command open to the player to act (a veto of the discard of every
    card it holds, say) brings that about; the base game always leaves a draw or a discard."""
    rules = ", ".join(ruleset.variants) or "classic"
    return (
        f"{state.to_act} has no legal action at turn {state.turn_no} "
        f"(the rules {rules} refuse every command open to the player), so the hand cannot go on"
    )


def legal_actions(state: State, ruleset: Ruleset) -> list:
    """The actions the player to act may take now (same list, same order as
    :func:`legal_actions_checked`)."""
    if not state.in_hand:
        return []
    # a veto hook (a house rule refusing some action) reads the position: with one, nothing
    # is kept from position to position, and every discard is asked too
    vetoes = ruleset.has_vetoes
    p = state.to_act
    if state.drew is None:
        if vetoes:
            return [c for c in turn_start_commands(p) if can(state, c, ruleset)]
        # start of a turn: the turn-start commands that their verify functions accept.
        # Without veto hooks those read nothing of the position but that no card was drawn
        # yet and whether the discard pile holds a card, so their answers are kept per
        # player and that fact (the tests compare every list with decide's verdicts): a pair
        # per player, indexed by whether the pile is empty (no tuple key to build and hash)
        pair = ruleset.turn_start_legal.get(p)
        if pair is None:
            pair = ruleset.turn_start_legal[p] = [None, None]
        empty = not state.discard
        legal = pair[empty]
        if legal is None:
            legal = pair[empty] = tuple(c for c in turn_start_commands(p) if can(state, c, ruleset))
        return list(legal)
    hand = state.hands[p]
    out: list = []
    if ruleset.knock_timing == "before_discard":
        knock = Knock(p)
        if _accepts(verify_knock, state, knock, ruleset):
            out.append(knock)
    # the base game's candidates are empty when no spread is possible: the hook is not asked
    if not ruleset.natural_spreads or natural_spread_possible(hand):
        for shape in ruleset.spread_candidates(hand):
            cards = tuple(shape.cards)
            lay = LaySpread(p, cards, dict(shape.jokers_as)) if shape.jokers_as else LaySpread(p, cards)
            if _accepts(verify_lay_spread, state, lay, ruleset):
                out.append(lay)
    distinct = dict.fromkeys(hand)
    if state.table:
        hit_options = ruleset.hit_options
        natural = ruleset.natural_hits
        for spread in state.table.values():
            for card in distinct:
                if natural and not natural_hit_fits(spread.kind, spread.cards, card):
                    continue  # the base game's hit rule, asked without raising
                for joker_as in hit_options(spread, card):
                    hit = Hit(p, card, spread.id, joker_as)
                    if _accepts(verify_hit, state, hit, ruleset):
                        out.append(hit)
    discards = discard_commands(p)
    if vetoes:
        out += [d for d in map(discards.__getitem__, distinct) if _accepts(verify_discard, state, d, ruleset)]
        return out
    # verify_discard accepts every card held after a draw when no veto hook exists
    out += map(discards.__getitem__, distinct)  # one Discard per distinct card, in hand order
    return out
