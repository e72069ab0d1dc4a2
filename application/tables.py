"""Running tables: the engine and the event store combined for people playing over a network.

A table is a game.  A seat's command goes through the same ``decide`` as
every other game; the seats that bots play (``greedy``/``random``) are then
played here, by the server, until a human seat is to act; and all of it is
appended to the store in one transaction with the version the seat saw and
the seat's command id (so a retry is never applied twice).  Hand follows hand until the hand limit or the
host closes the table.  Every deal is committed with a secret salt
(``core.commitment``) and is the fair deal ``tonk-deal-v1`` (``core.fair_deal``): a
server seed drawn when the table is created (its hash answered then and recorded in
``game_started``), every person's seed sent when their seat sits down
(:meth:`Tables.sit`; the table is ``waiting`` and deals nothing until every person's seat
has sat, or its sitting deadline has passed), and the hand number.  The server seed and
the seeds of the seats that have sat are kept beside the table's settings in the store
(``storage.seats``), never in the event log or a view, until ``game_ended`` reveals the
server seed.  A table created before fair deals (no server seed kept) deals as it did:
shuffled from the OS CSPRNG.

The in-memory :class:`Table` is only a cache of the fold: :meth:`Tables.table`
rebuilds a table from the store whenever it is not cached, so a restarted
server resumes every table exactly where it was.  Seat tokens are made here,
shown once, and only their hashes are kept (``storage.seats``).

Several service nodes may serve one store (PostgreSQL).  The cache is then
never trusted for a decision: a command, a view or a close first compares the
cached version with the store's (:meth:`Tables.fresh`) and folds the table
again when another node appended; an append that loses a race (the expected
version moved) drops the cache, and the command is answered from the store
(its command id already applied: the first answer; otherwise 409 with the
current version).  Events appended by other nodes reach this node's streams
through :meth:`Tables.catch_up`, which reads the store's global order after the
last position it saw (the service calls it after each ``NOTIFY`` hint or poll).

Every method is synchronous and meant to be called from one thread (the
service's event loop); listeners are told of every event exactly when the
node's fold first holds it: after this node's append, or when a fold reads
another node's (:meth:`Tables.catch_up`, or a read that folds the table again).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import random
import secrets
import time
import uuid
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import msgspec

from ..core.bots import bot_names, make_bot
from ..core.audit import command_of_event
from ..core.commands import DealHand, LaySpread
from ..core.commitment import PLAIN, new_salt, secure_shuffle
from ..core.fair_deal import client_seed_problem, new_server_seed, seed_hash
from ..core.errors import IllegalAction, SetupError
from ..core.events import TIMED_EVENTS, Event, GameEnded, HandDealt, HandEnded, game_started
from ..core.game import Game, parse_command
from ..core.legal import legal_actions
from ..core.names import check_name
from ..core.turn import decide
from ..core.views import AUDITOR, event_view, only_own_seed, player_view
from ..storage.seats import SeatStore, token_hash
from ..storage.errors import ConcurrencyError
from .adjudicate import ruleset_loader
from .table_types import (
    HOST,
    SPECTATOR,
    BadToken,
    CommandIdReused,
    CommandResult,
    CreatedTable,
    Forbidden,
    HandCommitment,
    RematchedTable,
    RematchExists,
    RematchLink,
    SatDown,
    SeatView,
    SeedFixed,
    StaleVersion,
    StillInPlay,
    TableError,
    TableOver,
    TableSettings,
    Unavailable,
    UnknownTable,
)

Listener = Callable[["Table", int, list[Event]], None]


class StreamItem(msgspec.Struct, frozen=True):
    """One stored event as a viewer may see it, with its seq and its chain hash; a
    ``hand_ended`` carries the hand's deal revealed in full (deck order and salt)."""

    seq: int
    hash: str
    event: dict[str, Any]
    deal: dict[str, Any] | None = None


class Table:
    """The cached fold of one served game, with its settings and bots."""

    def __init__(
        self,
        game: Game,
        settings: TableSettings,
        hashes: list[str],
        command_seqs: dict[str, tuple[int, int]],
        closing: bool,
        server_seed: str | None = None,
        client_seeds: dict[str, str] | None = None,
    ):
        self.game = game
        self.settings = settings
        self.server_seed = server_seed  # the fair deal's (None: a table from before fair deals)
        self.client_seeds = dict(client_seeds or {})  # the seeds of the people's seats that have sat
        self.hashes = hashes  # hashes[seq - 1]
        self.command_seqs = command_seqs  # command id -> (first seq, last seq)
        self.closing = closing
        self.bots = {seat: make_bot(name, ruleset=game.ruleset) for seat, name in settings.bots.items()}
        self.rng = random.SystemRandom()
        self.turn_started = time.monotonic()
        # seat -> (seq of the last hand_ended, game over, the seat's last_hand then): every view
        # shows it, and it changes only when a hand or the game ends
        self.last_hands: dict[str, tuple[int, bool, dict[str, Any]]] = {}
        self.listeners: set[Listener] = set()
        self.pending: list[Event] = []  # applied to the cache, not yet stored (one request's batch)
        self.checked: int | None = None  # the store's mark of others' commits when the fold was last found current

    @property
    def id(self) -> str:
        return self.game.game_id

    @property
    def version(self) -> int:
        return len(self.game.events)

    @property
    def status(self) -> str:
        if self.game.state.game_over:
            return "ended"
        if self.closing:
            return "closing"
        return "waiting" if self.waiting else "playing"

    @property
    def waiting(self) -> bool:
        """Whether the table waits for people to sit down (no hand dealt yet; a fair deal)."""
        state = self.game.state
        return self.server_seed is not None and state.hand_no == 0 and not state.in_hand and not state.game_over

    def humans(self) -> list[str]:
        return [p for p in self.game.players if p not in self.bots]

    def sat(self) -> list[str]:
        """The people's seats that have sat down, in seating order."""
        return [p for p in self.humans() if p in self.client_seeds]

    def dealt_seeds(self) -> dict[str, str] | None:
        """The client seeds the game's first fair deal recorded (every later hand uses them)."""
        for e in self.game.events:
            if type(e) is HandDealt and isinstance(e.client_seeds, dict):
                return dict(e.client_seeds)
        return None


