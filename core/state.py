"""State: everything ``decide`` needs, rebuilt by folding events with ``evolve``.

``evolve`` is rule-free: it applies the facts an event carries and consults
no plugin, so a recorded game replays without the variants that produced it.
For speed it updates the state it is given in place and returns it (the
fold of a fresh :class:`State` is the replay); ``decide`` never mutates.

Piles are Python lists with the **top at the end** (``stock[-1]`` is the next
card drawn); events list them top first.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from .settlement import add_ledger
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
    RulesetSpec,
    SpreadFacts,
    SpreadLaid,
)


class Spread:
    """A spread on the table.  ``cards`` in table order (runs ascending)."""

    __slots__ = ("id", "owner", "kind", "cards", "jokers_as")

    def __init__(self, id: str, owner: str, kind: str, cards: tuple[str, ...], jokers_as: dict[str, str] | None = None):
        self.id = id
        self.owner = owner
        self.kind = kind
        self.cards = cards
        self.jokers_as = jokers_as or {}

    def facts(self) -> SpreadFacts:
        return SpreadFacts(self.id, self.owner, self.kind, self.cards, dict(self.jokers_as))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Spread) and all(getattr(self, a) == getattr(other, a) for a in self.__slots__)

    def __repr__(self) -> str:
        return f"Spread({self.id}, {self.owner}, {self.kind}, {' '.join(self.cards)})"


_new_state = object.__new__


class State:
    """The position of a game: table, seats, running totals and the hand in play."""

    __slots__ = (
        "game_id",
        "players",
        "seat_of",
        "ruleset",
        "dealer",
        "hand_no",
        "net",
        "in_hand",
        "hands",
        "stock",
        "discard",
        "table",
        "next_spread_no",
        "to_act",
        "drew",
        "drawn_card",
        "turn_no",
        "turn_hits",
        "turn_spreads",
        "hand_log",
        "dealt",
        "last_ending",
        "game_over",
        "knocker",
    )

    def __init__(self) -> None:
        self.game_id: str = ""
        self.players: tuple[str, ...] = ()
        self.seat_of: dict[str, int] = {}
        self.ruleset: RulesetSpec | None = None
        self.dealer: str = ""
        self.hand_no: int = 0
        self.net: dict[str, int] = {}
        self.in_hand: bool = False
        self.hands: dict[str, list[str]] = {}
        self.stock: list[str] = []
        self.discard: list[str] = []
        self.table: dict[str, Spread] = {}
        self.next_spread_no: int = 1
        self.to_act: str = ""
        self.drew: str | None = None  # None, "stock" or "discard" this turn
        self.drawn_card: str | None = None
        self.turn_no: int = 0
        self.turn_hits: int = 0
        self.turn_spreads: list[str] = []
        self.hand_log: list[Event] = []
        self.dealt: HandDealt | None = None
        self.last_ending: HandEnded | None = None
        self.game_over: bool = False
        self.knocker: str | None = None

    # --- reading -----------------------------------------------------------------
    def left_of(self, player: str) -> str:
        """The player to the left (next clockwise) of ``player``."""
        return self.players[(self.seat_of[player] + 1) % len(self.players)]

    @property
    def discard_top(self) -> str | None:
        return self.discard[-1] if self.discard else None

    @property
    def next_dealer(self) -> str:
        return self.left_of(self.dealer)

    def copy(self) -> "State":
        """An independent copy (``evolve`` on it leaves this state alone).

        Every slot is listed explicitly, for speed (decide copies the state to settle
        a hand); a test checks that no slot is forgotten."""
        new = _new_state(State)
        new.game_id = self.game_id
        new.players = self.players
        new.seat_of = self.seat_of  # never mutated after game_started
        new.ruleset = self.ruleset
        new.dealer = self.dealer
        new.hand_no = self.hand_no
        new.net = dict(self.net)
        new.in_hand = self.in_hand
        new.hands = {p: list(h) for p, h in self.hands.items()}
        new.stock = list(self.stock)
        new.discard = list(self.discard)
        new.table = {k: Spread(s.id, s.owner, s.kind, s.cards, dict(s.jokers_as)) for k, s in self.table.items()}
        new.next_spread_no = self.next_spread_no
        new.to_act = self.to_act
        new.drew = self.drew
        new.drawn_card = self.drawn_card
        new.turn_no = self.turn_no
        new.turn_hits = self.turn_hits
        new.turn_spreads = list(self.turn_spreads)
        new.hand_log = list(self.hand_log)
        new.dealt = self.dealt
        new.last_ending = self.last_ending
        new.game_over = self.game_over
        new.knocker = self.knocker
        return new

    def snapshot(self) -> dict:
        """A plain-data picture of the state (for comparing a fold with the live state)."""
        return {
            "game_id": self.game_id,
            "players": list(self.players),
            "dealer": self.dealer,
            "hand_no": self.hand_no,
            "net": dict(self.net),
            "in_hand": self.in_hand,
            "hands": {p: list(h) for p, h in self.hands.items()},
            "stock": list(self.stock),
            "discard": list(self.discard),
            "table": [(s.id, s.owner, s.kind, list(s.cards), dict(s.jokers_as)) for s in self.table.values()],
            "to_act": self.to_act,
            "drew": self.drew,
            "drawn_card": self.drawn_card,
            "turn_no": self.turn_no,
            "turn_hits": self.turn_hits,
            "turn_spreads": list(self.turn_spreads),
            "hand_log_len": len(self.hand_log),
            "game_over": self.game_over,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.snapshot() == other.snapshot()


def conservation_problem(state: State, deck: tuple[str, ...], deck_set: frozenset[str] | set[str] | None = None) -> str | None:
    """Why the cards in play are not exactly the deck, or ``None``.  ``deck_set``: ``set(deck)``
    when the caller holds it already (an audit checks every deal against the same deck)."""
    # the cards in play gathered into one set (and counted) without a list of them first
    held = set(state.stock)
    held.update(state.discard)
    count = len(state.stock) + len(state.discard)
    for h in state.hands.values():
        held.update(h)
        count += len(h)
    for s in state.table.values():
        held.update(s.cards)
        count += len(s.cards)
    # no card twice (as many distinct cards as cards) and the same cards as the deck (whose
    # length is the same): the multisets are equal; anything else is worked out and named below
    if count == len(deck) and len(held) == count and held == (set(deck) if deck_set is None else deck_set):
        return None
    seen: Counter[str] = Counter()
    for h in state.hands.values():
        seen.update(h)
    seen.update(state.stock)
    seen.update(state.discard)
    for s in state.table.values():
        seen.update(s.cards)
    want = Counter(deck)
    if seen == want:
        return None
    extra = sorted((seen - want).elements())
    missing = sorted((want - seen).elements())
    parts = []
    if extra:
        parts.append("extra or doubled: " + " ".join(extra))
    if missing:
        parts.append("missing: " + " ".join(missing))
    return "cards are not each exactly once (" + "; ".join(parts) + ")"


def _spread_no(spread_id: str) -> int:
    digits = "".join(ch for ch in spread_id if ch.isdigit())
    return int(digits) if digits else 0


def evolve(state: State, event: Event) -> State:
    """Apply one event's facts to ``state`` (in place) and return it.

    The hot path: events are told apart by ``type(event) is X`` written out (mypy narrows
    ``event`` by it; faster here than ``match``, ``isinstance`` or a table of handlers), the
    commonest first.  A draw, a discard (most of any log) and a hand's end are applied here; every other
    event by the step named after it.  An event is logged in ``hand_log`` while a hand is in
    play, and so is the ``hand_ended`` that closes it."""
    if type(event) is CardDrawn:
        if event.source == "stock":
            state.stock.pop()
        else:
            state.discard.pop()
        state.hands[event.player].append(event.card)
        state.drew = event.source
        state.drawn_card = event.card
    elif type(event) is CardDiscarded:
        hand = state.hands[event.player]
        hand.remove(event.card)
        state.discard.append(event.card)
        if hand:  # the turn passes to the left
            players = state.players
            state.to_act = players[(state.seat_of[state.to_act] + 1) % len(players)]
            state.drew = None
            state.drawn_card = None
            state.turn_hits = 0
            state.turn_spreads = []
            state.turn_no += 1
    elif type(event) is HandEnded:  # the hand is over (written out here: once a hand)
        state.in_hand = False
        state.last_ending = event
        add_ledger(state.net, event.ledger)
        state.dealer = event.next_dealer
        state.hand_log.append(event)
        return state
    elif type(event) is HandDealt:
        _deal(state, event)
    elif type(event) is Knocked:
        state.knocker = event.player
    elif type(event) is SpreadLaid:
        _lay_spread(state, event)
    elif type(event) is CardHit:
        _hit(state, event)
    elif type(event) is GameStarted:
        _start_game(state, event)
    elif type(event) is GameEnded:
        state.game_over = True
        state.in_hand = False
    elif type(event) is not EmptyStockCalled:  # pragma: no cover - the union is closed
        raise TypeError(f"not an event: {event!r}")
    if state.in_hand:
        state.hand_log.append(event)
    return state


def _lay_spread(state: State, event: SpreadLaid) -> None:
    hand = state.hands[event.player]
    for c in event.cards:
        hand.remove(c)
    state.table[event.spread_id] = Spread(event.spread_id, event.player, event.kind, event.cards, dict(event.jokers_as))
    state.next_spread_no = max(state.next_spread_no, _spread_no(event.spread_id) + 1)
    state.turn_spreads.append(event.spread_id)


def _hit(state: State, event: CardHit) -> None:
    state.hands[event.player].remove(event.card)
    s = state.table[event.spread_id]
    s.cards = event.cards
    s.jokers_as = dict(event.jokers_as)
    state.turn_hits += 1


def _deal(state: State, event: HandDealt) -> None:
    """A new hand: the dealt position (an explicit one may hold spreads), the first turn."""
    state.hand_no = event.hand_no
    state.dealer = event.dealer
    state.in_hand = True
    # plain loops and in-place reversal: a deal is folded once a hand (cheaper than a
    # comprehension and list(reversed(...)); the same lists)
    dealt_hands = event.hands
    hands = {}
    for p in state.players:
        hands[p] = list(dealt_hands.get(p, ()))
    state.hands = hands
    stock = list(event.stock)
    stock.reverse()
    state.stock = stock
    discard = list(event.discard)
    discard.reverse()
    state.discard = discard
    if event.table:  # an explicit position with spreads on the table
        state.table = {s.id: Spread(s.id, s.owner, s.kind, tuple(s.cards), dict(s.jokers_as)) for s in event.table}
        state.next_spread_no = max([_spread_no(s.id) for s in event.table]) + 1
    else:
        state.table = {}
        state.next_spread_no = 1
    state.to_act = event.first_player
    state.drew = None
    state.drawn_card = None
    state.turn_no = 1
    state.turn_hits = 0
    state.turn_spreads = []
    state.hand_log = []
    state.dealt = event
    state.last_ending = None
    state.knocker = None


def _start_game(state: State, event: GameStarted) -> None:
    state.game_id = event.game_id
    state.players = tuple(event.players)
    state.seat_of = {p: i for i, p in enumerate(event.players)}
    state.ruleset = event.ruleset
    state.dealer = event.dealer
    state.net = {p: 0 for p in event.players}


def fold(events: Iterable[Event], state: State | None = None) -> State:
    """Replay: the state after ``events`` (from a fresh state unless one is given)."""
    state = State() if state is None else state
    for e in events:
        evolve(state, e)
    return state
