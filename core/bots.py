"""Bots: players for simulations.  A bot sees only its own player's view.

A bot is asked ``bot.choose(view, legal, rng)``: ``view`` is the
:class:`~tonk.core.views.PlayerView` of the player to act (their own hand,
the discard top, the spreads, how many cards the others hold, the stock's
size; never another hand or the stock order), ``legal`` the legal actions
and ``rng`` the random source to use (so a simulation is deterministic for
its seed).  It returns one of ``legal``.  A bot whose ``uses_view`` is false
ignores the view; the simulator then passes ``None`` and saves building it.

Bots by name (:data:`BOTS`, :func:`make_bot`):

``random``
    a uniformly random legal action.

``expert``
    expected value over the cards it cannot see, by playouts on the engine
    (:mod:`tonk.core.expert_bot`); it needs the game's ruleset (``make_bot(...,
    ruleset=...)``).

``greedy``
    a sensible player, rule by rule:

    * **Start of a turn, stock not empty.**  Knock by the threshold rule
      below.  Otherwise take the discard top if it completes a spread with
      two cards in hand, extends a spread on the table, or is a low card
      (at most ``LOW_TAKE`` points) worth less than the card it would then
      discard; else draw from the stock.  A bot that took a card to extend a
      table spread and then could not lay it (a house rule such as
      ``hit-runs-only`` forbids the hit) takes no more cards for table
      spreads in that game.
    * **Start of a turn, stock empty** (asking for it ends the hand, A11.2).
      Ask for it when it looks lowest (own count below every opponent's
      estimate); else take the discard top if it is worth less than the
      hand's highest card or makes a spread with two cards in hand; else ask
      for the empty stock.  (Asking dominates knocking here: the lowest is paid the
      same and nobody is caught.)  After such a take the bot discards its
      highest card, so with an empty stock every greedy turn lowers the
      cards or the points held: greedy play always ends.
    * **After drawing.**  Lay the spread that removes the most points, then
      hit with the most valuable card that fits (both always lower the
      count); then, where a knock is allowed before discarding, knock by the
      threshold rule; then discard the most valuable card that has no
      partner in hand (no card of its rank, no card of its suit within two
      ranks), or, if every card has one, the most valuable card; never the
      card just taken from the discard pile when there is another choice.
    * **The knock threshold.**  Each opponent's count is estimated as
      (cards they hold) x (mean value of the cards this player has not seen)
      x ``DECAY`` ** (turns that opponent has had), since players shed high
      cards as a hand goes on.  Knock when the own count is at most
      ``KNOCK_RATIO`` times the lowest estimate, or at most
      ``KNOCK_ALWAYS``.  A greedy player knows the rules (card values), not
      the cards.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Protocol

from .cards import BASE_POINTS, ORDER_OF, RANK_OF, SUIT_OF
from .commands import Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
from .errors import TonkError
from .names import quoted
from .views import PlayerView


class Bot(Protocol):
    name: str
    uses_view: bool

    def choose(self, view: PlayerView | None, legal: list, rng: random.Random): ...


class BotError(TonkError, ValueError):
    """An unknown bot name."""


# --- random -------------------------------------------------------------------------------


class RandomBot:
    """A uniformly random legal action."""

    name = "random"
    uses_view = False

    def __init__(self, points: dict[str, int] | None = None):
        pass

    def choose(self, view: PlayerView | None, legal: list, rng: random.Random):
        # uniform up to float resolution (a bias below len(legal) / 2**53); cheaper than randrange
        return legal[int(rng.random() * len(legal))]


# --- greedy ---------------------------------------------------------------------------------


def _default_points() -> dict[str, int]:
    return {c: BASE_POINTS[r] for c, r in RANK_OF.items() if r in BASE_POINTS}


class GreedyBot:
    """A sensible player (the rules are in the module's docstring)."""

    name = "greedy"
    uses_view = True

    KNOCK_RATIO = 0.55
    KNOCK_ALWAYS = 3
    DECAY = 0.88
    LOW_TAKE = 3

    def __init__(self, points: dict[str, int] | None = None):
        self.points = dict(points) if points else _default_points()
        self._extending: str | None = None  # a card just taken to extend a table spread
        self.table_takes = True  # false once such a card could not be laid (a house rule forbids it)

    # --- what the player can work out ----------------------------------------------------
    def value(self, card: str) -> int:
        return self.points.get(card, 10)

    def count(self, hand) -> int:
        return sum(self.value(c) for c in hand)

    def unseen_mean(self, view: PlayerView) -> float:
        """Mean value of the cards this player has not seen (own hand, table, discard top)."""
        seen = set(view.hand or ())
        for s in view.table:
            seen.update(s.cards)
        if view.discard_top:
            seen.add(view.discard_top)
        vals = [v for c, v in self.points.items() if c not in seen]
        return sum(vals) / len(vals) if vals else 0.0

    def estimates(self, view: PlayerView) -> list[float]:
        """Estimated count of each opponent (see the knock threshold)."""
        mean = self.unseen_mean(view)
        n = len(view.players)
        first = (view.players.index(view.dealer) + 1) % n  # the first player sits left of the dealer
        done = max(view.turn_no - 1, 0)  # turns completed this hand, in seat order from the first
        out = []
        for i, p in enumerate(view.players):
            if p == view.viewer:
                continue
            turns = done // n + (1 if (i - first) % n < done % n else 0)
            out.append(view.hand_sizes.get(p, 0) * mean * self.DECAY**turns)
        return out

    def should_knock(self, view: PlayerView, hand) -> bool:
        mine = self.count(hand)
        est = self.estimates(view)
        low = min(est) if est else 0.0
        return mine <= self.KNOCK_ALWAYS or mine <= self.KNOCK_RATIO * low

    def looks_lowest(self, view: PlayerView, hand) -> bool:
        est = self.estimates(view)
        return not est or self.count(hand) < min(est)

    def completes_in_hand(self, hand, card: str) -> bool:
        """Whether ``card`` makes a book or run with two natural cards in hand."""
        r = RANK_OF.get(card)
        if r is None or r == "X":
            return False
        if sum(1 for c in hand if RANK_OF.get(c) == r) >= 2:
            return True
        s, o = SUIT_OF[card], ORDER_OF[card]
        suited = {ORDER_OF[c] for c in hand if SUIT_OF.get(c) == s and RANK_OF.get(c) != "X"}
        return (o - 1 in suited and o + 1 in suited) or (o + 1 in suited and o + 2 in suited) or (o - 1 in suited and o - 2 in suited)

    def completes_or_extends(self, view: PlayerView, card: str) -> bool:
        """Whether ``card`` would make a spread with two cards in hand, or extends a table spread."""
        if self.completes_in_hand(view.hand or (), card):
            return True
        r = RANK_OF.get(card)
        if r is None or r == "X":
            return False
        s, o = SUIT_OF[card], ORDER_OF[card]
        for sp in view.table:
            cards = [c for c in sp.cards if RANK_OF.get(c) != "X"]
            if not cards:
                continue
            if sp.kind == "book":
                if RANK_OF[cards[0]] == r and len(sp.cards) < 4:
                    return True
            elif SUIT_OF[cards[0]] == s:
                orders = [ORDER_OF[c] for c in cards]
                if o == max(orders) + 1 or o == min(orders) - 1:
                    return True
        return False

    def has_partner(self, card: str, hand) -> bool:
        r, s = RANK_OF.get(card), SUIT_OF.get(card)
        if r is None or r == "X":
            return True  # a wild card is worth keeping
        o = ORDER_OF[card]
        for c in hand:
            if c == card:
                continue
            if RANK_OF.get(c) == r:
                return True
            if SUIT_OF.get(c) == s and RANK_OF.get(c) != "X" and abs(ORDER_OF[c] - o) <= 2:
                return True
        return False

    # --- the choice ------------------------------------------------------------------------
    def choose(self, view: PlayerView | None, legal: list, rng: random.Random):
        if view is None:
            raise ValueError("the greedy bot needs its player's view")
        hand = view.hand or ()
        knock = draw_stock = draw_discard = None
        spreads: list = []
        hits: list = []
        discards: list = []
        for a in legal:
            t = type(a)
            if t is Discard:
                discards.append(a)
            elif t is Hit:
                hits.append(a)
            elif t is LaySpread:
                spreads.append(a)
            elif t is Knock:
                knock = a
            elif t is DrawStock:
                draw_stock = a
            elif t is DrawDiscard:
                draw_discard = a
        if draw_stock is not None or draw_discard is not None:
            return self._start_of_turn(view, hand, knock, draw_stock, draw_discard, legal)
        if spreads:
            return max(spreads, key=lambda a: (self.count(a.cards), len(a.cards)))
        if hits:
            return max(hits, key=lambda a: (self.value(a.card), a.card))
        if knock is not None and self.should_knock(view, hand):
            return knock
        if discards:
            return self._discard(view, hand, discards)
        return legal[0]  # pragma: no cover - a legal list always has a draw or a discard

    def _start_of_turn(self, view, hand, knock, draw_stock, draw_discard, legal):
        top = view.discard_top
        high = max((self.value(c) for c in hand), default=0)
        if view.stock_size == 0:
            if draw_stock is not None and self.looks_lowest(view, hand):
                return draw_stock
            if draw_discard is not None and top is not None:
                if self.value(top) < high or self.completes_in_hand(hand, top):
                    return draw_discard
            if draw_stock is not None:
                return draw_stock
            return knock or legal[0]
        if knock is not None and self.should_knock(view, hand):
            return knock
        if draw_discard is not None and top is not None:
            v = self.value(top)
            if self.completes_in_hand(hand, top):
                return draw_discard
            if self.table_takes and self.completes_or_extends(view, top):
                self._extending = top
                return draw_discard
            after = list(hand) + [top]
            if v <= self.LOW_TAKE and hand and v < self.value(self._choose_discard(after, after, top, False)):
                return draw_discard
        if draw_stock is not None:
            return draw_stock
        return draw_discard or knock or legal[0]

    def _choose_discard(self, hand, cards, taken: str | None, stock_empty: bool) -> str:
        """The card to discard among ``cards``: with an empty stock the most valuable one
        (only the count matters now, and it must drop: see the docstring); otherwise the
        most valuable card without a partner in ``hand``, or the most valuable card.  The
        card ``taken`` from the discard pile is kept when there is another choice."""
        cards = list(dict.fromkeys(cards))
        if taken in cards and len(cards) > 1:
            cards.remove(taken)
        key = lambda c: (self.value(c), c)  # noqa: E731
        if stock_empty:
            return max(cards, key=key)
        loose = [c for c in cards if not self.has_partner(c, hand)]
        return max(loose or cards, key=key)

    def _discard(self, view, hand, discards):
        taken = view.drawn_card if view.drew == "discard" else None
        if self._extending is not None:
            if taken == self._extending and taken in hand:
                self.table_takes = False  # taken to hit a spread, and the rules did not let it
            self._extending = None
        card = self._choose_discard(hand, [a.card for a in discards], taken, view.stock_size == 0)
        return next(a for a in discards if a.card == card)


# --- registry -------------------------------------------------------------------------------

BotFactory = Callable[..., Bot]

class _ExpertFactory:
    """The ``expert`` bot (:mod:`tonk.core.expert_bot`), imported when one is made."""

    wants_ruleset = True

    def __call__(self, points: dict[str, int] | None = None, ruleset: Any = None) -> Bot:
        from .expert_bot import ExpertBot

        return ExpertBot(points=points, ruleset=ruleset)


BOTS: dict[str, BotFactory] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "expert": _ExpertFactory(),
}


