"""Simulation at scale: many hands between bots, under a ruleset, deterministic for a seed.

A simulation plays ``hands`` hands in games of ``hands_per_game`` hands at one
table of ``players`` seats (``P1`` ... ``Pn``, clockwise).  Bots are given per
seat in seat order and repeat when there are fewer bots than seats.  Each
game is independent: its first dealer (a cut), its decks and its bots'
random source derive from the seed and the game's index alone, so

* the same seed gives the same events, game for game, byte for byte;
* any number of worker processes gives the same set of games and the same
  report (workers take whole games; every figure is an integer sum until the
  report divides), and each worker writes whole games to the store, one
  transaction per game;
* two rulesets run on the same seed see the same decks, first dealers and
  bot random sources, which is what :func:`compare_rulesets` relies on.

Every hand is played through the engine's ``legal_actions`` and ``decide``:
all rules are validated and every event is produced; a bot sees only its
player's view.  Decks are shuffled by the simulation's own seeded source and
dealt with an explicit deck order (the deal event records it either way).

The report (:func:`simulate`) gives hands per second, endings by type, win
rate and mean net per seat and per bot, the tonk-out frequency, knocks won
and caught, and the mean hand length.  A hand's **winners** are the players
with the highest net for that hand, if it is positive (a tie for it, as in a
catch, makes several winners; a drawn hand has none).  Net is in stake units.
"""

from __future__ import annotations

import gc
import math
import os
import random
import time
import uuid
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import compress, repeat, starmap
from operator import attrgetter, eq, mul, sub
from typing import Any, Callable, Iterable, Sequence

from ..core.bots import check_bot_name, make_bot
from ..core.commands import DealHand
from ..core.turn import decide
from ..core.errors import TonkError
from ..core.events import Event, HandEnded, game_started
from ..core.game import Game
from ..core.legal import legal_actions, no_legal_action
from ..core.ruleset import Ruleset, RulesetLoader
from ..core.state import evolve
from ..core.views import player_view
from ..variants import load_ruleset
from .sink import EventSink
from .stats import difference, mean_ci, share_ci

#: a hand longer than this many player actions is a runaway (a bot that never ends a hand)
MAX_ACTIONS_PER_HAND = 5000
#: the namespace of simulated games' ids (uuid5 of the configuration, the ruleset and the index)
GAME_ID_NAMESPACE = uuid.UUID("5d0c6b0e-6a35-4f0e-9a57-3c4b1b7a0f11")


class SimulationError(TonkError):
    """A simulation that cannot be set up or run (bad bots, a runaway hand, a player left
    no legal action)."""


@dataclass(frozen=True)
class SimConfig:
    """What to simulate.  ``bots`` are per seat in seat order, repeated to fill the table."""

    hands: int
    players: int = 3
    bots: tuple[str, ...] = ("greedy",)
    variants: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    hands_per_game: int = 50
    workers: int = 1

    @property
    def games(self) -> int:
        return math.ceil(self.hands / self.hands_per_game) if self.hands > 0 else 0

    def seats(self) -> tuple[str, ...]:
        return tuple(f"P{i}" for i in range(1, self.players + 1))

    def seat_bots(self) -> tuple[str, ...]:
        return tuple(self.bots[i % len(self.bots)] for i in range(self.players))

    def hands_in_game(self, index: int) -> int:
        return min(self.hands_per_game, self.hands - index * self.hands_per_game)

    def ruleset(self, load: RulesetLoader = load_ruleset) -> Ruleset:
        return load(self.variants, dict(self.options))

    def check(self) -> Ruleset:
        """Validate the configuration; returns the ruleset.  Raises a :class:`TonkError`."""
        if self.hands < 1:
            raise SimulationError("--hands must be at least 1")
        if self.hands_per_game < 1:
            raise SimulationError("hands per game must be at least 1")
        if self.workers < 1:
            raise SimulationError("--workers must be at least 1")
        ruleset = self.ruleset()
        ruleset.check_seats(self.players)  # first: 0 seats is what is wrong with `-p 0`, not its bots
        if not self.bots:
            raise SimulationError("name at least one bot")
        if len(self.bots) > self.players:
            raise SimulationError(f"{len(self.bots)} bots named for {self.players} seats")
        for name in self.bots:
            check_bot_name(name)  # BotError for an unknown name
        return ruleset


