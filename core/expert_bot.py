"""The ``expert`` bot: decisions by expected value over the cards it cannot see.

The bot is given what any bot is given, its player's :class:`~tonk.core.views.PlayerView`
(never the state), and it plays under hidden information in three steps:

1. **What it has seen** (:class:`HandMemory`).  Within a hand it remembers, across its
   calls, the discard pile as far as it saw it: each card it saw on top and then buried
   is dead (in the pile, out of play); a card it discarded that the next player took
   (heads-up: the stock did not shrink while the pile did not grow) is known to be in
   that player's hand until it shows up on the table or the pile.  Spreads, the discard
   top, its own hand and every hand size are in the view itself.  With more seats the
   discards between its turns are only partly seen: what it cannot pin down stays unseen.
   A memory that does not add up with the view (the bot was made anew mid-hand, another
   player played its seat) is dropped and the bot reasons from the view alone.
2. **Worlds** (:meth:`ExpertBot.worlds`).  The unseen cards (the deck less every card it
   knows the place of) are dealt at random into the other hands (beside the cards known to
   be there), the stock and the unseen part of the discard pile, each of the sizes the view
   gives: a *determinization* consistent with everything it observed.  The hand of the
   player who just played is drawn again until it agrees with that turn read as a greedy
   player's (the card thrown, the discard left, no spread kept, and, heads-up, the knock
   it did not make at the start of the turn: :meth:`ExpertBot.knocked_then`), for every
   choice of the bot's turn: the reading made at its start is kept after its draw, spreads
   and hits (:meth:`ExpertBot._turn_evidence`).
3. **Expected value** (:meth:`ExpertBot.choose`).  Each candidate action is played in each
   world on the engine's fast path (``decide`` and ``evolve`` on a :class:`State`, with the
   ruleset's own hooks, so every house rule that changes play applies), and the hand is
   played out by ``greedy`` players for the other seats and a bolder-knocking greedy
   that keeps its low cards (:class:`BolderGreedy`) for its own; the candidate's value in a world is the bot's
   net of the hand's ledger.  A knock is settled at once (no playout).  The
   candidates share their worlds (common random numbers); the choice of
   :class:`BolderGreedy` stands unless a candidate beats it clearly (:func:`better_than`).

What is decided this way: at the start of a turn, knock or draw from the stock or the
discard pile; after drawing, the knock (where the rules allow it then), the discard
(among the ``DISCARD_CANDIDATES`` most likely cards), and whether to lay down the
spread or hit the greedy bot would lay or to hold it and discard (a held low spread
keeps the count low and the hand full, so an opponent may knock into it).  A position
with one legal action asks nothing.

The budget is counted in playouts, not time (``rollouts`` per decision, default
:data:`DEFAULT_ROLLOUTS`), so a decision is deterministic for the random source it is
given: the bot draws one number from ``rng`` per set of worlds and seeds them from it.
A close decision (a candidate's gain near the bar :func:`better_than` sets, see
:func:`is_close`) is weighed again on up to :data:`EXTRA_ROUNDS` more sets of worlds,
the values pooled: the budget goes where more worlds can change the choice.
"""

from __future__ import annotations

import math
import random
from typing import Any, NamedTuple, Sequence

from .bots import BotError, GreedyBot
from .cards import ORDER_OF, RANK_OF, SUIT_OF
from .commands import Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
from .commitment import plain_commitment
from .errors import IllegalAction
from .events import CardDrawn, HandDealt, HandEnded
from .legal import legal_actions
from .spreads import natural_hit_fits, natural_spread_possible
from .ruleset import Ruleset
from .state import Spread, State, evolve
from .turn import decide
from .views import PlayerView

NAN = float("nan")

