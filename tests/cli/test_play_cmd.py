"""``tonk play``: scripted input through CliRunner, the play loop, and a real pseudo-terminal."""

from __future__ import annotations

import io
import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from tonk.variants import load_ruleset
from tonk.core import Game
from tonk.core.commands import Discard, DrawStock, Hit, Knock, LaySpread
from tonk.storage import EventStore

# --- CliRunner: input from a pipe ---------------------------------------------------------


def test_a_hand_played_from_a_pipe_is_recorded_and_audits_clean(tonk, db):
    # draw then take the first offered action, turn after turn, until the hand ends
    result = tonk("play", "--seat", "ann", "--bot", "random", "--seed", "4", input="d\n1\n" * 150)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "game over after 1 hand(s)" in result.stdout
    gid = re.search(r"recorded as game (\S+)", result.stdout).group(1)
    assert "ann> d" in result.stdout  # piped input is echoed into the transcript
    (g,) = json.loads(tonk("games", "--json").stdout)["games"]
    assert g["game_id"] == gid and g["status"] == "ended" and g["players"][0] == "ann"
    assert g["options"]["max_turns_per_hand"] == 200 and g["hands"] == 1
    audit = tonk("audit", gid)
    assert audit.exit_code == 0 and "verdict: clean" in audit.stdout


def test_illegal_and_unreadable_input_is_explained_and_play_goes_on(tonk):
    result = tonk("play", "--bot", "random", "--seed", "2", "--hands", "2", input="x KD\nzz\ns 2H\nx ZZ\n9999\n?\nt\n" + "k\n" * 10)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "illegal (MUST_DRAW_FIRST, rule A7.4): draw a card before you discard" in out
    assert "not understood: unknown command 'zz'" in out
    assert "a spread names at least three cards" in out
    assert "unknown card 'ZZ'" in out
    assert "there is no action 9999" in out
    assert "Type the number of an action from the menu, or a command" in out
    assert "game over after 2 hand(s)" in out
    assert "Traceback" not in out + result.stderr


def test_end_of_input_stops_cleanly_and_keeps_what_was_played(tonk):
    result = tonk("play", "--bot", "random", "--seed", "3", input="d\n")
    assert result.exit_code == 0, result.stderr
    assert "input ended: hand 1 stays unfinished" in result.stdout
    assert "recorded as far as it went: game " in result.stdout
    (g,) = json.loads(tonk("games", "--json").stdout)["games"]
    assert g["status"] == "open" and g["events"] >= 3
    assert tonk("audit", g["game_id"]).exit_code == 0


def test_quit_mid_hand(tonk):
    result = tonk("play", "--bot", "random", "--seed", "3", input="q\n")
    assert result.exit_code == 0
    assert "you quit: hand 1 stays unfinished" in result.stdout


def test_options_are_recorded_in_the_ruleset(tonk):
    result = tonk(
        "play", "--seat", "zoe", "--bot", "max=random", "--bot", "random", "--stake", "3",
        "--max-turns", "50", "--option", "caught_scheme=double_flat", "--seed", "9", input="k\n" * 5,
    )
    assert result.exit_code == 0, result.stderr
    (g,) = json.loads(tonk("games", "--json").stdout)["games"]
    assert g["players"] == ["zoe", "max", "random"]
    assert g["options"]["base_stake"] == 3 and g["options"]["max_turns_per_hand"] == 50
    assert g["options"]["caught_scheme"] == "double_flat"


def test_the_same_seed_plays_the_same_game_under_a_new_id(tonk):
    a = tonk("play", "--bot", "random", "--seed", "5", input="k\n" * 3)
    b = tonk("play", "--bot", "random", "--seed", "5", input="k\n" * 3)
    ids = [g["game_id"] for g in json.loads(tonk("games", "--json").stdout)["games"]]
    assert len(set(ids)) == 2
    strip = lambda out: re.sub(r"game [0-9a-f-]{8,}", "game X", out)  # noqa: E731
    assert strip(a.stdout) == strip(b.stdout)