# --- one game ---------------------------------------------------------------------------------


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a simulation (independent of the worker that plays it)."""
    return random.Random(f"tonk-sim:{seed}:{index}").getrandbits(63)


def game_id_spec(config: SimConfig, ruleset: Ruleset) -> str:
    """Everything that shapes a simulation's games (not the workers), as the text their ids
    are made of (:func:`game_id_for`), the same for every game of the simulation."""
    return (
        f"{config.seed}:{config.hands}:{config.hands_per_game}:{list(config.seat_bots())}:"
        f"{list(ruleset.variants)}:{sorted(ruleset.options.items())}"
    )


def game_id_for(config: SimConfig, ruleset: Ruleset, index: int, spec: str | None = None) -> str:
    """The id of game ``index``: a uuid5 of everything that shapes the game (not the workers).
    ``spec``: :func:`game_id_spec` of ``config`` and ``ruleset`` when the caller holds it."""
    if spec is None:
        spec = game_id_spec(config, ruleset)
    return str(uuid.uuid5(GAME_ID_NAMESPACE, f"{spec}:{index}"))


class GameSetup:
    """What every game of one simulation shares, worked out once for a run of games rather
    than once a game: the seats, their indices, each seat's bot and the text of the games'
    ids (:func:`game_id_spec`; its options' text alone costs about a tenth of a game's set-up)."""

    __slots__ = ("seats", "seat_of", "names", "id_spec")

    def __init__(self, config: SimConfig, ruleset: Ruleset):
        self.seats = config.seats()
        self.seat_of = {p: i for i, p in enumerate(self.seats)}
        self.names = config.seat_bots()
        self.id_spec = game_id_spec(config, ruleset)


def shuffle_deck(deck: Sequence[str], rng: random.Random) -> tuple[str, ...]:
    """A uniformly random order of ``deck`` from ``rng`` (sorting by random keys: cheaper
    than :meth:`random.Random.shuffle` in pure Python, and as uniform).

    The key of each card is the next ``rng.random()``, drawn in deck order (``sorted``
    computes every key once, first to last, before it sorts; the sort is stable).  The
    key function is ``next`` on an iterator that calls ``rng.random`` (``partial(next,
    draws)(card)`` is ``next(draws, card)``): no Python frame per card, about a sixth
    fewer instructions per shuffle than ``lambda _c: rng.random()``, the same order.  The
    iterator is ``starmap`` over empty argument tuples: it calls ``rng.random()`` and
    hands the draw on, where ``iter(rng.random, sentinel)`` also compares every draw with
    its sentinel (about 6 % fewer instructions a shuffle; the same draws, the same order)."""
    return tuple(sorted(deck, key=partial(next, starmap(rng.random, repeat(())))))


_END = attrgetter("end")
_LEDGER = attrgetter("ledger")
_WHO = attrgetter("end", "outcome", "player")


class Tally:
    """Integer counts of a simulation's hands; tallies of disjoint games add up exactly."""

    __slots__ = ("games", "hands", "actions", "actions_sq", "turns", "turns_sq", "events", "endings", "lengths", "seat")

    #: per seat; ``net_sq`` is the sum of the squared net of each hand (for confidence intervals)
    SEAT_FIELDS = ("wins", "net", "net_sq", "knocks", "knocks_won", "knocks_caught", "tonk_outs", "went_out")

    def __init__(self, seats: int = 0):
        self.games = 0
        self.hands = 0
        self.actions = 0
        self.actions_sq = 0
        self.turns = 0
        self.turns_sq = 0
        self.events = 0
        self.endings: Counter = Counter()
        self.lengths: Counter = Counter()  # hands by their length in turns
        self.seat = [dict.fromkeys(self.SEAT_FIELDS, 0) for _ in range(seats)]

    def add(self, other: "Tally") -> "Tally":
        self.games += other.games
        self.hands += other.hands
        self.actions += other.actions
        self.actions_sq += other.actions_sq
        self.turns += other.turns
        self.turns_sq += other.turns_sq
        self.events += other.events
        self.endings.update(other.endings)
        self.lengths.update(other.lengths)
        if not self.seat:
            self.seat = [dict.fromkeys(self.SEAT_FIELDS, 0) for _ in other.seat]
        for mine, theirs in zip(self.seat, other.seat):
            for k, v in theirs.items():
                mine[k] += v
        return self

    def record_hands(self, hands: Sequence[tuple[HandEnded, int, int, Sequence[int]]], seat_of: dict[str, int]) -> None:
        """Count hands ``(ended, actions, turns, net)``, ``net`` being each seat's net of the hand
        in seat order (:func:`play_game` passes a game's hands at once): sums, ``Counter``
        updates and ``map`` over the columns, not a Python call and its branches per hand.  A
        hand with an empty ledger adds no net and makes no winner; a hand's winners are the
        seats of its highest net if positive."""
        if not hands:
            return
        ended, actions, turns, nets = zip(*hands)
        self.hands += len(hands)
        self.actions += sum(actions)
        self.actions_sq += sum(map(mul, actions, actions))
        self.turns += sum(turns)
        self.turns_sq += sum(map(mul, turns, turns))
        self.lengths.update(turns)
        self.endings.update(map(_END, ended))
        settled = list(compress(nets, map(_LEDGER, ended)))  # the hands with a ledger
        if settled:
            # each hand's highest net when positive (None, equal to no net, when not)
            best = [m if m > 0 else None for m in map(max, settled)]
            for row, col in zip(self.seat, zip(*settled)):
                row["net"] += sum(col)
                row["net_sq"] += sum(map(mul, col, col))
                row["wins"] += sum(map(eq, col, best))
        for (end, outcome, who), n in Counter(map(_WHO, ended)).items():
            if who is None:  # a draw of initial tonks, a turn cap: no one to count
                continue
            if end == "knock" and who in seat_of:
                row = self.seat[seat_of[who]]
                row["knocks"] += n
                row["knocks_won" if outcome == "knocker_won" else "knocks_caught"] += n
            elif end == "tonk_out":
                self.seat[seat_of[who]]["tonk_outs"] += n
            elif end == "out_by_discard":
                self.seat[seat_of[who]]["went_out"] += n

    def to_dict(self) -> dict:
        return {
            "games": self.games,
            "hands": self.hands,
            "actions": self.actions,
            "actions_sq": self.actions_sq,
            "turns": self.turns,
            "turns_sq": self.turns_sq,
            "events": self.events,
            "endings": dict(sorted(self.endings.items())),
            "lengths": {str(k): v for k, v in sorted(self.lengths.items())},
            "seat": [dict(r) for r in self.seat],
        }


