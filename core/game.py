"""The library API: a game at one table, in the spirit of python-chess's ``Board``.

>>> from tonk.core import Game
>>> from tonk.variants import load_ruleset
>>> g = Game.new(["ann", "bob", "cy"], ruleset=load_ruleset(), seed=7, dealer="cy")
>>> g.deal()                                   # doctest: +ELLIPSIS
[...]
>>> g.to_act
'ann'
>>> actions = g.legal_actions()
>>> events = g.play(actions[0])

``Game`` keeps the event list and the folded state together; ``Game.replay``
rebuilds one from recorded events without consulting any rule.
"""

from __future__ import annotations

import random
import secrets
import uuid
from typing import Any, Iterable, Mapping, Sequence

import msgspec

from .commands import ACTIONS, Command, DealHand, Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
from .cards import ORDER_OF, parse_card, parse_cards
from .commitment import plain_commitment
from .dealing import cut_for_dealer
from .turn import decide
from .errors import SetupError
from .names import check_name
from .events import Event, GameEnded, GameStarted, HandDealt, HandEnded, SpreadFacts
from .legal import legal_actions
from .ruleset import Ruleset
from .state import State, conservation_problem, evolve, fold


class Game:
    """A game: seats, the pinned ruleset, the events so far and the state they fold to."""

    def __init__(self, ruleset: Ruleset, events: Iterable[Event] = (), *, seed: int | None = None, secret_seed: bool = False):
        self.ruleset = ruleset
        self.events: list[Event] = []
        self.state = State()
        # the source of Game.deal's shuffle seeds, made at the first deal that needs one
        # (seeding a Mersenne Twister costs about a fifth of Game.new, and a simulation or
        # a served table gives every deal its deck or seed)
        self._rng: random.Random | None = None
        self._seed = seed
        self._secret_seed = secret_seed
        for e in events:
            self._apply(e)

    # --- creation -------------------------------------------------------------------
    @classmethod
    def new(
        cls,
        players: Sequence[str],
        *,
        ruleset: Ruleset,
        dealer: str | None = None,
        seed: int | None = None,
        game_id: str | None = None,
        server_seed_hash: str | None = None,
    ) -> "Game":
        """Start a game under ``ruleset`` (:func:`tonk.variants.load_ruleset` builds one from
        variant names).  Without ``dealer`` the first dealer is chosen by a cut (A3.1).

        Without ``seed`` the game is secret: its seed is drawn from the operating
        system's CSPRNG (:mod:`secrets`), the cut and every deck follow from it, the id
        is a random UUID, and the seed is recorded only in ``game_ended``.  With
        ``seed`` the game is reproducible (its id derives from the seed) and not secret:
        whoever knows or can guess the seed knows every deck.

        ``server_seed_hash`` (a fair deal's commitment, ``core.fair_deal``) is recorded in
        ``game_started``; the decks then come from ``DealHand(server_seed=...)``."""
        players = tuple(players)
        if len(set(players)) != len(players):
            raise SetupError("each seat needs a different player name")
        for p in players:
            check_name(p, "player name")
        ruleset.check_seats(len(players))
        secret = seed is None
        if seed is None:
            seed = secrets.randbits(128)
            game_id = game_id or str(uuid.uuid4())
        cut: tuple = ()
        if dealer is None:
            dealer, cut = cut_for_dealer(players, ruleset.deck, seed, ORDER_OF)
        elif dealer not in players:
            raise SetupError(f"dealer {dealer!r} is not one of the players")
        if game_id is None:
            game_id = str(uuid.UUID(int=random.Random(seed).getrandbits(128)))
        game = cls(ruleset, seed=seed, secret_seed=secret)
        started = GameStarted(game_id=game_id, players=players, dealer=dealer, ruleset=ruleset.spec, cut=cut)
        if server_seed_hash is not None:
            started = msgspec.structs.replace(started, server_seed_hash=server_seed_hash)
        game._apply(started)
        return game

    @classmethod
    def from_position(
        cls,
        players: Sequence[str],
        *,
        dealer: str,
        hands: Mapping[str, Sequence[str]],
        stock: Sequence[str] = (),
        discard: Sequence[str] = (),
        table: Sequence[SpreadFacts] = (),
        to_act: str | None = None,
        ruleset: Ruleset,
        game_id: str | None = None,
    ) -> "Game":
        """A game at a mid-hand position (a hand record's explicit setup), at the start of
        ``to_act``'s turn: piles top first, spreads already checked.  No initial-tonk check
        is made.  Every card of the ruleset's deck must appear exactly once."""
        game = cls.new(players, ruleset=ruleset, dealer=dealer, seed=0, game_id=game_id)
        to_act = to_act or game.state.left_of(dealer)
        if to_act not in game.state.seat_of:
            raise SetupError(f"{to_act!r} (to act) is not one of the players")
        dealt = HandDealt(
            hand_no=1,
            dealer=dealer,
            first_player=to_act,
            deck=(),
            commitment=plain_commitment(()),
            hands={p: tuple(hands.get(p, ())) for p in game.players},
            discard=tuple(discard),
            stock=tuple(stock),
            table=tuple(table),
            explicit=True,
        )
        game._apply(dealt)
        problem = conservation_problem(game.state, ruleset.deck)
        if problem:
            raise SetupError(f"the position is not a whole deck: {problem}")
        return game

    @classmethod
    def replay(cls, events: Iterable[Event], ruleset: Ruleset | None = None) -> "Game":
        """Rebuild a game from its events (no rule is consulted).  Without a ruleset
        the game can be read but not played on."""
        g = cls.__new__(cls)
        g.ruleset = ruleset  # type: ignore[assignment]
        g.events = []
        g.state = State()
        g._rng = None
        g._seed, g._secret_seed = None, False
        for e in events:
            g._apply(e)
        return g

    # --- reading --------------------------------------------------------------------
    @property
    def game_id(self) -> str:
        return self.state.game_id

    @property
    def players(self) -> tuple[str, ...]:
        return self.state.players

    @property
    def to_act(self) -> str | None:
        return self.state.to_act if self.state.in_hand else None

    @property
    def in_hand(self) -> bool:
        return self.state.in_hand

    @property
    def net(self) -> dict[str, int]:
        return dict(self.state.net)

    @property
    def last_ending(self) -> HandEnded | None:
        return self.state.last_ending

    def legal_actions(self) -> list[Command]:
        return legal_actions(self.state, self.ruleset)

    def hand_events(self) -> list[Event]:
        return list(self.state.hand_log)

    # --- playing --------------------------------------------------------------------
    def _apply(self, event: Event) -> None:
        evolve(self.state, event)
        self.events.append(event)

    def play(self, command: Command) -> list[Event]:
        """Apply a command: the events it produced, or :class:`IllegalAction` (nothing changes)."""
        if self.ruleset is None:
            raise SetupError("this game was replayed without its ruleset and cannot be played on")
        events = decide(self.state, command, self.ruleset)
        for e in events:
            self._apply(e)
        return events

    def deal(self, deck: Sequence[str] | None = None, seed: int | None = None) -> list[Event]:
        """Deal the next hand from ``deck`` (top first) or a shuffle; without either,
        the game's own seeded random source picks the shuffle seed."""
        if deck is not None:
            return self.play(DealHand(deck=tuple(parse_cards(deck))))
        if seed is None:
            if self._rng is None:
                self._rng = random.Random(self._seed)  # Random(None): seeded from the OS, as replay's was
            seed = self._rng.getrandbits(63)
        return self.play(DealHand(seed=seed))

    def end(self, reason: str = "closed", server_seed: str = "") -> GameEnded:
        """End the game; ``server_seed`` (a fair deal's) is revealed in ``game_ended``."""
        if self.state.in_hand:
            raise SetupError("a hand is in play; finish it before ending the game")
        # a secret game's seed is revealed now that it is over (never while it is live)
        ev = GameEnded(reason=reason, net=dict(self.state.net), seed=str(self._seed) if self._secret_seed else "", server_seed=server_seed)
        self._apply(ev)
        return ev

    def act(self, action: str, **fields: Any) -> list[Event]:
        """Play by action name for the player to act, e.g. ``act("hit", card="8S", target="S1")``."""
        return self.play(parse_command(action, self.state.to_act, fields))

    def fold(self) -> State:
        """A fresh fold of the recorded events (equal to ``state`` when all is well)."""
        return fold(self.events)


def parse_command(action: str, player: str, fields: dict[str, Any]) -> Command:
    """Build a command from an action name and its fields (cards in any accepted notation)."""
    if action == "knock":
        return Knock(player)
    if action == "draw_stock":
        return DrawStock(player)
    if action == "draw_discard":
        return DrawDiscard(player)
    if action == "spread":
        jokers = {parse_card(k): parse_card(v) for k, v in (fields.get("jokers_as") or {}).items()}
        return LaySpread(player, tuple(parse_cards(fields["cards"])), jokers)
    if action == "hit":
        ja = fields.get("joker_as")
        return Hit(player, parse_card(fields["card"]), str(fields["target"]), parse_card(ja) if ja else None)
    if action == "discard":
        return Discard(player, parse_card(fields["card"]))
    raise SetupError(f"unknown action {action!r} ({', '.join(ACTIONS)})")