def register_bot(name: str, factory: BotFactory) -> None:
    """Add a bot under ``name`` (a factory taking ``points=`` the card values; one whose
    ``wants_ruleset`` attribute is true is also given ``ruleset=`` the game's ruleset)."""
    BOTS[name] = factory


def bot_names() -> list[str]:
    return sorted(BOTS)


def check_bot_name(name: str) -> None:
    """Raise :class:`BotError` for a name that is no bot's."""
    if name not in BOTS:
        raise BotError(f"unknown bot {quoted(name)} (known: {', '.join(bot_names())})")


def make_bot(name: str, points: dict[str, int] | None = None, ruleset: Any = None) -> Bot:
    """A bot by name; ``points`` are the ruleset's card values (public rules), base values by
    default (the ruleset's when only ``ruleset`` is given).  A bot that plays hands out (the
    ``expert``) needs ``ruleset``, the game's :class:`~tonk.core.ruleset.Ruleset`."""
    check_bot_name(name)
    factory = BOTS[name]
    if points is None and ruleset is not None:
        points = ruleset.points
    if getattr(factory, "wants_ruleset", False):
        return factory(points=points, ruleset=ruleset)
    return factory(points=points)


__all__ = ["Bot", "BotError", "BOTS", "GreedyBot", "RandomBot", "bot_names", "check_bot_name", "make_bot", "register_bot"]