def test_bad_play_options_are_one_error_line(tonk, clean_failure):
    clean_failure(tonk("play", "--variant", "no-such-rule"), 2, "unknown variant 'no-such-rule'")
    clean_failure(tonk("play", "--option", "base_stake"), 2, "NAME=VALUE")
    clean_failure(tonk("play", "--option", "nope=1"), 2, "unknown option 'nope'")
    clean_failure(tonk("play", "--stake", "2", "--option", "base_stake=3"), 2, "option base_stake is given twice")
    clean_failure(tonk("play", "--bot", "nobody-bot"), 2, "unknown bot 'nobody-bot'")
    clean_failure(tonk("play", "--seat", "random", "--bot", "random"), 2, "two seats are named 'random'")
    four_bots = [a for n in "abcd" for a in ("--bot", f"{n}=random")]
    clean_failure(tonk("play", *four_bots), 2, "seats 2 to 3 players, not 5")


def test_an_unwritable_database_is_one_error_line(runner, tmp_path, clean_failure):
    from tonk.cli.app import app

    result = runner.invoke(app, ["--db", str(tmp_path / "missing-dir" / "t.db"), "play"], input="k\n")
    clean_failure(result, 2, "does not exist")


# --- the play loop itself --------------------------------------------------------------------


def test_every_command_is_recorded_before_the_next_prompt():
    from tonk.cli.play_cmd import PlaySession, bot_of_kind

    game = Game.new(["me", "bot"], seed=21, ruleset=load_ruleset((), {"max_turns_per_hand": 200}))
    recorded: list = []
    prompts = []
    script = iter(["d", "1"] * 200)

    def read_line():
        prompts.append(len(recorded))
        assert recorded == game.events, "the store lags behind the game at a prompt"
        return next(script, None)

    bot = bot_of_kind("random")
    out = Console(file=io.StringIO(), width=80)
    session = PlaySession(game, "me", {"bot": bot}, hands=1, read_line=read_line, out=out, record=recorded.extend, seed=1)
    assert session.run() == "finished"
    assert recorded == game.events and len(prompts) > 2
    assert max(len(line) for line in out.file.getvalue().splitlines()) <= 80


def test_ctrl_c_stops_the_session_with_what_was_recorded():
    from tonk.cli.play_cmd import PlaySession, bot_of_kind

    game = Game.new(["me", "bot"], seed=21, ruleset=load_ruleset())
    recorded: list = []

    def read_line():
        raise KeyboardInterrupt

    out = Console(file=io.StringIO(), width=80)
    session = PlaySession(game, "me", {"bot": bot_of_kind("random")}, hands=1, read_line=read_line, out=out, record=recorded.extend)
    assert session.run() == "interrupted"
    assert recorded == game.events and game.in_hand
    assert "interrupted: hand 1 stays unfinished" in out.file.getvalue()


def test_parse_input_accepts_typed_commands_and_menu_numbers():
    from tonk.cli.app import Failure
    from tonk.cli.play_cmd import parse_input, typed_form

    legal = [Knock("me"), DrawStock("me")]
    assert parse_input("2", "me", legal) == DrawStock("me")
    assert parse_input("K", "me", legal) == Knock("me")
    assert parse_input("s 4h 5H th", "me", legal) == LaySpread("me", ("4H", "5H", "10H"))
    assert parse_input("h 8s s1", "me", legal) == Hit("me", "8S", "S1", None)
    assert parse_input("h X1=7H S2", "me", legal) == Hit("me", "X1", "S2", "7H")
    assert parse_input("x kd", "me", legal) == Discard("me", "KD")
    for cmd in (LaySpread("me", ("4H", "5H", "6H")), Hit("me", "8S", "S1"), Discard("me", "KD"), Knock("me")):
        assert parse_input(typed_form(cmd), "me", legal) == cmd
    for bad in ("3", "0", "h 8S", "x", "fly"):
        with pytest.raises(Failure):
            parse_input(bad, "me", legal)