def play_game(
    config: SimConfig, ruleset: Ruleset, index: int, tally: Tally | None = None, keep: bool = True, setup: GameSetup | None = None
) -> list[Event]:
    """Play game ``index`` of ``config``; returns its events (and counts them into ``tally``).

    ``keep=False`` (a run without a store): the events are counted, not kept, and the
    list returned is empty; each hand's events are dropped as soon as they are folded.
    ``setup``: the :class:`GameSetup` of ``config`` and ``ruleset`` when the caller plays
    many games of them."""
    if setup is None:
        setup = GameSetup(config, ruleset)
    seed = game_seed(config.seed, index)
    seats = setup.seats
    seat_of = setup.seat_of
    names = setup.names
    points = ruleset.points
    bots = {p: make_bot(names[i], points=points, ruleset=ruleset) for i, p in enumerate(seats)}
    deck_rng = random.Random(seed)
    bot_rng = random.Random(seed ^ 0x5DEECE66D)
    game = Game.new(seats, ruleset=ruleset, seed=seed, game_id=game_id_for(config, ruleset, index, setup.id_spec))
    state = game.state
    events = game.events
    extend = events.extend if keep else None
    dropped = 0  # events played and not kept (keep=False)
    # each hand's (hand_ended, actions, turns, net of each seat), counted into the tally at
    # the end of the game (Tally.record_hands)
    ended_hands: list[tuple[HandEnded, int, int, list[int]]] = []
    base_deck = ruleset.deck
    # the hot loop: names bound locally; the view is built only for bots that read it
    choosers = {p: (b.choose, b.uses_view) for p, b in bots.items()}
    _legal, _decide, _evolve, _view = legal_actions, decide, evolve, player_view
    for _ in range(config.hands_in_game(index)):
        # each seat's running net before the hand, in seat order (state.net is keyed by the
        # seats in order; the fold of the hand's hand_ended adds its ledger to it)
        before = list(state.net.values())
        evs = _decide(state, DealHand(deck=shuffle_deck(base_deck, deck_rng)), ruleset)
        for e in evs:
            _evolve(state, e)
        if extend is not None:
            extend(evs)
        actions = 0
        while state.in_hand:
            p = state.to_act
            choose, uses_view = choosers[p]
            legal = _legal(state, ruleset)
            if not legal:
                raise SimulationError(f"hand {state.hand_no} of game {index}: {no_legal_action(state, ruleset)}")
            cmd = choose(_view(state, p) if uses_view else None, legal, bot_rng)
            evs = _decide(state, cmd, ruleset)
            for e in evs:
                _evolve(state, e)
            if extend is not None:
                extend(evs)
            actions += 1
            if actions > MAX_ACTIONS_PER_HAND:
                raise SimulationError(
                    f"hand {state.hand_no} of game {index} ran past {MAX_ACTIONS_PER_HAND} actions "
                    "(set the option max_turns_per_hand to cap hands)"
                )
        if extend is None:  # the hand's events, counted once it is over: the fold logs each
            dropped += len(state.hand_log)  # event of a hand in hand_log, its deal to its hand_ended
        if tally is not None and state.last_ending is not None:  # the hand just ended
            ended_hands.append((state.last_ending, actions, state.turn_no, list(map(sub, state.net.values(), before))))
    game.end("simulation complete")
    if tally is not None:
        tally.record_hands(ended_hands, seat_of)
        tally.games += 1
        tally.events += len(events) + dropped
    return events if keep else []