#: playouts per decision by default (tuned in bench/bench_bots.py: strength against the cost per decision)
DEFAULT_ROLLOUTS = 72
#: the discards weighed by playouts (the greedy bot's pick first, then the most valuable cards)
DISCARD_CANDIDATES = 3
#: weigh holding a spread (or a hit) against laying it down (see ExpertBot._choose)
HOLD_SPREADS = True
#: a close decision (see :func:`is_close`) is weighed again on this many more sets of worlds
EXTRA_ROUNDS = 2
#: see :func:`is_close`
CLOSE_SE = 1.5
#: a candidate replaces the greedy choice only if its mean gain is at least this (stake units)...
MIN_GAIN = 0.05
#: ... and this many standard errors of the paired differences above zero
CONFIDENCE = 1.0
#: at most this many of a player's past turns are replayed to sample their hand
MAX_REPLAYED_TURNS = 12
#: samples drawn for the hand of the player who just played before one is kept regardless
CONSISTENT_TRIES = 64
#: variants that may refuse a knock at the start of a turn (then not knocking says nothing)
KNOCK_REFUSING = frozenset({"hit-penalty", "mandatory-laydown"})
#: read the other player's not knocking at the start of their last turn (heads-up, base knock)
NO_KNOCK_EVIDENCE = True
#: the last player's turn read at the start of the bot's turn also shapes the worlds of its
#: later choices in that turn (the discard, holding a spread)
EVIDENCE_AFTER_DRAW = True
#: the bot's own discards (its baseline and its play in playouts) keep cards worth at most this
#: while another card may go (0: greedy's discard; see BolderGreedy._choose_discard)
KEEP_LOW = 2
#: a playout longer than this many actions is abandoned (counted as no payment)
MAX_PLAYOUT_ACTIONS = 600


class NoKnock(NamedTuple):
    """What the other player's last turn start says (heads-up; see ExpertBot._no_knock)."""

    took: str | None  # the bot's discard they took (their draw), if they did
    shown: str  # the discard top they saw: the bot's discard
    laid: tuple[str, ...]  # cards they laid on the table that turn
    table: frozenset[str]  # the cards on the table when their turn started
    my_size: int  # the bot's hand size then
    my_turns: int  # the bot's completed turns then


class Evidence(NamedTuple):
    """The player who just played, the card they threw, the bot's discard they left (heads-up),
    and what their not knocking says."""

    player: str
    thrown: str
    passed: str | None
    no_knock: NoKnock | None


class HandMemory:
    """What the bot has seen of one hand (see the module's doc, step 1)."""

    __slots__ = ("key", "pile", "known", "turn_no", "after_discard", "turn_hits", "turn_spreads", "passed", "took", "table_then", "turn_evidence")

    def __init__(self, key: tuple[str, int], view: PlayerView):
        self.key = key
        self.pile: list[str | None] = _fresh_pile(view)  # the discard pile bottom first; None where unseen
        self.known: dict[str, set[str]] = {p: set() for p in view.players if p != view.viewer}
        self.turn_no = view.turn_no
        self.after_discard: tuple[str, int] | None = None  # (card discarded, stock size then) at the end of its last turn
        self.turn_hits = 0  # this turn's hits and spreads by the bot (rules such as one-hit-per-turn read them)
        self.turn_spreads: list[str] = []
        self.passed: str | None = None  # heads-up: the bot's discard the other player did not take
        self.took: str | None = None  # heads-up: the bot's discard the other player took (their draw)
        self.table_then: frozenset[str] | None = None  # the cards on the table when the bot discarded
        #: the start of the bot's turn: (turn number, what the last player's turn says, the table then)
        self.turn_evidence: tuple[int, Evidence | None, list[Any]] | None = None

    def forget(self, view: PlayerView) -> None:
        """Drop what was remembered; keep only what the view shows."""
        self.pile = _fresh_pile(view)
        for s in self.known.values():
            s.clear()
        self.took = None
        self.table_then = None

    def observe(self, view: PlayerView) -> None:
        """Bring the memory up to ``view`` (a call in the bot's own turn)."""
        if view.turn_no != self.turn_no:
            self._others_played(view)
            self.turn_no = view.turn_no
            self.turn_hits = 0
            self.turn_spreads = []
        self._sync_top(view)
        on_table = {c for s in view.table for c in s.cards}
        for cards in self.known.values():
            cards -= on_table
            if view.discard_top in cards:
                cards.discard(view.discard_top)

    def _others_played(self, view: PlayerView) -> None:
        others = view.turn_no - self.turn_no - 1  # turns the others had since the bot's last call
        if self.after_discard is None or others < 1 or others != len(view.players) - 1:
            self.forget(view)
            return
        card, stock_then = self.after_discard
        self.after_discard = None
        pile = self.pile
        pile.append(card)
        stock_draws = stock_then - view.stock_size
        takes = others - stock_draws  # draws from the discard pile
        self.passed = card if others == 1 and takes == 0 else None
        self.took = card if others == 1 and takes == 1 else None
        if takes < 0 or takes > len(pile):
            self.forget(view)
            return
        if others == 1 and takes == 1:  # heads-up: the next player took the card just discarded
            taken = pile.pop()
            nxt = view.players[(view.players.index(view.viewer) + 1) % len(view.players)]
            if taken is not None and nxt in self.known:
                self.known[nxt].add(taken)
        elif takes:
            del pile[len(pile) - takes :]  # taken by someone: their place is unknown now
        pile.extend([None] * (others - 1))  # discards the bot did not see
        pile.append(view.discard_top)
        if len(pile) != view.discard_size:
            self.forget(view)

    def _sync_top(self, view: PlayerView) -> None:
        pile = self.pile
        if len(pile) == view.discard_size + 1 and view.drew == "discard":
            pile.pop()  # the bot took the top this turn
        if len(pile) != view.discard_size or (pile and pile[-1] is not None and pile[-1] != view.discard_top):
            self.forget(view)
            return
        if pile:
            pile[-1] = view.discard_top

    def acted(self, view: PlayerView, cmd: Any) -> None:
        """Record the bot's own action (what the next view will not say)."""
        t = type(cmd)
        if t is Discard:
            self.after_discard = (cmd.card, view.stock_size)
            self.table_then = frozenset(c for s in view.table for c in s.cards)
        elif t is Hit:
            self.turn_hits += 1
        elif t is LaySpread:
            self.turn_spreads.append(f"S{_next_spread_no(view)}")