#: how many folded tables a server keeps in memory (tables with a running turn timer are kept beyond it)
CACHE_LIMIT = 1000


class Tables:
    """Every served table of one store."""

    def __init__(self, store: Any, *, clock: Callable[[], float] = time.monotonic):
        self.store = store
        self.seats = SeatStore(store)
        self.clock = clock
        self._cache: OrderedDict[str, Table] = OrderedDict()  # least recently used first
        self.cache_limit = CACHE_LIMIT
        self._listeners: dict[str, set[Listener]] = {}  # per table id: outlives a cached Table
        self._told: dict[str, int] = {}  # per table id: the last seq its listeners were told of
        self._load_ruleset = ruleset_loader()  # each (variants, options) built once
        self.position = store.last_position()  # the global order, read up to here by catch_up
        # called with a table's id after each write of this node that concerns it (its events,
        # its seats' settings), before anyone is told: the service holds what it shows of the
        # table until that write is on disk (service/group_sync.py)
        self.wrote: Callable[[str], None] = lambda table_id: None
        self._seat_of: dict[tuple[str, str], str] = {}  # (table id, token's hash) -> seat, found before
        # a mark that changes whenever another connection commits to the store (SQLite's
        # data_version), never for this one's own commits: while it stays, the cached folds are
        # current and the global order holds only this node's appends.  None (PostgreSQL):
        # every read asks the store
        self._others: Callable[[], int] | None = getattr(store, "data_version", None)
        self._others_at_catch_up: int | None = None
        # whether this thread's last append stored rows up to a version (the store tells; a
        # retried command id's no-op answers a version too): (game id, version) -> bool
        self._appended: Callable[[str, int], bool] = getattr(store, "appended", lambda game_id, version: True)

    # --- creating --------------------------------------------------------------------
    def create(self, settings: TableSettings) -> CreatedTable:
        """Start a table: record the game, deal the first hand, let the bots play up to the
        first human turn.  The seat tokens are returned here and nowhere else."""
        table, tokens, host_token = self._start(settings, people_tokens=True, links={})
        return CreatedTable(
            table=table.id, version=table.version, tokens=tokens, host_token=host_token, commitment=_commitment(table), server_seed_hash=_seed_hash(table), status=table.status
        )

    def rematch(self, table_id: str, seat: str, admit: Callable[[], None] = lambda: None) -> RematchedTable:
        """The host starts a new game with the ended table's seats and settings (rules, bots,
        hand limit, turn timer).  Its seats get no token here: each seat's is derived from
        that seat's token at the ended table (:func:`rematch_token`) and recorded when the seat
        reads its view there with it (:meth:`view`); the host gets a new host token.
        ``admit()`` is called once the rematch may be started, before it is (the service's
        caps on tables in play raise there)."""
        table = self.fresh(table_id)
        if seat != HOST:
            raise Forbidden("only the table's host token can start a rematch")
        if not table.game.state.game_over:
            raise StillInPlay("the game at this table is still in play: a rematch starts once it has ended", current_version=table.version)
        linked = (self.seats.settings(table_id) or {}).get("rematch")
        if linked:
            raise RematchExists(f"this table's rematch is table {linked} already")
        admit()
        new, _, host_token = self._start(table.settings, people_tokens=False, links={"rematch_of": table_id})
        self.seats.link_rematch(table_id, new.id)
        self.wrote(table_id)
        return RematchedTable(
            table=new.id, version=new.version, host_token=host_token, rematch_of=table_id, commitment=_commitment(new), server_seed_hash=_seed_hash(new), status=new.status
        )

    def _start(self, settings: TableSettings, *, people_tokens: bool, links: dict[str, str]) -> tuple[Table, dict[str, str], str]:
        _check_settings(settings)
        ruleset = self._load_ruleset(list(settings.variants), dict(settings.options))
        ruleset.check_seats(len(settings.seats))  # the seat range is the ruleset's (core.ruleset)
        seed = secrets.randbits(63)  # only the cut for the first dealer uses it
        server_seed = new_server_seed()  # the fair deal's: secret until game_ended reveals it
        game = Game.new(settings.seats, ruleset=ruleset, dealer=settings.dealer, seed=seed, game_id=str(uuid.uuid4()), server_seed_hash=seed_hash(server_seed))
        tokens = {seat: secrets.token_urlsafe(32) for seat in settings.seats if seat not in settings.bots} if people_tokens else {}
        host_token = secrets.token_urlsafe(32)
        self.seats.register(game.game_id, {**msgspec.to_builtins(settings), **links, SERVER_SEED: server_seed}, {**tokens, HOST: host_token})
        table = Table(Game(ruleset), settings, [], {}, False, server_seed=server_seed)
        table.listeners = self._listeners.setdefault(game.game_id, set())
        with self._batch(table, ""):
            self._stage(table, list(game.events))
            self._advance(table)
        self._keep(table)
        return table, tokens, host_token

    # --- finding and loading -----------------------------------------------------------
    def table(self, table_id: str) -> Table:
        """The table, from the cache or rebuilt from the store (the fold of its events)."""
        table = self._cache.get(table_id)
        if table is not None:
            self._cache.move_to_end(table_id)
            return table
        for _ in range(20):  # another node may be playing the same bots' turns: fold again
            try:
                return self._load(table_id)
            except StaleVersion:
                continue
        return self._load(table_id)

    def fresh(self, table_id: str) -> Table:
        """The table as the store has it now: the cached fold when no other node appended
        since, else folded again (several nodes share one store)."""
        table = self.table(table_id)
        mark = self._others() if self._others is not None else None
        if mark is not None and table.checked == mark:
            return table  # nobody else has committed since this fold was last found current
        if self.store.version(table_id) != table.version:
            self._cache.pop(table_id, None)
            table = self.table(table_id)
        table.checked = mark
        return table

    def catch_up(self) -> int:
        """Read the store's global order after the last position seen; each served table that
        another node appended to is folded again and its listeners told.  Returns how many
        events were read."""
        if self._others is not None:
            last = self.store.last_position()
            mark = self._others()
            if mark == self._others_at_catch_up:  # only this node's appends since: in the folds, told
                self.position = max(self.position, last)
                return 0
            self._others_at_catch_up = mark  # read before the reads below: a commit after it is read next time
        read = 0
        while True:
            batch = self.store.appended_after(self.position)
            if not batch:
                return read
            read += len(batch)
            self.position = batch[-1][0]
            newest: dict[str, int] = {}
            for _, game_id, seq in batch:
                newest[game_id] = seq
            for game_id, seq in newest.items():
                self._caught_up(game_id, seq)

    def _caught_up(self, game_id: str, seq: int) -> None:
        cached = self._cache.get(game_id)
        if cached is None and not self._listeners.get(game_id):
            return
        if cached is not None and seq <= cached.version:
            return  # in the fold already (appended here, or folded by a read): the listeners were told then
        self._cache.pop(game_id, None)
        self.table(game_id)  # folded again, the listeners told (_load)

    def _tell(self, table: Table) -> None:
        """Tell the table's listeners of the events in its fold they have not been told of: each
        time the fold grows, by this node's append or by a fold that reads another node's."""
        told = self._told.get(table.id, 0)
        if table.version <= told:
            return
        self._told[table.id] = table.version
        self.wrote(table.id)
        for listener in list(table.listeners):
            listener(table, told + 1, table.game.events[told:])

    def _load(self, table_id: str) -> Table:
        raw = self.seats.settings(table_id) if isinstance(table_id, str) else None
        if raw is None:
            raise UnknownTable(f"no table {table_id!r}")
        settings = msgspec.convert({k: v for k, v in raw.items() if k not in _NOT_SETTINGS}, TableSettings)
        hashes: list[str] = []
        command_seqs: dict[str, tuple[int, int]] = {}
        events: list[Event] = []
        from ..core.events import decode

        for r in self.store.records(table_id):
            hashes.append(r.hash)
            events.append(decode(bytes(r.payload)))
            if r.command_id:
                first, _ = command_seqs.get(r.command_id, (r.seq, r.seq))
                command_seqs[r.command_id] = (first, r.seq)
        ruleset = self._load_ruleset(game_started(events).ruleset)
        table = Table(Game(ruleset, events), settings, hashes, command_seqs, self.seats.closed(table_id), raw.get(SERVER_SEED), raw.get(CLIENT_SEEDS))
        table.listeners = self._listeners.setdefault(table_id, set())
        with self._batch(table, ""):
            self._advance(table)  # a store written by an older server, or a crash between batches
        self._keep(table)
        self._tell(table)
        return table

    def _keep(self, table: Table) -> None:
        """Cache ``table``; past :attr:`cache_limit` tables, drop the least recently used that
        no timer needs (a table in play with a turn timer stays: the timer walks the cache).
        A dropped table is folded from the store again when asked; its listeners stay."""
        self._cache[table.id] = table
        self._cache.move_to_end(table.id)
        excess = len(self._cache) - self.cache_limit
        if excess <= 0:
            return
        for table_id, cached in list(self._cache.items()):
            if excess <= 0:
                break
            if cached is table or (cached.settings.turn_timer and not cached.game.state.game_over):
                continue
            del self._cache[table_id]
            excess -= 1

    def forget(self, table_id: str) -> None:
        """Drop the cached fold of ``table_id`` and what its listeners were told: a write of it
        was lost after it was folded in (the service's batch of appends rolled back whole,
        ``service/group_sync.py``).  The store is read again when the table is next asked for."""
        self._cache.pop(table_id, None)
        self._told.pop(table_id, None)

    def listen(self, table_id: str, listener: Listener) -> None:
        """Call ``listener(table, first_seq, events)`` after each append to the table: this
        node's, or another node's once :meth:`catch_up` has seen it (a listener outlives the cache)."""
        self._listeners.setdefault(table_id, set()).add(listener)

    def listing(self) -> list[dict[str, Any]]:
        """Every served table (``GET /tables``), from the store's games projection and the
        tables' settings, two queries: no table is folded to be listed."""
        rows = {r["game_id"]: r for r in self.store.games()}
        out = []
        for table_id, settings, closed in self.seats.listing():
            row = rows.get(table_id)
            if row is None:
                continue  # registered, its first append not made (a failed create)
            fair = SERVER_SEED in settings
            status = "ended" if row["status"] == "ended" else "closing" if closed else "waiting" if fair and not row["hands"] else "playing"
            bots = dict(settings.get("bots") or {})
            out.append(
                {
                    "table": table_id,
                    "players": row["players"],
                    "bots": bots,
                    "status": status,
                    "version": row["events"],
                    "hand_no": row["hands"],
                    "rematch": settings.get("rematch"),
                    "rematch_of": settings.get("rematch_of"),
                    # who has sat down (names only: a seat's seed is its own until the game ends)
                    "sat": [p for p in row["players"] if p not in bots and p in (settings.get(CLIENT_SEEDS) or {})],
                }
            )
        return out

    def table_ids(self) -> list[str]:
        return self.seats.game_ids()

    def resume_timers(self) -> int:
        """Load every served table that has a turn timer and a game in play, so that its timer
        runs again after a restart (the timer walks the loaded tables); returns how many."""
        loaded = 0
        for table_id, settings, _ in self.seats.listing():  # one query for every table's settings
            if not settings.get("turn_timer"):
                continue
            if self.table(table_id).game.state.game_over:
                self._cache.pop(table_id, None)
                continue
            loaded += 1
        return loaded

    def seat_of(self, table_id: str, token: str | None, hashed: str | None = None) -> str:
        """The seat a token belongs to (or :data:`HOST`); :class:`BadToken` otherwise.
        ``hashed``: the token's :func:`~tonk.storage.seats.token_hash`, when the caller has it."""
        self.table(table_id)
        if not token:
            raise BadToken("this route needs the seat's token (Authorization: Bearer TOKEN)")
        key = (table_id, hashed or token_hash(token))
        seat = self._seat_of.get(key)  # a token's seat never changes (tokens are only ever added)
        if seat is None:
            seat = self.seats.seat_for(table_id, token)
            if seat is None:
                raise BadToken("the token is not a token of this table")
            if len(self._seat_of) >= 4 * CACHE_LIMIT:
                self._seat_of.clear()
            self._seat_of[key] = seat
        return seat

    # --- reading -----------------------------------------------------------------------
    def view(self, table_id: str, seat: str, token: str | None = None, *, current: bool = False) -> SeatView:
        """The seat's view; of an ended table whose host started a rematch, it names the
        rematch and, when ``token`` (the seat's, as presented) is given, the seat's token there,
        whose hash is recorded at the rematch then (only this seat's request can: it is
        derived from this seat's token, which the store does not hold).  ``current``: the
        caller has just brought the table up to date (a command's answer), no need to ask the
        store again."""
        table = self.table(table_id) if current else self.fresh(table_id)
        if seat == HOST:
            raise Forbidden("the host token closes the table; a seat's view needs that seat's token")
        rematch = self._rematch_link(table, seat, token) if table.game.state.game_over else None
        if table.waiting:  # a sit appends no event: another node's is seen in the store's settings
            table.client_seeds.update((self.seats.settings(table_id) or {}).get(CLIENT_SEEDS) or {})
        state = table.game.state
        legal = legal_actions(state, table.game.ruleset) if state.in_hand and state.to_act == seat else []
        return SeatView(
            table=table.id,
            seat=seat,
            version=table.version,
            status=table.status,
            hand_limit=table.settings.hand_limit,
            turn_timer=table.settings.turn_timer,
            bots=dict(table.settings.bots),
            view=player_view(state, seat),
            legal=msgspec.to_builtins(legal),
            last_hand=_last_hand(table, seat),
            commitment=_commitment(table),
            rematch=rematch,
            hand_total=table.game.ruleset.hand_total(state.hands[seat]) if seat in state.hands else None,
            server_seed_hash=_seed_hash(table),
            sat=table.sat(),
            client_seed=table.client_seeds.get(seat),
            sit_deadline=table.settings.sit_deadline,
            stand_in=(table.settings.stand_in or "greedy") if table.settings.turn_timer else None,
        )

    # --- sitting down (the fair deal) --------------------------------------------------
    def sit(self, table_id: str, seat: str, client_seed: Any) -> SatDown:
        """The seat sits down with its client seed (``core.fair_deal``).  A seat's seed is
        fixed once it has sat: the same seed again is answered as the first time, another is
        :class:`SeedFixed`.  When every person's seat has sat, hand 1 is dealt (and the bots
        play up to the first person's turn) in the same request."""
        table = self.fresh(table_id)
        if seat == HOST:
            raise Forbidden("the host token cannot sit down: each seat sits with its own token")
        if table.server_seed is None:
            raise SeedFixed("this table was created before fair deals: its hands are dealt without the seats' seeds", current_version=table.version)
        problem = client_seed_problem(client_seed)
        if problem:
            raise TableError(problem)
        stored = dict((self.seats.settings(table_id) or {}).get(CLIENT_SEEDS) or {})  # another node's sits included
        had = stored.get(seat) or table.client_seeds.get(seat)
        if had is not None and had != client_seed:
            raise SeedFixed("this seat has sat down already with another seed: a seat's seed is fixed once it has sat", current_version=table.version)
        if had is None:
            if table.game.state.game_over:
                raise TableOver("the game at this table has ended")
            if not table.waiting:
                raise SeedFixed("hand 1 was dealt without this seat's seed (the sitting deadline passed)", current_version=table.version)
            stored[seat] = client_seed
            self.seats.set_private(table_id, CLIENT_SEEDS, stored)
            self.wrote(table_id)
        table.client_seeds.update(stored)
        if table.waiting:
            try:
                with self._batch(table, ""):
                    self._advance(table)
            except StaleVersion:  # another node dealt first: the store says what happened
                table = self.fresh(table_id)
        return SatDown(
            table=table.id, seat=seat, client_seed=client_seed, status=table.status, version=table.version, sat=table.sat(), server_seed_hash=_seed_hash(table) or "", commitment=_commitment(table)
        )

    def _rematch_link(self, table: Table, seat: str, token: str | None) -> RematchLink | None:
        new = (self.seats.settings(table.id) or {}).get("rematch")
        if not new:
            return None
        if token is None or seat in table.bots:
            return RematchLink(table=new)
        mine = rematch_token(token, new, seat)
        self.seats.add_token(new, seat, mine)  # once: a seat keeps the first hash recorded
        self.wrote(table.id)
        return RematchLink(table=new, token=mine)

    def items(self, table_id: str, viewer: str, after: int = 0) -> list[StreamItem]:
        """The stored events after seq ``after`` as ``viewer`` may see them (a seat's name;
        :data:`SPECTATOR` sees no hidden card and only hands that have ended)."""
        table = self.table(table_id)
        events = table.game.events
        upto = len(events) if viewer != SPECTATOR else _spectator_horizon(events)
        return [self.item(table, seq, viewer) for seq in range(max(after, 0) + 1, upto + 1)]

    def item(self, table: Table, seq: int, viewer: str) -> StreamItem:
        events = table.game.events
        e = events[seq - 1]
        deal = None
        if type(e) is HandEnded:
            deal = _revealed_deal(events, seq, viewer)
        return StreamItem(seq=seq, hash=table.hashes[seq - 1], event=event_view(e, viewer), deal=deal)

    def spectator_horizon(self, table_id: str) -> int:
        return _spectator_horizon(self.table(table_id).game.events)

    # --- playing -----------------------------------------------------------------------
    def act(self, table_id: str, seat: str, action: str, fields: dict[str, Any], version: int, command_id: str) -> CommandResult:
        """Apply one seat's command.  A command id already applied gets its first answer
        again; a stale ``version`` is :class:`StaleVersion` (with the current one); an
        illegal action raises :class:`IllegalAction` and nothing changes.  A cached fold is
        decided on without asking the store first (PostgreSQL has no cheap mark of other nodes'
        commits; SQLite's costs a read transaction): the append checks the version it expects
        (another node's append makes it fail, and a command id another node recorded makes it
        store nothing), and a command the cached fold refuses, or whose append fails so, is
        decided again on the store's state (:meth:`fresh`)."""
        if table_id in self._cache:
            try:
                return self._act(self.table(table_id), seat, action, fields, version, command_id)
            except Exception:
                pass  # refused on a fold that may be behind the store, or it was: asked again below
        return self._act(self.fresh(table_id), seat, action, fields, version, command_id)

    def _act(self, table: Table, seat: str, action: str, fields: dict[str, Any], version: int, command_id: str) -> CommandResult:
        table_id = table.id
        if seat == HOST:
            raise Forbidden("the host token cannot play a seat")
        if not command_id or len(command_id) > 100:
            raise TableError("command_id must be 1 to 100 characters")
        if not command_id.isprintable():  # stored with the events (PostgreSQL's text holds no NUL)
            raise TableError(f"command_id must be printable text, not {command_id!r} (a control character)")
        try:
            command = parse_command(action, seat, fields)
        except (KeyError, TypeError) as exc:
            raise TableError(f"action {action!r} needs the field {exc}") from None
        except ValueError as exc:  # a card that is not a card
            raise TableError(str(exc)) from None
        done = table.command_seqs.get(command_id)
        if done is not None:
            return self._retried(table, seat, command_id, command, done)
        if table.game.state.game_over:
            raise TableOver("the game at this table has ended")
        if version != table.version:
            raise _not_current(version, table.version)
        events = decide(table.game.state, command, table.game.ruleset)
        first = table.version + 1
        try:
            with self._batch(table, command_id):  # the command, the bots' turns after it, the next deal: one append
                self._stage(table, events)
                table.turn_started = self.clock()
                self._advance(table)
        except StaleVersion:  # another node appended first: the store says what happened
            table = self.table(table_id)
            done = table.command_seqs.get(command_id)
            if done is not None:  # this very command, applied by another node (a retry raced)
                return self._retried(table, seat, command_id, command, done)
            raise _not_current(version, table.version) from None
        return self._result(table, seat, command_id, (first, table.version))

    def receipts(self, table_id: str, seat: str, after: int = 0) -> list[dict[str, Any]]:
        """The seat's signed receipts (issue 14: ``tonk verify --receipt``), one for each
        hand that has ended after seq ``after``: ``{"seq", "receipt"}`` in order.  Signed
        with the store's key (created on first use; see tonk.storage.keys); :class:`Unavailable`
        when the ``evidence`` extra is not installed or the key cannot be used."""
        from ..storage.evidence import hand_end_receipts
        from ..storage.signed_note import INSTALL_HINT, EvidenceError

        table = self.table(table_id)
        if seat == HOST:
            raise Forbidden("the host token closes the table; receipts are a seat's, with that seat's token")
        if not any(type(e) is HandEnded for e in table.game.events[after:]):
            return []
        try:
            signed = hand_end_receipts(self.store, table.id, after=after, only=seat)  # the asker's alone: one signature a hand
        except EvidenceError as exc:
            if str(exc) == INSTALL_HINT:  # how to install it: the same on every server
                raise Unavailable(f"receipts cannot be signed here: {exc}") from None
            # the key's trouble names a file of the server's disk: the operator's log has it, a seat does not
            logging.getLogger("tonk.service").warning("receipts cannot be signed: %s", exc)
            raise Unavailable("receipts cannot be signed here: the server's signing key cannot be used (the server's log says why)") from None
        return [{"seq": seq, "receipt": text} for seq, _, text in signed]

    def close(self, table_id: str, seat: str) -> SeatView | dict[str, Any]:
        """The host closes the table: the game ends when the hand in play has ended."""
        table = self.fresh(table_id)
        if seat != HOST:
            raise Forbidden("only the table's host token can close it")
        if not table.closing:
            self.seats.mark_closed(table_id)
            self.wrote(table_id)
            table.closing = True
        with self._batch(table, ""):
            self._advance(table)
        return {"table": table.id, "status": table.status, "version": table.version}

    def expire_turns(self) -> int:
        """Play, with the greedy bot, every cached human turn whose timer ran out, and deal hand
        1 at every waiting table whose sitting deadline passed; returns how many so."""
        now = self.clock()
        played = 0
        for table in list(self._cache.values()):
            deadline = table.settings.sit_deadline
            if deadline and table.waiting and now - table.turn_started >= deadline:
                try:
                    with self._batch(table, ""):
                        self._advance(table, deadline_passed=True)
                except StaleVersion:
                    continue
                played += 1
                continue
            limit = table.settings.turn_timer
            state = table.game.state
            if not limit or not state.in_hand or state.to_act in table.bots:
                continue
            if now - table.turn_started >= limit:
                try:
                    with self._batch(table, ""):
                        self._play_turn_for(table, state.to_act)
                        table.turn_started = self.clock()
                        self._advance(table)
                except StaleVersion:
                    continue  # another node played first: the cache is dropped, folded again when asked
                played += 1
        return played

    # --- inside ------------------------------------------------------------------------
    def _retried(self, table: Table, seat: str, command_id: str, command: Any, seqs: tuple[int, int]) -> CommandResult:
        """The first answer to a command id already applied, when the request repeats that
        command (the same seat and action); else :class:`CommandIdReused`."""
        first = table.game.events[seqs[0] - 1]
        recorded = command_of_event(first)
        same = getattr(first, "player", None) == seat and (recorded is None or _same_command(recorded, command))
        if not same:
            raise CommandIdReused(f"command id {command_id!r} was already used for another command at seq {seqs[0]}: choose a new id")
        return self._result(table, seat, command_id, seqs)

    def _result(self, table: Table, seat: str, command_id: str, seqs: tuple[int, int]) -> CommandResult:
        """The answer to a command: its events and those after it (the bots', the next deal),
        each as :meth:`item` gives it to ``seat``, as plain data (what ``msgspec.to_builtins``
        makes of a :class:`StreamItem`, without making one: its event and deal are plain data)."""
        first, last = seqs
        events, hashes = table.game.events, table.hashes
        items = []
        for s in range(first, last + 1):
            e = events[s - 1]
            deal = _revealed_deal(events, s, seat) if type(e) is HandEnded else None
            items.append({"seq": s, "hash": hashes[s - 1], "event": event_view(e, seat), "deal": deal})
        return CommandResult(table=table.id, command_id=command_id, version=last, events=items)

    def _stage(self, table: Table, events: list[Event]) -> None:
        """Apply events to the cached fold and keep them for the batch's one append (their
        hashes, which cover the time the append records, are read back after it)."""
        for e in events:
            table.game._apply(e)
        table.pending.extend(events)

    @contextmanager
    def _batch(self, table: Table, command_id: str) -> Iterator[None]:
        """Everything staged inside is stored in one append (one transaction) with the expected
        version and ``command_id``, then the listeners are told.  On any failure the cached table
        is dropped: the store stays the truth, and the next request folds it again."""
        before = table.version - len(table.pending)
        try:
            yield
            events, table.pending = table.pending, []
            if not events:
                return
            try:
                stored = self.store.append(table.game.game_id, events, expected_version=before, command_id=command_id or None)
                if stored != table.version or not self._appended(table.id, stored):  # the command id was recorded meanwhile (another node's): nothing appended
                    raise ConcurrencyError(table.id, before, stored)
                table.hashes.extend(self.store.hashes_after(table.game.game_id, len(table.hashes)))
            except ConcurrencyError:
                raise StaleVersion("the table changed under this command; read it again", current_version=self.store.version(table.id)) from None
        except BaseException:
            self._cache.pop(table.id, None)
            table.pending = []
            raise
        if command_id:
            table.command_seqs[command_id] = (before + 1, table.version)
        self._tell(table)

    def _deal(self, table: Table, deadline_passed: bool = False) -> None:
        """Deal the next hand: the fair deal when the table has a server seed (hand 1 once every
        person's seat has sat, or at the sitting deadline with the empty seed for the others;
        later hands with the seeds hand 1 recorded); a table from before, shuffled."""
        if table.server_seed is None:
            deck = tuple(secure_shuffle(table.game.ruleset.deck))
            self._stage(table, decide(table.game.state, DealHand(deck=deck, salt=new_salt()), table.game.ruleset))
            return
        seeds = table.dealt_seeds()
        not_sat: tuple[str, ...] = ()
        if seeds is None:
            not_sat = tuple(p for p in table.humans() if p not in table.client_seeds)
            if not_sat and not deadline_passed:
                return  # waiting for people to sit down
            seeds = {p: ("" if p in table.bots else table.client_seeds.get(p, "")) for p in table.game.players}
        command = DealHand(server_seed=table.server_seed, client_seeds=seeds, salt=new_salt(), not_sat=not_sat)
        self._stage(table, decide(table.game.state, command, table.game.ruleset))

    def _play_turn_for(self, table: Table, seat: str) -> None:
        """The stand-in bot (greedy unless the host chose another) plays the rest of ``seat``'s turn
        (its timer ran out); the first event it plays says so."""
        greedy = make_bot(table.settings.stand_in or "greedy", ruleset=table.game.ruleset)
        state = table.game.state
        marked = False
        while state.in_hand and state.to_act == seat:
            cmd = greedy.choose(player_view(state, seat), legal_actions(state, table.game.ruleset), table.rng)
            events = decide(state, cmd, table.game.ruleset)
            if not marked and type(events[0]) in TIMED_EVENTS:
                events[0] = msgspec.structs.replace(events[0], timed_out=True)
                marked = True
            self._stage(table, events)

    def _advance(self, table: Table, deadline_passed: bool = False) -> None:
        """Play the bots' turns, deal the next hand, or end the game, until a human is to act
        (or the table waits for people to sit down)."""
        game = table.game
        state = game.state
        while not state.game_over:
            if state.in_hand:
                bot = table.bots.get(state.to_act)
                if bot is None:
                    return
                view = player_view(state, state.to_act) if bot.uses_view else None
                cmd = bot.choose(view, legal_actions(state, game.ruleset), table.rng)
                self._stage(table, decide(state, cmd, game.ruleset))
                table.turn_started = self.clock()
                continue
            limit = table.settings.hand_limit
            if table.closing or (limit is not None and state.hand_no >= limit):
                reason = "closed by the host" if table.closing else f"hand limit {limit} reached"
                # the fair deal's server seed is revealed now: every deck can be recomputed
                self._stage(table, [GameEnded(reason=reason, net=dict(state.net), server_seed=table.server_seed or "")])
                return
            version = table.version
            self._deal(table, deadline_passed)
            if table.version == version:
                return  # waiting for people to sit down
            table.turn_started = self.clock()


