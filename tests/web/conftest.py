"""Shared helpers for the replay viewer's tests: recorded games, and what a player never saw."""

from __future__ import annotations

import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tonk.core import Game
from tonk.core.events import GameStarted, HandDealt, HandEnded
from tonk.core.state import State, evolve
from tonk.storage import EventStore
from tonk.variants import load_ruleset


def record(path: Path, *, seed: int, players=("ann", "bob", "cy"), hands: int = 2, stop_after: int | None = None, finish: bool = True, knock_rate: float = 0.0) -> Game:
    """Play ``hands`` hands with random legal moves (knocking at a turn's start with
    probability ``knock_rate``) and record them.
    With ``stop_after`` the last hand stops after that many actions, still being played."""
    game = Game.new(list(players), seed=seed, ruleset=load_ruleset((), {"max_turns_per_hand": 60}))
    rng = random.Random(seed)
    with EventStore.open(path, create=True) as store:
        version = store.append(game.game_id, list(game.events), 0)
        for hand in range(hands):
            version = store.append(game.game_id, game.deal(), version)
            actions = 0
            while game.in_hand:
                if stop_after is not None and hand == hands - 1 and actions >= stop_after:
                    return game
                legal = game.legal_actions()
                choice = rng.choice([a for a in legal if type(a).__name__ != "Knock"] or legal)
                if type(legal[0]).__name__ == "Knock" and rng.random() < knock_rate:
                    choice = legal[0]
                version = store.append(game.game_id, game.play(choice), version)
                actions += 1
        if finish:
            store.append(game.game_id, [game.end()], version)
    return game


def never_seen(events, player: str) -> set[str]:
    """The cards of the last hand that ``player`` never saw: every card that, from the deal to
    the end of the record, stayed in another player's hand or in the stock (a stock draw by
    another player stays hidden), and was not shown by the hand's end or in the cut for the
    first dealer (A3.1: every seat sees the cut)."""
    state = State()
    hidden: set[str] | None = None
    cut: set[str] = set()
    for event in events:
        evolve(state, event)
        if type(event) is GameStarted:
            cut = {c for cards in event.cut for c in cards}
        elif type(event) is HandDealt:
            hidden = set(state.stock).union(*(h for p, h in state.hands.items() if p != player))
        elif hidden is not None:
            hidden &= set(state.stock).union(*(h for p, h in state.hands.items() if p != player))
            if type(event) is HandEnded:
                hidden -= {c for h in event.hands.values() for c in h}
    return (hidden or set()) - cut


@pytest.fixture(name="record")
def record_fixture():
    """``record(path, seed=..., hands=..., stop_after=...)``: a random game recorded in a store."""
    return record


@pytest.fixture(name="never_seen")
def never_seen_fixture():
    """``never_seen(events, player)``: the cards of the last hand hidden from ``player`` throughout."""
    return never_seen


@pytest.fixture(name="tonk_cli")
def tonk_cli_fixture():
    """``tonk_cli(db, *args)``: run the CLI against ``db`` (a typer CliRunner result)."""
    from typer.testing import CliRunner

    from tonk.cli.app import app

    def run(db: Path, *args: str):
        return CliRunner().invoke(app, ["--db", str(db), *args])

    return run


@pytest.fixture(name="runner_json")
def runner_json_fixture(tonk_cli):
    """``runner_json(db, *args)``: the JSON a CLI command prints (it must succeed)."""
    import json

    def run(db: Path, *args: str):
        result = tonk_cli(db, *args)
        assert result.exit_code == 0, result.stderr
        return json.loads(result.stdout)

    return run


# --- the browser: Debian's Chromium driven by Playwright ----------------------------------------

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under CI=true a skipped browser test fails the run: CI must really run them."""
    import os

    outcome = yield
    report = outcome.get_result()
    if report.skipped and item.get_closest_marker("browser") is not None and os.environ.get("CI") == "true":
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"a browser test may not be skipped in CI (CI=true): {reason}"


@pytest.fixture(scope="session")
def playwright_session():
    """Playwright, once for the session (skipped when it or the system's Chromium is missing)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed: pip install -e '.[browser]' (make test does)")
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: bash .ci/setup-browser (make test does)")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser_context(playwright_session, tmp_path_factory):
    """One headless Chromium (the system's) with a fresh profile for the session."""
    context = playwright_session.chromium.launch_persistent_context(
        str(tmp_path_factory.mktemp("chromium-profile")),
        executable_path=str(CHROMIUM),
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1100, "height": 900},
    )
    try:
        yield context
    finally:
        context.close()


@pytest.fixture(scope="session")
def chromium(playwright_session):
    """The system's headless Chromium, for tests that need several separate browser contexts
    (two people at one table: each its own cookies and storage, as on two devices)."""
    browser = playwright_session.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture
def page(browser_context):
    """A fresh tab; page errors fail the test."""
    tab = browser_context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    tab.close()
    assert not errors, errors


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    """Where the tests save screenshots: $TONK_SCREENSHOTS (``make screenshots``) or a tmp dir."""
    import os

    folder = Path(os.environ.get("TONK_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# --- a real tonk serve process -------------------------------------------------------------------

TONK = str(Path(sys.executable).with_name("tonk"))


class Service:
    """``tonk serve`` on a loopback port as a child process; ``stop()`` ends it by its pid."""

    def __init__(self, tmp_path: Path):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.db = tmp_path / "served.db"
        self.logs = tmp_path / "serve.log"
        self.start()

    def start(self) -> None:
        self.log = open(self.logs, "ab")
        self.proc = subprocess.Popen([TONK, "--db", str(self.db), "serve", "--port", str(self.port)], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                assert self.proc.poll() is None and time.monotonic() < deadline, self.logs.read_text()
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


@pytest.fixture
def server(tmp_path):
    try:
        import litestar  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        pytest.skip("the extra 'serve' is not installed (make test installs it)")
    running = Service(tmp_path)
    yield running
    running.stop()


@pytest.fixture
def service(server):
    """(base URL, store path) of a running ``tonk serve``."""
    return server.url, server.db