# --- many games ---------------------------------------------------------------------------------


@contextmanager
def relaxed_gc(young: int = 50_000):
    """Run the cyclic garbage collector less often while simulating.

    Play allocates many short-lived objects (events, commands, lists) and almost no
    reference cycles, so collecting the young generation every 700 allocations (the
    default) costs time and finds nothing (what it saves: docs/benchmarks.md).
    The previous thresholds are restored afterwards."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], young), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def run_games(
    config: SimConfig, indices: Iterable[int], db: str | None = None, on_game: Callable[[int], None] | None = None, ruleset: Ruleset | None = None
) -> Tally:
    """Play the games ``indices`` of ``config`` (appending each to the store at ``db``, one
    transaction per game) and return their tally.  Runs in a worker process too.
    ``ruleset``: ``config.ruleset()`` when the caller has built it already."""
    if ruleset is None:
        ruleset = config.ruleset()
    tally = Tally(config.players)
    store = None
    if db is not None:
        from ..storage.open import open_store

        # bulk: whole games committed without an fsync each, all of them on disk at close()
        store = open_store(db, create=True, bulk=True)
    try:
        setup = GameSetup(config, ruleset)
        with relaxed_gc():
            for index in indices:
                events = play_game(config, ruleset, index, tally, keep=store is not None, setup=setup)
                if store is not None:
                    _append(store, events)
                if on_game is not None:
                    on_game(config.hands_in_game(index))
    finally:
        if store is not None:
            store.close()
    return tally


def _append(store: EventSink, events: list[Event]) -> None:
    from ..storage import ConcurrencyError

    gid = game_started(events).game_id
    try:
        store.append(gid, events, 0)
    except ConcurrencyError:
        # The same seed, bots and rules give the same game: re-running a simulation
        # into the same store leaves the identical recorded game as it is.
        if store.read(gid) == events:
            return
        raise SimulationError(
            f"game {gid} is already in the store with other events than this simulation produces "
            "(use another --seed or another --db)"
        ) from None


def _chunks(n: int, workers: int) -> list[range]:
    size = max(1, min(64, math.ceil(n / (workers * 8))))
    return [range(i, min(n, i + size)) for i in range(0, n, size)]


def _run_chunk(config: SimConfig, indices: range, db: str | None) -> tuple[int, dict]:
    t = run_games(config, indices, db)
    return sum(config.hands_in_game(i) for i in indices), t.to_dict()


def _tally_from(d: dict) -> Tally:
    t = Tally()
    t.games, t.hands, t.actions, t.turns, t.events = d["games"], d["hands"], d["actions"], d["turns"], d["events"]
    t.turns_sq, t.actions_sq = d["turns_sq"], d["actions_sq"]
    t.endings = Counter(d["endings"])
    t.lengths = Counter({int(k): v for k, v in d["lengths"].items()})
    t.seat = [dict(r) for r in d["seat"]]
    return t


class SimulationStopped(TonkError):
    """A simulation into a store stopped early (a failed write, a dead worker, an interrupt):
    the message says exactly which of its games are stored (each one whole: a game is one
    transaction) and that the store is consistent.  ``interrupted`` for Ctrl-C."""

    def __init__(self, message: str, *, interrupted: bool = False):
        super().__init__(message)
        self.interrupted = interrupted


def stored_games(config: SimConfig, db: str) -> tuple[int, int]:
    """``(games, hands)`` of this simulation's games that are in the store at ``db``."""
    from ..storage.open import open_store

    ruleset = config.ruleset()
    with open_store(db, create=False) as store:
        present = set(store.game_ids())
    spec = game_id_spec(config, ruleset)
    indices = [i for i in range(config.games) if game_id_for(config, ruleset, i, spec) in present]
    return len(indices), sum(config.hands_in_game(i) for i in indices)