def _fresh_pile(view: PlayerView) -> list[str | None]:
    if view.discard_size == 0:
        return []
    return [None] * (view.discard_size - 1) + [view.discard_top]


def _next_spread_no(view: PlayerView) -> int:
    nos = [int("".join(ch for ch in s.id if ch.isdigit()) or 0) for s in view.table]
    return max(nos, default=0) + 1


def better_than(values: list[list[float]]) -> int:
    """The index of the candidate to play, given each candidate's values world by world
    (the baseline first): the one whose gain over the baseline (paired, world by world) is
    largest among those whose gain is at least :data:`MIN_GAIN` and :data:`CONFIDENCE`
    standard errors above zero; else 0, the baseline.  Playouts are noisy, and a choice
    made on noise alone is no better than a coin: the baseline choice stands unless beaten."""
    base = values[0]
    best, best_gain = 0, 0.0
    for c, vals in enumerate(values):
        if c == 0:
            continue
        diffs = [v - b for v, b in zip(vals, base) if not (math.isnan(v) or math.isnan(b))]
        n = len(diffs)
        if n < 2:
            continue
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        se = math.sqrt(var / n)
        if mean >= MIN_GAIN and mean > CONFIDENCE * se and mean > best_gain:
            best, best_gain = c, mean
    return best


def _paired_gains(values: list[list[float]]) -> list[tuple[float, float]]:
    """Each candidate's mean gain over the baseline (paired, world by world) and its standard error."""
    base = values[0]
    out = []
    for vals in values[1:]:
        diffs = [v - b for v, b in zip(vals, base) if not (math.isnan(v) or math.isnan(b))]
        n = len(diffs)
        if n < 2:
            out.append((0.0, math.inf))
            continue
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        out.append((mean, math.sqrt(var / n)))
    return out


def is_close(values: list[list[float]]) -> bool:
    """Whether more worlds could change the choice: some candidate's gain over the baseline
    is positive but not clearly past the test of :func:`better_than` (within
    ``CLOSE_SE`` standard errors of it)."""
    for mean, se in _paired_gains(values):
        if mean > 0 and se < math.inf and abs(mean - max(MIN_GAIN, CONFIDENCE * se)) < CLOSE_SE * se:
            return True
    return False