#: the keys of a table's stored settings that link it to its rematch, not settings of its game
_LINKS = ("rematch", "rematch_of")
#: the fair deal's secrets kept beside the settings while the game is live (never in a view):
#: the server seed, and the seed of each person's seat that has sat down
SERVER_SEED = "server_seed"
CLIENT_SEEDS = "client_seeds"
_NOT_SETTINGS = _LINKS + (SERVER_SEED, CLIENT_SEEDS)


def rematch_token(token: str, rematch: str, seat: str) -> str:
    """``seat``'s token at the table ``rematch``, derived from its token at the ended table:
    ``b64url(HMAC-SHA256(key = token, "tonk-rematch-v1\n" rematch "\n" seat))``.  Only the
    holder of the seat's token (and the server while that token is presented) can compute it;
    the store, which keeps hashes only, cannot."""
    mac = hmac.new(token.encode("utf-8"), f"tonk-rematch-v1\n{rematch}\n{seat}".encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode("ascii")


def _same_command(recorded: Any, asked: Any) -> bool:
    """Whether a request asks for the command recorded (a spread's cards in any order)."""
    if type(recorded) is not type(asked):
        return False
    if isinstance(recorded, LaySpread):
        return recorded.player == asked.player and sorted(recorded.cards) == sorted(asked.cards)
    return bool(recorded == asked)


#: the most seats a served table has (docs/http-api.md), whatever its ruleset would seat
MAX_SEATS = 12


def _check_settings(s: TableSettings) -> None:
    if len(s.seats) > MAX_SEATS:  # the fewest are the ruleset's (Ruleset.check_seats)
        raise SetupError(f"a served table seats 2 to {MAX_SEATS} players, not {len(s.seats)}")
    for seat in s.seats:
        check_name(seat, "seat name")  # the one rule for names (core/names.py)
        if seat.startswith("@") or seat == AUDITOR:  # the service's own: @ marks host and spectator
            raise SetupError(f"seat name {seat!r} must not start with @ and must not be '*'")
    for seat, bot in s.bots.items():
        if seat not in s.seats:
            raise SetupError(f"bots: {seat!r} is not one of the seats")
        if bot not in bot_names():
            raise SetupError(f"bots: {bot!r} is not a bot the server plays ({', '.join(bot_names())})")
    if s.stand_in is not None and s.stand_in not in bot_names():
        raise SetupError(f"stand_in: {s.stand_in!r} is not a bot the server plays ({', '.join(bot_names())})")
    if len(s.bots) >= len(s.seats):
        raise SetupError("a table needs at least one seat played by a person")
    if s.hand_limit is not None and not 1 <= s.hand_limit <= 10_000:
        raise SetupError("hand_limit must be 1 to 10000")
    if s.turn_timer is not None and not 1 <= s.turn_timer <= 86_400:
        raise SetupError("turn_timer must be 1 to 86400 seconds")
    if s.sit_deadline is not None:
        if s.turn_timer is None:
            raise SetupError("sit_deadline needs a turn_timer: only a timed table deals without a person's seed")
        if not 1 <= s.sit_deadline <= 86_400:
            raise SetupError("sit_deadline must be 1 to 86400 seconds")


def _spectator_horizon(events: list[Event]) -> int:
    """The seq up to which a spectator sees: the last ended hand (or the game's end)."""
    for i in range(len(events) - 1, -1, -1):
        if type(events[i]) in (HandEnded, GameEnded):
            return i + 1
    return 1 if events else 0  # the seating only


def _revealed_deal(events: list[Event], end_seq: int, viewer: str) -> dict[str, Any] | None:
    """The deal of the hand that ends at ``end_seq``, whole (deck order and salt); a fair
    deal's client seeds other than the viewer's own only once the game has ended."""
    for i in range(end_seq - 2, -1, -1):
        if type(events[i]) is HandDealt:
            deal = event_view(events[i], AUDITOR)
            if "client_seeds" in deal and not (events and type(events[-1]) is GameEnded):
                deal["client_seeds"] = only_own_seed(deal["client_seeds"], viewer)
            return deal
    return None


def _seed_hash(table: Table) -> str | None:
    """The fair deal's ``server_seed_hash`` (recorded in ``game_started``), or ``None``."""
    first = table.game.events[0] if table.game.events else None
    value = getattr(first, "server_seed_hash", None)
    return value if isinstance(value, str) else None


def _commitment(table: Table) -> HandCommitment | None:
    """The commitment of the hand in play (its ``hand_dealt``), without the salt or the deck."""
    if not table.game.state.in_hand:
        return None
    for e in reversed(table.game.events):
        if type(e) is HandDealt:
            scheme = e.commitment_scheme if isinstance(e.commitment_scheme, str) else PLAIN
            return HandCommitment(hand_no=e.hand_no, scheme=scheme, commitment=e.commitment)
    return None


def _last_hand(table: Table, viewer: str) -> dict[str, Any] | None:
    events = table.game.events
    over = bool(events) and type(events[-1]) is GameEnded  # the other seeds open then (_revealed_deal)
    for i in range(len(events) - 1, -1, -1):
        if type(events[i]) is HandEnded:
            known = table.last_hands.get(viewer)
            if known is not None and known[0] == i + 1 and known[1] == over:
                return known[2]
            last = {"seq": i + 1, "ended": msgspec.to_builtins(events[i]), "deal": _revealed_deal(events, i + 1, viewer)}
            table.last_hands[viewer] = (i + 1, over, last)
            return last
    return None



def _not_current(version: int, current: int) -> StaleVersion:
    """The ``409`` of a command sent for another version than the table's (``current_version``)."""
    when = "is stale" if version < current else "is ahead of the table"
    return StaleVersion(f"version {version} {when}: the table is at version {current}", current_version=current)

__all__ = ["Tables", "Table", "StreamItem", "IllegalAction", "rematch_token"]