def _stopped(config: SimConfig, db: str, why: str, interrupted: bool) -> SimulationStopped:
    try:
        games, hands = stored_games(config, db)
    except TonkError as exc:
        return SimulationStopped(f"{why}; what is stored cannot be read ({exc})", interrupted=interrupted)
    from ..storage.open import describe

    return SimulationStopped(
        f"{why}; {games} of the simulation's {config.games} game(s) ({hands} of {config.hands} hands) are stored in {describe(db)}, "
        "each game whole, and the store is consistent",
        interrupted=interrupted,
    )


def run(config: SimConfig, db: str | None = None, progress: Callable[[int], None] | None = None) -> tuple[Tally, float]:
    """Play every game of ``config``; returns the tally and the wall time in seconds.

    ``progress`` is called with a number of hands just finished (per game with one
    worker, per batch of games with several).  A run into a store that stops early
    raises :class:`SimulationStopped`, saying which games are stored.
    """
    ruleset = config.check()
    if db is None:
        return _run(config, db, progress, ruleset)
    try:
        return _run(config, db, progress, ruleset)
    except KeyboardInterrupt:
        raise _stopped(config, db, "interrupted", True) from None
    except SimulationStopped:
        raise
    except TonkError as exc:
        if type(exc) is SimulationError and "already in the store" in str(exc):
            raise
        raise _stopped(config, db, f"the simulation stopped: {exc}", False) from None


def _run(config: SimConfig, db: str | None, progress: Callable[[int], None] | None, ruleset: Ruleset) -> tuple[Tally, float]:
    n = config.games
    start = time.perf_counter()
    if config.workers == 1:
        tally = run_games(config, range(n), db, progress, ruleset)
        return tally, time.perf_counter() - start
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    if db is not None:
        # create the store here, once: workers starting together must not both find a
        # half-created file (one would see a schema in the making and refuse it)
        from ..storage.open import open_store

        open_store(db, create=True, bulk=True).close()
    tally = Tally(config.players)
    ctx = multiprocessing.get_context("spawn")  # no fork of a process that may run threads
    with ProcessPoolExecutor(max_workers=config.workers, mp_context=ctx, initializer=_worker_init, initargs=(os.getpid(),)) as pool:
        futures = [pool.submit(_run_chunk, config, chunk, db) for chunk in _chunks(n, config.workers)]
        try:
            for fut in as_completed(futures):
                hands, d = fut.result()
                tally.add(_tally_from(d))
                if progress is not None:
                    progress(hands)
        except BrokenProcessPool:
            raise SimulationError(
                "a worker process died (workers are started by importing the main module: "
                "run from a script file or the tonk command, not from standard input)"
            ) from None
        except BaseException:
            # stop the workers before anyone counts what is stored: no worker writes after
            # this.  (Their futures are not cancelled: the pool, finding its workers gone,
            # fails them itself; cancelling them first makes it trip over the cancelled ones.)
            _stop_workers()
            raise
    return tally, time.perf_counter() - start


# --- workers live and die with their parent ---------------------------------------------------

#: how often a worker checks that its parent is alive (the portable fallback)
PARENT_POLL_SECONDS = 0.5


def _worker_init(parent: int) -> None:
    """Set up a worker: Ctrl-C is the parent's to handle (it stops the workers), and a
    worker dies with its parent, so no orphan goes on writing."""
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent_linux()
    if os.getppid() != parent:  # the parent died before this worker was set up
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="tonk-parent-watch", daemon=True).start()