def turns_had(view: PlayerView) -> dict[str, int]:
    """How many turns each player has completed in this hand (seat order from the first player)."""
    n = len(view.players)
    first = (view.players.index(view.dealer) + 1) % n
    done = max(view.turn_no - 1, 0)
    return {p: done // n + (1 if (i - first) % n < done % n else 0) for i, p in enumerate(view.players)}


def net_for(player: str, ended: HandEnded) -> int:
    """``player``'s net of a hand's ledger."""
    n = 0
    for pay in ended.ledger:
        if pay.to == player:
            n += pay.amount
        if pay.from_ == player:
            n -= pay.amount
    return n


class SeatSight:
    """What :class:`GreedyBot` reads of a :class:`PlayerView`, taken straight from a playout's
    state for the player to act (a playout's world is the bot's own sample, so nothing is
    hidden in it; this only saves building a whole view at every playout action)."""

    __slots__ = ("viewer", "players", "dealer", "turn_no", "hand", "hand_sizes", "table", "discard_top", "stock_size", "drew", "drawn_card")

    def __init__(self, state: State, player: str):
        self.viewer = player
        self.players = state.players
        self.dealer = state.dealer
        self.turn_no = state.turn_no
        self.hand = state.hands[player]
        self.hand_sizes = {p: len(h) for p, h in state.hands.items()}
        self.table = tuple(state.table.values())
        self.discard_top = state.discard[-1] if state.discard else None
        self.stock_size = len(state.stock)
        self.drew = state.drew
        self.drawn_card = state.drawn_card


#: rank, suit and order of each natural card (a wild card has none): one look-up
_NATURAL: dict[str, tuple[str, str, int]] = {c: (r, SUIT_OF[c], ORDER_OF[c]) for c, r in RANK_OF.items() if r != "X"}


class QuickGreedy(GreedyBot):
    """The greedy bot in fewer steps (a playout asks it for every action, the sampling of
    hands for every replayed turn): a card's partners and the spreads it completes read
    from one table (:data:`_NATURAL`).  Each answer is :class:`GreedyBot`'s own (tested)."""

    def count(self, hand) -> int:  # type: ignore[no-untyped-def]
        get = self.points.get
        return sum([get(c, 10) for c in hand])

    def has_partner(self, card: str, hand) -> bool:  # type: ignore[no-untyped-def]
        info = _NATURAL.get(card)
        if info is None:
            return True  # a wild card is worth keeping
        r, s, o = info
        get = _NATURAL.get
        for c in hand:
            if c == card:
                continue
            other = get(c)
            if other is not None and (other[0] == r or (other[1] == s and -2 <= other[2] - o <= 2)):
                return True
        return False

    def completes_in_hand(self, hand, card: str) -> bool:  # type: ignore[no-untyped-def]
        info = _NATURAL.get(card)
        if info is None:
            return False
        r, s, o = info
        get = _NATURAL.get
        same = 0
        suited = set()
        for c in hand:
            other = get(c)
            if other is None:
                continue
            if other[0] == r:
                same += 1
            if other[1] == s:
                suited.add(other[2])
        if same >= 2:
            return True
        return (o - 1 in suited and o + 1 in suited) or (o + 1 in suited and o + 2 in suited) or (o - 1 in suited and o - 2 in suited)


class BolderGreedy(QuickGreedy):
    """The greedy bot with a bolder knock (at most ``KNOCK_RATIO`` 0.8 of the lowest estimate
    instead of 0.55) and a discard that keeps low cards (:data:`KEEP_LOW`): the expert's
    own choice when no playout says better, and its own play in its playouts.  Heads-up
    against greedy the bolder knock alone nets about +0.08 stake a hand (2 x 6,000 hands,
    seats swapped; greedy's own ratio is tuned for self-play, where a catch is rarer),
    with the low cards kept about +0.13 (``bench.bench_bots --own-policy``)."""

    KNOCK_RATIO = 0.8

    def _choose_discard(self, hand, cards, taken: str | None, stock_empty: bool) -> str:
        """Greedy's discard, but a card worth at most :data:`KEEP_LOW` is kept while another
        card may go (a low card keeps the count down, and thrown it is one greedy would
        take: its ``LOW_TAKE`` rule).  Measured against greedy on its own
        (``bench.bench_bots --own-policy``): about +0.045 stake a hand over greedy's discard."""
        if not stock_empty and KEEP_LOW > 0:
            high = [c for c in cards if c != taken and self.points.get(c, 10) > KEEP_LOW]
            if high and len(high) < len(cards):
                cards = high
        return super()._choose_discard(hand, cards, taken, stock_empty)


class PlayoutGreedy(QuickGreedy):
    """The greedy bot as played in a playout (:class:`QuickGreedy`), with the mean of the
    unseen cards' values worked out from the deck's total (the same number as
    :meth:`GreedyBot.unseen_mean`, in fewer steps)."""

    def __init__(self, points: dict[str, int] | None = None):
        super().__init__(points)
        self._total = sum(self.points.values())

    def unseen_mean(self, view) -> float:  # type: ignore[no-untyped-def]
        pts = self.points
        seen = set(view.hand or ())
        for s in view.table:
            seen.update(s.cards)
        if view.discard_top:
            seen.add(view.discard_top)
        known = [pts[c] for c in seen if c in pts]
        left = len(pts) - len(known)
        return (self._total - sum(known)) / left if left else 0.0


class PlayoutBolder(PlayoutGreedy, BolderGreedy):
    """:class:`BolderGreedy` as played in a playout (the bot itself)."""


class ExpertBot:
    """Expected value over determinized worlds (the rules are in the module's docstring)."""

    name = "expert"
    uses_view = True
    wants_ruleset = True

    def __init__(self, points: dict[str, int] | None = None, ruleset: Ruleset | None = None, rollouts: int | None = None):
        if ruleset is None:
            raise BotError("the expert bot plays out hands under the game's rules: give it the ruleset")
        self.ruleset = ruleset
        self.points = dict(points) if points else dict(ruleset.points)
        self.rollouts = DEFAULT_ROLLOUTS if rollouts is None else max(1, int(rollouts))
        self.greedy = BolderGreedy(self.points)  # its heuristics: spreads, hits, the choice to try first
        self.memory: HandMemory | None = None
        self._table: list[Any] = []  # the spreads on the table, read by the sampling of hands
        #: spreads and hits are the base game's (no variant changes them, no wild card)
        self._natural = ruleset.natural_spreads and ruleset.natural_hits and not ruleset.wild_cards
        #: knocks are the base game's: at the start of a turn, no variant that refuses one
        self._plain_knock = self._natural and ruleset.knock_timing == "start_of_turn" and not any("knock" in v or v in KNOCK_REFUSING for v in ruleset.variants)
        self._points_total = sum(self.points.values())
        self.decisions = 0  # decisions taken by playouts (for the benchmark's cost per decision)
        self.playouts = 0

    # --- memory ------------------------------------------------------------------------
    def _remember(self, view: PlayerView) -> HandMemory:
        key = (view.game_id, view.hand_no)
        mem = self.memory
        if mem is None or mem.key != key:
            mem = self.memory = HandMemory(key, view)
        else:
            mem.observe(view)
        return mem

    # --- the choice ----------------------------------------------------------------------
    def choose(self, view: PlayerView | None, legal: list, rng: random.Random):
        if view is None:
            raise ValueError("the expert bot needs its player's view")
        mem = self._remember(view)
        cmd = self._choose(view, legal, rng, mem)
        mem.acted(view, cmd)
        return cmd

    def _choose(self, view: PlayerView, legal: list, rng: random.Random, mem: HandMemory):
        if len(legal) == 1:
            return legal[0]
        baseline = self.greedy.choose(view, legal, rng)
        start = any(type(a) in (DrawStock, DrawDiscard) for a in legal)
        candidates: list[Any]
        if start:
            candidates = [a for a in legal if type(a) in (Knock, DrawStock, DrawDiscard)]
        else:
            discards = [a for a in legal if type(a) is Discard]
            if type(baseline) in (LaySpread, Hit):
                # lay it down, or hold it and discard (a held low spread keeps the count low
                # and the hand full, so an opponent may knock into it; nobody can hit it)
                if not discards or not HOLD_SPREADS:
                    return baseline
                hand = list(view.hand or ())
                taken = view.drawn_card if view.drew == "discard" else None
                card = self.greedy._choose_discard(hand, [d.card for d in discards], taken, view.stock_size == 0)
                candidates = [baseline, next(d for d in discards if d.card == card)]
                return candidates[self._weigh(view, candidates, rng, mem)]
            ranked = sorted(discards, key=lambda a: (-self.points.get(a.card, 10), a.card))
            picks: list[Any] = [a for a in [baseline, *ranked] if type(a) is Discard]
            candidates = list(dict.fromkeys(picks))[:DISCARD_CANDIDATES]
            candidates += [a for a in legal if type(a) is Knock]
        if len(candidates) < 2:
            return baseline if baseline in candidates or not candidates else candidates[0]
        if baseline in candidates:
            candidates.remove(baseline)
        candidates.insert(0, baseline)
        return candidates[self._weigh(view, candidates, rng, mem)]

    def _weigh(self, view: PlayerView, candidates: list[Any], rng: random.Random, mem: HandMemory) -> int:
        """The index of the candidate to play (:func:`better_than`), on more worlds while the
        decision is close (:func:`is_close`, at most :data:`EXTRA_ROUNDS` more sets)."""
        values = self.evaluate(view, candidates, random.Random(rng.getrandbits(64)), mem)
        for _ in range(EXTRA_ROUNDS):
            if not is_close(values):
                break
            more = self.evaluate(view, candidates, random.Random(rng.getrandbits(64)), mem)
            values = [a + b for a, b in zip(values, more)]
        return better_than(values)

    def evaluate(self, view: PlayerView, candidates: Sequence[Any], rng: random.Random, mem: HandMemory | None = None) -> list[list[float]]:
        """Each candidate's net (in the candidates' order) in each of the same sampled worlds
        (``nan`` where a world's hidden facts make the engine refuse it)."""
        mem = mem or HandMemory((view.game_id, view.hand_no), view)
        me = view.viewer
        playing = [c for c in candidates if type(c) is not Knock]
        worlds = max(2, self.rollouts // max(1, len(playing)))
        values: list[list[float]] = [[] for _ in candidates]
        ruleset = self.ruleset
        self.decisions += 1
        for state in self.worlds(view, mem, rng, worlds):
            for i, c in enumerate(candidates):
                try:
                    events = decide(state, c, ruleset)
                except IllegalAction:
                    values[i].append(NAN)  # this world's hidden facts refuse it (a rule reading the history)
                    continue
                s = state.copy()
                for e in events:
                    evolve(s, e)
                if s.in_hand:
                    self.playouts += 1
                    value = self.playout(s, me)
                else:
                    value = net_for(me, s.last_ending) if s.last_ending is not None else 0
                values[i].append(float(value))
        return values

    def playout(self, state: State, me: str) -> int:
        """Play the hand out with greedy players in every seat; the bot's net of it (0 for a
        hand that does not end: past ``MAX_PLAYOUT_ACTIONS``, or a seat the house rules leave
        no legal action in this sampled world, e.g. a user's rule refusing every discard of
        the cards it was dealt)."""
        ruleset = self.ruleset
        points = self.points
        bots: dict[str, GreedyBot] = {p: PlayoutGreedy(points) for p in state.players}
        bots[me] = PlayoutBolder(points)
        rng = random.Random(0)  # the greedy bot does not draw from it
        for _ in range(MAX_PLAYOUT_ACTIONS):
            p = state.to_act
            legal = legal_actions(state, ruleset)
            if not legal:
                return 0
            cmd = bots[p].choose(SeatSight(state, p), legal, rng)  # type: ignore[arg-type]
            for e in decide(state, cmd, ruleset):
                evolve(state, e)
            if not state.in_hand:
                ended = state.last_ending
                return net_for(me, ended) if ended is not None else 0
        return 0

    # --- determinization ---------------------------------------------------------------------
    def worlds(self, view: PlayerView, mem: HandMemory, rng: random.Random, count: int):
        """``count`` states consistent with what the bot has seen (step 2 of the module's doc)."""
        template, pool, slots = self._template(view, mem)
        turns = turns_had(view)
        evidence, self._table = self._turn_evidence(view, mem)
        for _ in range(count):
            cards = list(pool)
            rng.shuffle(cards)
            s = template.copy()
            for p, known, k in slots["hands"]:
                if evidence is not None and p == evidence[0]:
                    s.hands[p] = self._consistent_hand(cards, known, k, turns.get(p, 0), evidence, rng)
                else:
                    s.hands[p] = list(known) + self._likely_hand(cards, k, turns.get(p, 0), rng)
            pile = list(slots["pile"])
            for j, c in enumerate(pile):
                if c is None:
                    pile[j] = cards.pop()
            s.discard = pile
            s.stock = cards
            yield s

    def _turn_evidence(self, view: PlayerView, mem: HandMemory) -> tuple[Evidence | None, list[Any]]:
        """What the last player's turn says (:meth:`_evidence`) and the table it is read
        against: read at the start of the bot's turn and kept for its later choices in the same
        turn (its draw, spreads and hits change neither what that player did nor what they saw)."""
        if view.drew is None:
            read = (self._evidence(view, mem), list(view.table))
            mem.turn_evidence = (view.turn_no, *read)
            return read
        kept = mem.turn_evidence
        if EVIDENCE_AFTER_DRAW and kept is not None and kept[0] == view.turn_no:
            return kept[1], kept[2]
        return None, list(view.table)

    def _evidence(self, view: PlayerView, mem: HandMemory) -> Evidence | None:
        """At the start of its turn: the player who just played (to the bot's right), the card
        they discarded (the discard top) and, heads-up, the bot's own discard they left, and
        what their not knocking says (:class:`NoKnock`, where it can be read)."""
        if view.drew is not None or view.discard_top is None or view.turn_no <= 1:
            return None
        n = len(view.players)
        prev = view.players[(view.players.index(view.viewer) - 1) % n]
        if turns_had(view).get(prev, 0) < 1:
            return None
        return Evidence(prev, view.discard_top, mem.passed, self._no_knock(view, mem))

    def _no_knock(self, view: PlayerView, mem: HandMemory) -> NoKnock | None:
        """Heads-up, under the base game's knock: the other player started their last turn
        without knocking, which a greedy player does only with a count above its threshold
        (:meth:`GreedyBot.should_knock`: the bot's hand size, the mean of the cards it had
        not seen, the bot's turns).  ``None`` where this cannot be read."""
        if not NO_KNOCK_EVIDENCE or not self._plain_knock or len(view.players) != 2 or mem.table_then is None:
            return None
        mine = view.viewer
        shown = mem.took if mem.took is not None else mem.passed
        if shown is None or (mem.took is not None and view.stock_size == 0):
            return None  # not read from memory, or an empty stock (greedy does not knock then)
        on_table = [c for sp in view.table for c in sp.cards]
        laid = tuple(c for c in on_table if c not in mem.table_then)
        return NoKnock(mem.took, shown, laid, mem.table_then, len(view.hand or ()), turns_had(view).get(mine, 0))

    def knocked_then(self, hand: list[str], thrown: str, nk: NoKnock, drawn: str) -> bool:
        """Whether a greedy player holding ``hand`` now, having drawn ``drawn`` and thrown
        ``thrown`` (and laid ``nk.laid``), would have knocked at the start of that turn
        (:meth:`GreedyBot.should_knock` on its hand then and what it saw then)."""
        cards = hand + [thrown, *nk.laid]
        if drawn in cards:
            cards.remove(drawn)
        value = self.points.get
        count = sum(value(c, 10) for c in cards)
        if count <= GreedyBot.KNOCK_ALWAYS:
            return True
        seen = set(cards) | nk.table | {nk.shown}
        left = len(self.points) - len(seen)
        mean = (self._points_total - sum(value(c, 10) for c in seen)) / left if left > 0 else 0.0
        est = nk.my_size * mean * GreedyBot.DECAY**nk.my_turns
        return count <= GreedyBot.KNOCK_RATIO * est

    def _would_have_knocked(self, hand: list[str], thrown: str, nk: NoKnock, known: tuple[str, ...], rng: random.Random) -> bool:
        """:meth:`knocked_then` with the card drawn: the bot's discard if they took it, else one
        of the cards they now hold, threw or laid (not one known to be theirs before), at random."""
        if nk.took is not None:
            return self.knocked_then(hand, thrown, nk, nk.took)
        fresh = [c for c in (*hand, thrown, *nk.laid) if c not in known]
        return bool(fresh) and self.knocked_then(hand, thrown, nk, fresh[rng.randrange(len(fresh))])

    def _consistent_hand(self, cards: list[str], known: tuple[str, ...], k: int, turns: int, evidence: Evidence, rng: random.Random) -> list[str]:
        """A likely hand (:meth:`_likely_hand`) that also agrees with what the player just did,
        read as a greedy player would have done it: the card they threw was worth at least
        every card they would rather have thrown, and the bot's discard they left (heads-up)
        would not have made a spread with two of their cards, and they hold no spread and no
        card that fits a spread on the table (a greedy player lays them down before
        discarding; asked only where spreads and hits are the base game's).  Up to ``CONSISTENT_TRIES``
        samples are drawn; the last one stands if none agrees."""
        _, thrown, passed, nk = evidence
        table = self._table
        natural = self._natural
        greedy = self.greedy
        value = self.points.get
        limit = value(thrown, 10)
        saved = list(cards)
        hand: list[str] = []
        for attempt in range(CONSISTENT_TRIES):
            if attempt:
                cards[:] = saved
                rng.shuffle(cards)
            hand = list(known) + self._likely_hand(cards, k, turns, rng)
            before = hand + [thrown]
            loose = [c for c in before if not greedy.has_partner(c, before)] or before
            if max(value(c, 10) for c in loose) > limit:
                continue
            if passed is not None and greedy.completes_in_hand(hand, passed):
                continue
            if natural and (natural_spread_possible(hand) or any(natural_hit_fits(sp.kind, sp.cards, c) for sp in table for c in hand)):
                continue  # a greedy player lays every spread and hit it can before it discards
            if nk is not None and self._would_have_knocked(hand, thrown, nk, known, rng):
                continue  # a greedy player with this hand would have knocked
            break
        return hand

    def _likely_hand(self, cards: list[str], k: int, turns: int, rng: random.Random) -> list[str]:
        """``k`` unseen cards for a player who has had ``turns`` turns, taken out of ``cards``
        (shuffled).  A player keeps low cards and pairs and throws high loose ones, so the
        hand is not a uniform draw: it is dealt at random and then each of the player's turns
        is replayed as the greedy bot plays it (draw an unseen card, throw the most valuable
        card without a partner), the thrown card going back among the unseen ones."""
        hand = cards[len(cards) - k :] if k else []
        del cards[len(cards) - k :]
        if not hand or not cards:
            return hand
        value = self.points.get
        partner = self.greedy.has_partner
        for _ in range(min(turns, MAX_REPLAYED_TURNS)):
            j = rng.randrange(len(cards))
            hand.append(cards[j])
            loose = [c for c in hand if not partner(c, hand)] or hand
            out = max(loose, key=lambda c: (value(c, 10), c))
            hand.remove(out)
            cards[j] = out
        return hand

    def _template(self, view: PlayerView, mem: HandMemory) -> tuple[State, list[str], dict]:
        located = self._located(view, mem)
        if located is None:
            mem.forget(view)
            located = self._located(view, mem)
            assert located is not None, "the view alone always adds up"
        pool, hand_slots = located
        me = view.viewer
        state = State()
        state.game_id = view.game_id
        state.players = view.players
        state.seat_of = {p: i for i, p in enumerate(view.players)}
        state.ruleset = self.ruleset.spec
        state.dealer = view.dealer
        state.hand_no = view.hand_no
        state.net = dict(view.net)
        state.in_hand = True
        state.hands = {p: [] for p in view.players}
        state.hands[me] = list(view.hand or ())
        state.table = {s.id: Spread(s.id, s.owner, s.kind, tuple(s.cards), dict(s.jokers_as)) for s in view.table}
        state.next_spread_no = _next_spread_no(view)
        state.to_act = me
        state.drew = view.drew
        state.drawn_card = view.drawn_card
        state.turn_no = view.turn_no
        state.turn_hits = mem.turn_hits
        state.turn_spreads = [sid for sid in mem.turn_spreads if sid in state.table]
        dealt = HandDealt(
            hand_no=view.hand_no,
            dealer=view.dealer,
            first_player=me,
            deck=(),
            commitment=plain_commitment(()),
            hands={},
            discard=(),
            stock=(),
            table=tuple(view.table),
            explicit=True,
        )
        state.dealt = dealt
        state.hand_log = [dealt]
        if view.drew is not None and view.drawn_card is not None:
            state.hand_log.append(CardDrawn(player=me, source=view.drew, card=view.drawn_card))
        return state, pool, {"hands": hand_slots, "pile": list(mem.pile)}

    def _located(self, view: PlayerView, mem: HandMemory) -> tuple[list[str], list[tuple[str, tuple[str, ...], int]]] | None:
        """The unseen cards and, per other player, the cards known in their hand and how
        many more they hold; ``None`` when the memory does not add up with the view."""
        seen: set[str] = set(view.hand or ())
        for s in view.table:
            seen.update(s.cards)
        pile = mem.pile
        if len(pile) != view.discard_size:
            return None
        for c in pile:
            if c is not None:
                if c in seen:
                    return None
                seen.add(c)
        hand_slots = []
        for p in view.players:
            if p == view.viewer:
                continue
            known = tuple(sorted(c for c in mem.known.get(p, ()) if c not in seen))
            k = view.hand_sizes.get(p, 0) - len(known)
            if k < 0:
                return None
            seen.update(known)
            hand_slots.append((p, known, k))
        pool = [c for c in self.ruleset.deck if c not in seen]
        need = sum(k for _, _, k in hand_slots) + view.stock_size + sum(1 for c in pile if c is None)
        if need != len(pool):
            return None
        return pool, hand_slots


__all__ = ["DEFAULT_ROLLOUTS", "DISCARD_CANDIDATES", "ExpertBot", "HandMemory", "net_for"]