# --- a real pseudo-terminal ------------------------------------------------------------------

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


class Pty:
    """A child process on a pseudo-terminal, read with deadlines so a test can never hang."""

    def __init__(self, args: list[str], env: dict[str, str]):
        import fcntl
        import struct
        import termios

        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 80, 0, 0))
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.buffer = ""

    def expect(self, *patterns: str, timeout: float = 20.0) -> str:
        """Read until one of ``patterns`` appears in the (ANSI-stripped) output; return it."""
        deadline = time.monotonic() + timeout
        while True:
            text = ANSI.sub("", self.buffer)
            found = [(text.index(p), p) for p in patterns if p in text]
            if found:  # the earliest match, so no pattern is skipped over
                at, p = min(found)
                self.buffer = text[at + len(p) :]
                return p
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {patterns!r}; output so far:\n{text[-2000:]}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"the program ended while waiting for {patterns!r}:\n{text[-2000:]}")
                self.buffer += chunk.decode("utf-8", "replace")

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self, timeout: float = 20.0) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            os.close(self.master)


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_through_a_pseudo_terminal_then_audit_clean(db: Path, runner):
    from tonk.cli.app import app

    env = dict(os.environ, TONK_DB=str(db), COLUMNS="80", LINES="40", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    args = [sys.executable, "-c", "from tonk.cli.app import main; main()", "play", "--bot", "random", "--seed", "11", "--hands", "2"]
    pty = Pty(args, env)
    try:
        script = iter(["x KD"] + ["d", "1"] * 300)
        prompts = illegal_seen = 0
        while True:
            got = pty.expect("you> ", "game over", "illegal (")
            if got == "game over":
                break
            if got == "illegal (":
                illegal_seen += 1
                continue
            prompts += 1
            if prompts == 1:
                # the game is in the store while it is being played
                with EventStore.open(db, create=False) as store:
                    (gid,) = store.game_ids()
                    assert store.version(gid) >= 2
            pty.send(next(script))
        pty.expect("recorded as game ")
        rc = pty.close()
    finally:
        if pty.proc.poll() is None:
            pty.proc.kill()
    assert rc == 0
    assert prompts > 1 and illegal_seen >= 1
    with EventStore.open(db, create=False) as store:
        (gid,) = store.game_ids()
    audit = runner.invoke(app, ["--db", str(db), "audit", gid])
    assert audit.exit_code == 0, audit.stdout
    assert "verdict: clean" in audit.stdout


NO_DISCARD = '''"""Nobody discards (a house rule that leaves a player who cannot spread nothing to do)."""
from tonk.core.commands import Discard
from tonk.variants import VariantInfo, hookimpl

VARIANT = VariantInfo(name="no-discard", summary="Nobody discards.", doc=__doc__)


@hookimpl
def tonk_veto(state, command, ruleset):
    return VARIANT.illegal("NO_DISCARD", "nobody discards") if type(command) is Discard else None
'''


@pytest.mark.parametrize("seed,who", [(1, "greedy2"), (2, "you")])
def test_a_player_the_house_rules_leave_no_legal_action_ends_the_session_with_an_error(tmp_path, seed, who):
    # a bot with nothing legal to do was an IndexError traceback; a person was shown an empty
    # menu and could only quit: the hand cannot go on, and the session says so (exit 2)
    from script_helpers import tonk as run

    f = tmp_path / "no_discard.py"
    f.write_text(NO_DISCARD)
    db = tmp_path / "p.db"
    r = run("play", "-s", str(seed), "-n", "1", "--variant-file", str(f), "-v", "no-discard", "--db", str(db), input="d\nd\nq\n")
    assert r.code == 2, r.out + r.err
    assert r.err_line() == f"error: hand 1: {who} has no legal action at turn 1 (the rules no-discard refuse every command open to the player), so the hand cannot go on"
    assert "recorded as far as it went: game " in r.out and "(hand 1 stays unfinished)" in r.out