def _die_with_parent_linux() -> None:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills this process when its parent
    dies.  Linux only; elsewhere the watch thread of :func:`_worker_init` does it."""
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _stop_workers() -> None:
    """Kill this process's worker processes and wait for them (an interrupted or failed run).
    A worker killed mid-append leaves no trace: its transaction never committed."""
    import multiprocessing

    children = multiprocessing.active_children()
    for p in children:
        p.kill()
    for p in children:
        p.join(5)


# --- the report -----------------------------------------------------------------------------------


def _rate(a: int | float, b: int | float) -> float:
    return a / b if b else 0.0


def report(config: SimConfig, tally: Tally, seconds: float | None = None) -> dict:
    """The report of a simulation as plain data (the ``--json`` shape)."""
    hands = tally.hands
    seats = config.seats()
    names = config.seat_bots()
    seat_rows: list[dict[str, Any]] = []
    for i, p in enumerate(seats):
        r = tally.seat[i]
        seat_rows.append(
            {
                "seat": i + 1,
                "player": p,
                "bot": names[i],
                "wins": r["wins"],
                "win_rate": _rate(r["wins"], hands),
                "net": r["net"],
                "net_sq": r["net_sq"],
                "mean_net": _rate(r["net"], hands),
                "mean_net_ci": mean_ci(r["net"], r["net_sq"], hands)["ci"],
                "knocks": r["knocks"],
                "knocks_won": r["knocks_won"],
                "knocks_caught": r["knocks_caught"],
                "tonk_outs": r["tonk_outs"],
            }
        )
    bots: dict[str, dict] = {}
    for row in seat_rows:
        b = bots.setdefault(row["bot"], {"seats": 0, "seat_hands": 0, "wins": 0, "net": 0, "net_sq": 0, "knocks": 0, "knocks_won": 0, "knocks_caught": 0, "tonk_outs": 0})
        b["seats"] += 1
        b["seat_hands"] += hands
        for k in ("wins", "net", "net_sq", "knocks", "knocks_won", "knocks_caught", "tonk_outs"):
            b[k] += row[k]
    for b in bots.values():
        b["win_rate"] = _rate(b["wins"], b["seat_hands"])
        b["mean_net"] = _rate(b["net"], b["seat_hands"])
        # seat-hands counted as independent (exact with one seat per bot)
        b["mean_net_ci"] = mean_ci(b["net"], b["net_sq"], b["seat_hands"])["ci"]
        b["knock_win_rate"] = _rate(b["knocks_won"], b["knocks"])
    knocks = sum(r["knocks"] for r in tally.seat)
    won = sum(r["knocks_won"] for r in tally.seat)
    caught = sum(r["knocks_caught"] for r in tally.seat)
    out = {
        "config": {
            "hands": config.hands,
            "players": config.players,
            "bots": list(names),
            "variants": list(config.variants),
            "options": dict(config.options),
            "seed": config.seed,
            "hands_per_game": config.hands_per_game,
            "workers": config.workers,
        },
        "games": tally.games,
        "hands": hands,
        "actions": tally.actions,
        "actions_sq": tally.actions_sq,
        "turns": tally.turns,
        "turns_sq": tally.turns_sq,
        "hand_turns": {str(k): v for k, v in sorted(tally.lengths.items())},
        "events": tally.events,
        "endings": {k: {"count": v, "share": _rate(v, hands)} for k, v in sorted(tally.endings.items())},
        "tonk_out_rate": _rate(tally.endings.get("tonk_out", 0), hands),
        "knocks": {"total": knocks, "won": won, "caught": caught, "won_rate": _rate(won, knocks), "per_hand": _rate(knocks, hands)},
        "mean_hand_actions": _rate(tally.actions, hands),
        "mean_hand_turns": _rate(tally.turns, hands),
        "seats": seat_rows,
        "bots": bots,
    }
    if seconds is not None:
        out["seconds"] = seconds
        out["hands_per_second"] = _rate(hands, seconds)
        out["actions_per_second"] = _rate(tally.actions, seconds)
    return out


def simulate(config: SimConfig, db: str | None = None, progress: Callable[[int], None] | None = None) -> dict:
    """Run a simulation and return its report (see :func:`report`)."""
    tally, seconds = run(config, db, progress)
    return report(config, tally, seconds)


def _estimates(r: dict) -> list[tuple[str, str, dict]]:
    """The figures of one report compared by :func:`comparison`: ``(metric, kind, estimate)``,
    kind ``share`` or ``mean``, each estimate with its standard error (:mod:`.stats`)."""
    hands = r["hands"]
    ends = r["endings"]
    out: list[tuple[str, str, dict]] = [
        ("tonk-out rate", "share", share_ci(ends.get("tonk_out", {}).get("count", 0), hands)),
        ("knocks per hand", "share", share_ci(r["knocks"]["total"], hands)),  # a knock ends its hand: at most one a hand
        ("knocks won (share)", "share", share_ci(r["knocks"]["won"], r["knocks"]["total"])),
        ("mean hand length (actions)", "mean", mean_ci(r["actions"], r["actions_sq"], hands)),
        ("mean hand length (turns)", "mean", mean_ci(r["turns"], r["turns_sq"], hands)),
    ]
    return out


def _ending_estimate(r: dict, ending: str) -> dict:
    return share_ci(r["endings"].get(ending, {}).get("count", 0), r["hands"])


def comparison(a: dict, b: dict) -> list[dict]:
    """Rows ``{metric, kind, a, b, diff, se, ci, verdict}`` for the figures two reports share:
    ``diff`` is ``b - a``, ``ci`` its 95 % interval and ``verdict`` whether it is likely real
    (:func:`tonk.application.stats.verdict`)."""
    rows = []

    def row(metric: str, kind: str, x: dict, y: dict) -> None:
        d = difference(x, y)
        rows.append({"metric": metric, "kind": kind, "a": x["mean"], "b": y["mean"], "a_ci": x["ci"], "b_ci": y["ci"], **d})

    for (metric, kind, x), (_, _, y) in zip(_estimates(a), _estimates(b)):
        row(metric, kind, x, y)
    for e in sorted(set(a["endings"]) | set(b["endings"])):
        row(f"ending {e} (share)", "share", _ending_estimate(a, e), _ending_estimate(b, e))
    for sa, sb in zip(a["seats"], b["seats"]):
        who = f"{sa['player']} ({sa['bot']})"
        row(f"{who} win rate", "share", share_ci(sa["wins"], a["hands"]), share_ci(sb["wins"], b["hands"]))
        row(f"{who} mean net", "mean", mean_ci(sa["net"], sa["net_sq"], a["hands"]), mean_ci(sb["net"], sb["net_sq"], b["hands"]))
    for bot in a["bots"]:
        if bot in b["bots"] and len(a["bots"]) > 1:
            x, y = a["bots"][bot], b["bots"][bot]
            row(f"bot {bot} win rate", "share", share_ci(x["wins"], x["seat_hands"]), share_ci(y["wins"], y["seat_hands"]))
            row(f"bot {bot} mean net", "mean", mean_ci(x["net"], x["net_sq"], x["seat_hands"]), mean_ci(y["net"], y["net_sq"], y["seat_hands"]))
    return rows


def compare_rulesets(
    config_a: SimConfig,
    config_b: SimConfig,
    db: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict:
    """Run the same seeds (same decks, dealers and bot random sources) under two rulesets
    and set the figures side by side: ``{"a": report, "b": report, "rows": [...]}``."""
    if (config_a.hands, config_a.players, config_a.bots, config_a.seed, config_a.hands_per_game) != (
        config_b.hands,
        config_b.players,
        config_b.bots,
        config_b.seed,
        config_b.hands_per_game,
    ):
        raise SimulationError("a comparison runs the same hands, seats, bots and seed under two rulesets")
    config_a.check()
    config_b.check()
    a = simulate(config_a, db, progress)
    b = simulate(config_b, db, progress)
    return {"a": a, "b": b, "rows": comparison(a, b)}


def with_ruleset(config: SimConfig, variants: Sequence[str], options: dict[str, Any]) -> SimConfig:
    return replace(config, variants=tuple(variants), options=dict(options))


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 2))


__all__ = [
    "MAX_ACTIONS_PER_HAND",
    "SimConfig",
    "SimulationError",
    "SimulationStopped",
    "stored_games",
    "Tally",
    "compare_rulesets",
    "comparison",
    "game_id_for",
    "game_id_spec",
    "game_seed",
    "GameSetup",
    "play_game",
    "report",
    "run",
    "run_games",
    "shuffle_deck",
    "simulate",
    "with_ruleset",
]
