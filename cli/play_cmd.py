"""``tonk play``: a hand (or a session of hands) at the terminal against bots.

The table is drawn from the human's own view (``core.views.player_view``), the
legal actions are offered as a numbered menu and as typed commands, illegal
input is explained by its violation code, rule id and sentence, and every
command's events are appended to the store as they happen (with the expected
version, so a second writer cannot silently interleave).  Input is read line
by line from stdin, so a pipe works as well as a terminal; end of input stops
cleanly, leaving an unfinished hand recorded as far as it went.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from .app import Failure, app, reported, settings
from .options import db_option, option_option, registry_with, variant_file_option, variant_option

HELP_TEXT = """\
Type the number of an action from the menu, or a command:
  d                 draw from the stock          p   take the discard top
  k                 knock                        x KD   discard K\u2666
  s 4H 5H 6H        lay a spread                 h 8S S1   hit 8\u2660 on spread S1
  s 4H X1=5H 6H     a spread with a joker        h X1=7H S1   hit with a joker
  t                 draw the table again         ?   this help      q   quit
Cards: rank (A 2-10 J Q K, T for 10) then suit (S H D C), in any case: 10h, th, Qs."""


class QuitRequest(Exception):
    pass


RESUMED_REASON = "played (resumed: a secret seed lives only in the session that started the game, so it is not revealed)"
"""``game_ended.reason`` of a game finished by ``play --resume`` (docs/decisions.md)."""


def addressed_to(message: str, human: str) -> str:
    """An engine message put to the human at the table: for a seat named "you",
    "you's hand" reads "your hand" and "not you's" reads "not yours"."""
    if human.lower() != "you":
        return message
    return message.replace(f"not {human}'s", "not yours").replace(f"{human}'s", "your")


_ALONE = {"d", "draw", "stock", "p", "pick", "take", "k", "knock"}
"""Commands that take nothing after them."""


def parse_input(text: str, player: str, legal: list) -> Any:
    """A command from a line of input: a menu number or a typed command.

    Returns the command, or raises :class:`Failure` with a usage sentence for
    text that is not a command (whether the command is *legal* is for
    ``decide`` to say).
    """
    from ..core.cards import CardError, parse_card
    from ..core.game import parse_command

    words = text.strip().split()
    if not words:
        raise Failure("type a number from the menu or a command (? for help)")
    head, args = words[0].lower(), words[1:]
    if args and (head.isdigit() or head in _ALONE):
        raise Failure(f"type one action at a time: {text.strip()!r} is {len(words)} words ({words[0]!r} alone is one action)")
    if head.isdigit():
        n = int(head)
        if not 1 <= n <= len(legal):
            raise Failure(f"there is no action {n}: choose 1 to {len(legal)}")
        return legal[n - 1]
    try:
        if head in ("d", "draw", "stock"):
            return parse_command("draw_stock", player, {})
        if head in ("p", "pick", "take"):
            return parse_command("draw_discard", player, {})
        if head in ("k", "knock"):
            return parse_command("knock", player, {})
        if head in ("s", "spread"):
            if len(args) < 3:
                raise Failure("a spread names at least three cards, e.g. s 4H 5H 6H")
            cards, jokers = [], {}
            for a in args:
                c, _, stands = a.partition("=")
                cards.append(c)
                if stands:
                    jokers[c] = stands
            return parse_command("spread", player, {"cards": cards, "jokers_as": jokers})
        if head in ("h", "hit"):
            if len(args) != 2:
                raise Failure("a hit names a card and a spread, e.g. h 8S S1")
            c, _, stands = args[0].partition("=")
            target = args[1].upper()
            return parse_command("hit", player, {"card": c, "target": target, "joker_as": stands or None})
        if head in ("x", "discard"):
            if len(args) != 1:
                raise Failure("a discard names one card, e.g. x KD")
            return parse_command("discard", player, {"card": parse_card(args[0])})
    except CardError as exc:
        raise Failure(str(exc)) from None
    raise Failure(f"unknown command {words[0]!r} (? for help)")


def typed_form(cmd: Any) -> str:
    """The short typed command for a command (``h 8S S1``)."""
    from ..core.commands import Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread

    if isinstance(cmd, DrawStock):
        return "d"
    if isinstance(cmd, DrawDiscard):
        return "p"
    if isinstance(cmd, Knock):
        return "k"
    if isinstance(cmd, LaySpread):
        return "s " + " ".join(f"{c}={cmd.jokers_as[c]}" if c in cmd.jokers_as else c for c in cmd.cards)
    if isinstance(cmd, Hit):
        return f"h {cmd.card}{'=' + cmd.joker_as if cmd.joker_as else ''} {cmd.target}"
    if isinstance(cmd, Discard):
        return f"x {cmd.card}"
    return "?"


def action_text(cmd: Any, discard_top: str | None = None) -> str:
    """A menu entry for a legal action, with cards drawn in colour."""
    from ..core.commands import Discard, DrawDiscard, DrawStock, Hit, Knock, LaySpread
    from .render import safe
    from .table import card

    if isinstance(cmd, DrawStock):
        return "draw from the stock"
    if isinstance(cmd, DrawDiscard):
        return f"take {card(discard_top)} from the discard" if discard_top else "take the discard top"
    if isinstance(cmd, Knock):
        return "[bold]knock[/bold]"
    if isinstance(cmd, LaySpread):
        return "spread " + " ".join(card(c) for c in cmd.cards)
    if isinstance(cmd, Hit):
        return f"hit {card(cmd.card)} on {safe(cmd.target)}"
    if isinstance(cmd, Discard):
        return f"discard {card(cmd.card)}"
    return str(cmd)


def bot_of_kind(kind: str, points: dict[str, int] | None = None, ruleset: Any = None) -> Any:
    """The bot of that kind (valuing cards by ``points``, playing out hands under ``ruleset``); an unknown kind is a :class:`Failure`."""
    from ..core import bots

    try:
        return bots.make_bot(kind, points=points, ruleset=ruleset)
    except (KeyError, ValueError, LookupError) as exc:
        from ..core.names import quoted

        msg = exc.args[0] if exc.args and isinstance(exc.args[0], str) else f"unknown bot {quoted(kind)}"
        raise Failure(msg) from None


class PlaySession:
    """The play loop, free of I/O choices: lines come from ``read_line`` (``None`` at the
    end of input), markup goes to ``out`` (a rich console), events go to ``record``."""

    def __init__(
        self,
        game,
        human: str,
        bots: dict[str, Any],
        *,
        hands: int | None,
        read_line: Callable[[], Optional[str]],
        out,
        record: Callable[[list], None],
        seed: int | None = None,
        echo: bool = False,
        resumed: bool = False,
        fair: tuple[str, dict[str, str]] | None = None,
    ):
        self.echo = echo
        self.fair = fair  # (server seed, client seeds): the session's fair deal (docs/fair-deal.md)
        self.resumed = resumed
        self.game = game
        self.human = human
        self.bots = bots
        self.hands = hands  # None: ask after each hand
        self.played = 0  # hands finished in this session
        self.read_line = read_line
        self.out = out
        self.record = record
        self.rngs = {name: random.Random(f"{seed}:{name}") if seed is not None else random.Random() for name in bots}

    # --- output --------------------------------------------------------------------------
    def say(self, markup: str = "") -> None:
        self.out.print(markup)

    def show_events(self, events: list) -> None:
        from ..core.events import HandEnded
        from ..core.views import event_view
        from .table import ending_lines, event_line

        for e in events:
            data = event_view(e, self.human)
            if isinstance(e, HandEnded):
                self.say()
                for line in ending_lines(data, self.stake):
                    self.say(line)
            else:
                self.say(f"  [dim]\u00b7[/dim] {event_line(data, self.human)}")

    def show_table(self) -> None:
        from ..core.views import player_view
        from .table import table_lines

        self.say()
        for line in table_lines(player_view(self.game.state, self.human)):
            self.say(line)

    def show_menu(self, legal: list) -> None:
        from rich.columns import Columns

        top = self.game.state.discard_top
        from .render import safe

        entries = [f"[bold]{i:>2}[/bold] {action_text(c, top)} [dim]{safe(typed_form(c))}[/dim]" for i, c in enumerate(legal, 1)]
        if self.out.is_terminal:
            self.out.print(Columns(entries, padding=(0, 2), expand=False))
        else:  # piped: one action a line, never one endless line
            for e in entries:
                self.out.print(e)

    # --- the loop ------------------------------------------------------------------------
    def apply(self, cmd) -> None:
        events = self.game.play(cmd)
        self.record(events)
        self.show_events(events)

    def human_turn(self) -> None:
        from ..core.errors import IllegalAction
        from .render import safe

        redraw = True
        while True:
            legal = self.game.legal_actions()
            if redraw:
                self.show_table()
                self.show_menu(legal)
                redraw = False
            text = self.ask(f"[bold]{safe(self.human)}>[/bold] ").strip()
            if not text:
                continue
            low = text.lower()
            if low in ("q", "quit", "exit"):
                raise QuitRequest
            if low in ("?", "help"):
                self.say(HELP_TEXT)
                continue
            if low in ("t", "table"):
                redraw = True
                continue
            try:
                cmd = parse_input(text, self.human, legal)
                self.apply(cmd)
            except Failure as exc:
                self.say(f"[yellow]not understood[/yellow]: {safe(exc.message)}")
                continue
            except IllegalAction as exc:
                message = addressed_to(exc.message, self.human)
                self.say(f"[red]illegal[/red] ({safe(exc.code)}, rule {safe(exc.rule)}): {safe(message)}")
                continue
            return

    def ask(self, prompt: str) -> str:
        """Print ``prompt`` and read a line; :class:`EOFError` at the end of input."""
        self.out.print(prompt, end="")
        self.out.file.flush()
        line = self.read_line()
        if line is None:
            self.say()
            raise EOFError
        if self.echo:  # input from a pipe: keep the transcript readable
            self.out.print(line.rstrip("\n"), markup=False, highlight=False)
        return line

    def another_hand(self) -> bool:
        """Between hands of a session without a hand count: ``y`` deals the next hand, ``n``
        ends the game, ``q`` (or the end of input) stops with the game left open."""
        while True:
            answer = self.ask(f"[bold]another hand?[/bold] y: deal hand {self.game.state.hand_no + 1}, n: end the game, q: stop here> ").strip().lower()
            if answer in ("y", "yes"):
                return True
            if answer in ("n", "no"):
                return False
            if answer in ("q", "quit", "exit"):
                raise QuitRequest
            self.say("[yellow]not understood[/yellow]: type y, n or q")

    def bot_turn(self, name: str) -> None:
        from ..core.views import player_view

        legal = self.game.legal_actions()
        cmd = self.bots[name].choose(player_view(self.game.state, name), legal, self.rngs[name])
        self.apply(cmd)

    def run(self) -> str:
        """Play the hands; returns ``finished``, ``eof``, ``quit`` or ``interrupted`` (Ctrl-C)."""
        from .render import safe

        game = self.game
        if self.resumed:  # already recorded: say where the game stands
            self.say(f"resuming game {safe(game.game_id)} after {len(game.events)} recorded events. {self._net_line()}")
        else:
            self.record(list(game.events))
            self.show_events(list(game.events))
        try:
            while True:
                if not game.in_hand:  # a resumed hand in play is finished first, as one of the hands
                    events = self.deal()
                    self.record(events)
                    self.say()
                    self.show_events(events)
                while game.in_hand:
                    if not game.legal_actions():  # only a house rule can leave a player nothing to do
                        self.stuck()
                    if game.to_act == self.human:
                        self.human_turn()
                    else:
                        self.bot_turn(game.to_act)
                self.played += 1
                self.say(self._net_line())
                if self.played == self.hands or (self.hands is None and not self.another_hand()):
                    break
        except EOFError:
            self.stopped("input ended")
            return "eof"
        except QuitRequest:
            self.stopped("you quit")
            return "quit"
        except KeyboardInterrupt:
            self.say()
            self.stopped("interrupted")
            return "interrupted"
        ended = game.end(RESUMED_REASON if self.resumed else "played", server_seed=self.fair[0] if self.fair else "")
        self.record([ended])
        self.say(f"\n[bold]game over[/bold] after {game.state.hand_no} hand(s). {self._net_line()}")
        self.say(f"recorded as game {safe(game.game_id)}")
        return "finished"

    def deal(self) -> list:
        """The next hand: the fair deal ``tonk-deal-v1`` with the session's seeds (the server
        seed and the person's seed drawn here; the bots' seeds empty), salted like a served
        table's; without them (a seeded or resumed session) the game's own shuffle."""
        if self.fair is None:
            return list(self.game.deal())
        from ..core.commands import DealHand
        from ..core.commitment import new_salt

        server_seed, client_seeds = self.fair
        return list(self.game.play(DealHand(server_seed=server_seed, client_seeds=client_seeds, salt=new_salt())))

    def _net_line(self) -> str:
        from .table import net_line

        return net_line(self.game.net, self.stake)

    @property
    def stake(self) -> int:
        return int(self.game.ruleset.options.get("base_stake", 1) or 1)

    def stuck(self) -> None:
        """The player to act has no legal action: the hand cannot go on, the game is left as
        recorded, and the session ends with an error saying why."""
        from ..core.legal import no_legal_action
        from .render import safe

        g = self.game
        self.say(f"recorded as far as it went: game {safe(g.game_id)} (hand {g.state.hand_no} stays unfinished). {self._net_line()}")
        raise Failure(f"hand {g.state.hand_no}: {no_legal_action(g.state, g.ruleset)}")

    def stopped(self, why: str) -> None:
        from .render import safe

        g = self.game
        where = f"hand {g.state.hand_no} stays unfinished" if g.in_hand else "no hand in play"
        self.say(f"{why}: {where}. {self._net_line()}")
        more = f" -n {self.hands - self.played}" if self.hands is not None else ""  # the hand count is not recorded
        self.say(f"recorded as far as it went: game {safe(g.game_id)} (tonk play --resume {safe(g.game_id[:8])}{more} goes on with it)")


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _stdin_line() -> Optional[str]:
    line = sys.stdin.readline()
    return line if line else None


@app.command("play")
def play_cmd(
    ctx: typer.Context,
    seat: str = typer.Option("you", "--seat", metavar="NAME", help="Your name at the table."),
    bot: list[str] = typer.Option(
        [], "--bot", "-b", metavar="KIND|SEAT=KIND", help="An opponent: a bot kind (random, greedy, expert) or SEAT=KIND; repeat for more. Default: two greedy bots."
    ),
    stake: Optional[int] = typer.Option(None, "--stake", min=1, metavar="N", help="The base stake (option base_stake)."),
    variant: list[str] = variant_option(),
    option: list[str] = option_option(),
    variant_file: list[Path] = variant_file_option(),
    seed: Optional[int] = typer.Option(None, "--seed", "-s", metavar="N", help="Seed for the cut, the shuffles and the bots: a replayable session, NOT secret (anyone who knows or guesses the seed knows every deck). Without it the deal is drawn from the OS's secure random source and its seed recorded only when the game ends."),
    hands: Optional[int] = typer.Option(
        None,
        "--hands",
        "-n",
        min=1,
        metavar="N",
        help="How many hands to play (default 1). With --resume: how many more, the hand in play counting (if not given, you are asked after each hand).",
    ),
    max_turns: Optional[int] = typer.Option(
        None, "--max-turns", min=0, metavar="N", help="Safeguard: end a hand with no payments after this many turns (option max_turns_per_hand; default 200, 0 = none)."
    ),
    receipts: Optional[Path] = typer.Option(None, "--receipts", metavar="DIR", help="Write each seat a signed receipt into DIR at every hand's end (tonk verify --receipt checks one)."),
    resume: Optional[str] = typer.Option(
        None, "--resume", metavar="GAME", help="Go on with an unfinished game from the store (any unique prefix of its id); --seat names your seat in it."
    ),
    db: Optional[str] = db_option(),
) -> None:
    """Play Tonk at the terminal against bots; the game is recorded in the store as it is played."""
    from ..core.game import Game
    from ..variants.loading import build_ruleset, parse_option_pairs
    from .render import console

    if resume is not None:
        with reported():
            if variant or option or stake is not None or max_turns is not None:
                raise Failure("--resume plays on under the game's recorded rules: give no --variant, --option, --stake or --max-turns")
        _resume(ctx, resume, seat, bot, seed, hands, receipts, variant_file)
        return
    with reported():
        fixed: dict[str, Any] = {}
        named = {k for k, _ in parse_option_pairs(option)}
        if stake is not None:
            fixed["base_stake"] = stake
        if max_turns is not None:
            fixed["max_turns_per_hand"] = max_turns
        elif "max_turns_per_hand" not in named:
            fixed["max_turns_per_hand"] = 200
        ruleset = build_ruleset(variant, option, options=fixed, registry=registry_with(variant_file))
        seats, bots = _seats(seat, bot or ["greedy", "greedy"], ruleset.points, ruleset)
        import uuid

        fair = None
        if seed is None:  # a secret session deals fairly: its seeds drawn here, the server seed revealed at the end
            from ..core.fair_deal import new_client_seed, new_server_seed, seed_hash

            fair = (new_server_seed(), {p: ("" if p in bots else new_client_seed()) for p in seats})
        game = Game.new(seats, ruleset=ruleset, seed=seed, game_id=str(uuid.uuid4()), server_seed_hash=seed_hash(fair[0]) if fair else None)
        if receipts is not None:
            from .evidence_cmd import make_receipts_directory

            make_receipts_directory(receipts)
        store = _open_store(settings(ctx).db)
        writer = None
        if receipts is not None:
            from .evidence_cmd import ReceiptWriter

            try:
                writer = ReceiptWriter(store, receipts)
            except BaseException:
                store.close()
                raise
    out = console()
    version = 0

    def record(events: list) -> None:
        nonlocal version
        if events:
            version = store.append(game.game_id, events, version)
            if writer is not None and any(type(e).__name__ == "HandEnded" for e in events):
                writer.game(game.game_id)

    session = PlaySession(
        game, seat, bots, hands=hands or 1, read_line=_stdin_line, out=out, record=record, seed=seed, echo=not _isatty(sys.stdin), fair=fair
    )
    _run(session, store, writer, receipts, out)


def _resume(
    ctx: typer.Context, text: str, seat: str, bot_specs: list[str], seed: int | None, hands: int | None, receipts: Optional[Path], variant_files: list[Path]
) -> None:
    """``tonk play --resume GAME``: the recorded events folded back into a game, played on under
    its pinned ruleset (a variant it names from a file needs that ``--variant-file``)."""
    from ..core.events import GameEnded, GameStarted
    from ..core.game import Game
    from ..variants import load_ruleset
    from .games_cmd import open_existing_store, resolve_game_id
    from .render import console

    with reported():
        store = open_existing_store(settings(ctx).db)
        try:
            gid = resolve_game_id(store, text)
            events = store.read(gid)
            first = events[0] if events else None
            if not isinstance(first, GameStarted):
                raise Failure(f"game {gid} does not start with game_started (run tonk audit on it)")
            if any(isinstance(e, GameEnded) for e in events):
                raise Failure(f"game {gid} has ended; there is nothing to resume (tonk replay {gid[:8]} shows it)")
            if seat not in first.players:
                raise Failure(f"{seat!r} is not a seat of game {gid[:8]} (seats: {', '.join(first.players)}); give --seat NAME")
            ruleset = load_ruleset(first.ruleset, registry=registry_with(variant_files))
            game = Game(ruleset, events, seed=seed)
            others = [p for p in first.players if p != seat]
            kinds = bot_specs or ["greedy"]
            bots: dict[str, Any] = {}
            for i, name in enumerate(others):
                kind = kinds[i % len(kinds)]
                if "=" in kind:
                    raise Failure("with --resume, --bot takes bot kinds for the other seats in order (the seats keep their recorded names)")
                bots[name] = bot_of_kind(kind, ruleset.points, ruleset)
            writer = None
            if receipts is not None:
                from .evidence_cmd import ReceiptWriter

                writer = ReceiptWriter(store, receipts)
        except BaseException:
            store.close()
            raise
    out = console()
    version = len(events)

    def record(new: list) -> None:
        nonlocal version
        if new:
            version = store.append(gid, new, version)
            if writer is not None and any(type(e).__name__ == "HandEnded" for e in new):
                writer.game(gid)

    session = PlaySession(
        game, seat, bots, hands=hands, read_line=_stdin_line, out=out, record=record, seed=seed, echo=not _isatty(sys.stdin), resumed=True
    )
    _run(session, store, writer, receipts, out)


def _run(session: PlaySession, store: Any, writer: Any, receipts: Any, out: Any) -> None:
    """Play the session to its end, close the store, say how many receipts were written, and
    exit 130 when the person interrupted it."""
    try:
        with reported():
            outcome = session.run()
    finally:
        store.close()
    if writer is not None and writer.written:
        out.print(f"wrote {writer.written} receipt(s) to {receipts}", markup=False, highlight=False)
    if outcome == "interrupted":
        raise typer.Exit(130)


def _seats(human: str, bot_specs: list[str], points: dict[str, int], ruleset: Any = None) -> tuple[list[str], dict[str, Any]]:
    from ..core.names import check_name

    seats = [check_name(human, "--seat")]
    bots: dict[str, Any] = {}
    kinds_seen: dict[str, int] = {}
    for spec in bot_specs:
        name, sep, kind = spec.partition("=")
        if not sep:
            kind = name
            kinds_seen[kind] = kinds_seen.get(kind, 0) + 1
            name = kind if bot_specs.count(kind) == 1 else f"{kind}{kinds_seen[kind]}"
        name, kind = name.strip(), kind.strip()
        if not name or not kind:
            raise Failure(f"--bot takes a bot kind or SEAT=KIND, not {spec!r}")
        check_name(name, "--bot seat name")
        if name in seats:
            raise Failure(f"two seats are named {name!r}; name bots with --bot SEAT=KIND")
        bot = bot_of_kind(kind, points, ruleset)
        seats.append(name)
        bots[name] = bot
    return seats, bots


def _open_store(path: str):
    from ..storage.open import open_store

    return open_store(path, create=True)
