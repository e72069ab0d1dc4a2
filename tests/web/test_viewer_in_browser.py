"""The replay viewer in a real browser (Debian's Chromium through Playwright): stepping,
perspectives, deep links, the self-contained file with no network, and no leaks."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tonk import web
from tonk.application.replay_document import replay_document
from tonk.core.views import AUDITOR, HIDDEN
from tonk.storage import EventStore
from page_checks import CONTRAST, only_this_file

pytestmark = pytest.mark.browser

RANKS = {"A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight", "9": "nine", "10": "ten", "J": "jack", "Q": "queen", "K": "king"}
SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def card_name(code: str) -> str:
    """How a screen reader must name a card: ``10H`` is "ten of hearts"."""
    return "hidden card" if code == HIDDEN else f"{RANKS[code[:-1]]} of {SUITS[code[-1]]}"


def events_of(db: Path, game) -> list:
    with EventStore.open(db, create=False) as store:
        return store.read(game.game_id)


def html_file(tonk_cli, db: Path, game, out: Path, *extra: str) -> Path:
    result = tonk_cli(db, "replay", game.game_id, "--html", str(out), *extra)
    assert result.exit_code == 0, result.stderr
    return out


def open_viewer(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready]")
    assert page.get_attribute("body", "data-ready") == "true", page.inner_text("#status")


def position(page) -> str:
    return page.inner_text("#position")


def seat_cards(page, player: str) -> list[str]:
    return page.eval_on_selector_all(f'.seat[data-player="{player}"] li.card', "els => els.map(e => e.getAttribute('aria-label'))")


@pytest.fixture
def full_game(tmp_path, record, tonk_cli):
    db = tmp_path / "g.db"
    game = record(db, seed=21, hands=2, knock_rate=0.03)
    return db, game, html_file(tonk_cli, db, game, tmp_path / "replay.html")


def test_step_forward_and_back_with_buttons_keys_and_slider(page, full_game):
    db, game, path = full_game
    n = len(events_of(db, game))
    open_viewer(page, path.as_uri())
    assert position(page) == f"Event 1 of {n}"
    assert page.is_disabled("#prev") and page.is_enabled("#next")
    assert "Game started: ann, bob, cy" in page.inner_text("#event-text")
    page.click("#next")
    page.click("#next")
    assert position(page) == f"Event 3 of {n}"
    page.click("#prev")
    assert position(page) == f"Event 2 of {n}"
    assert "Hand 1 dealt by" in page.inner_text("#event-text")
    page.focus("#next")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert position(page) == f"Event 3 of {n}"
    page.keyboard.press("End")
    assert position(page) == f"Event {n} of {n}" and page.is_disabled("#next")
    assert "Game ended" in page.inner_text("#event-text")
    page.fill("#slider", "7")  # a range input takes its value like this
    assert position(page) == f"Event 7 of {n}"
    assert "e=7" in page.evaluate("location.hash")
    page.keyboard.press("Home")
    assert position(page) == f"Event 1 of {n}"


def test_the_keys_step_whatever_control_has_focus_even_after_choosing_a_perspective(page, full_game):
    """Issue 20: after choosing a perspective in its select, the arrows stepped the select (the
    perspective changed); now ←/→, Home and End step the replay from any control, and the
    perspective stays the one chosen."""
    db, game, path = full_game
    n = len(events_of(db, game))
    open_viewer(page, path.as_uri())
    page.select_option("#perspective", "bob")
    page.focus("#perspective")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert position(page) == f"Event 3 of {n}"
    assert page.input_value("#perspective") == "bob" and page.evaluate("document.activeElement.id") == "perspective"
    page.keyboard.press("ArrowLeft")
    assert position(page) == f"Event 2 of {n}"
    page.keyboard.press("End")
    assert position(page) == f"Event {n} of {n}" and page.input_value("#perspective") == "bob"
    for control in ("#hand-select", "#slider", "#deep-link", "#first"):
        page.focus(control)
        page.keyboard.press("Home")
        assert position(page) == "Event 1 of " + str(n), control
        page.keyboard.press("ArrowRight")
        assert position(page) == "Event 2 of " + str(n), control
    assert page.input_value("#perspective") == "bob"


def test_jump_to_a_hand_and_its_ledger(page, full_game):
    db, game, path = full_game
    events = events_of(db, game)
    doc = replay_document(game.game_id, events)
    open_viewer(page, path.as_uri())
    second = doc["hands"][1]
    page.select_option("#hand-select", "1")
    assert position(page) == f"Event {second['first']} of {len(events)}"
    assert "Hand 2 dealt by" in page.inner_text("#event-text")
    page.click("text=Show the end of hand 1")
    assert position(page) == f"Event {doc['hands'][0]['last']} of {len(events)}"
    net = ", ".join(f"{p} {v:+d}".replace("-", "\u2212") if v else f"{p} 0" for p, v in doc["hands"][1]["net"].items())
    assert f"Net after hand 2: {net}" in page.inner_text("#hands")


def test_switch_perspective_shows_what_that_player_saw(page, full_game, screenshots):
    db, game, path = full_game
    doc = replay_document(game.game_id, events_of(db, game))
    seq = (doc["hands"][0]["first"] + doc["hands"][0]["last"]) // 2  # inside hand 1
    open_viewer(page, path.as_uri() + f"#e={seq}")
    auditor = doc["steps"][AUDITOR][seq - 1]["view"]
    for p in game.players:
        assert seat_cards(page, p) == [card_name(c) for c in auditor["hands"][p]]
    page.screenshot(path=str(screenshots / "replay-auditor.png"), full_page=True)
    page.select_option("#perspective", "bob")
    assert position(page).startswith(f"Event {seq} of")
    assert "as=bob" in page.evaluate("location.hash")
    bob = doc["steps"]["bob"][seq - 1]["view"]
    assert seat_cards(page, "bob") == [card_name(c) for c in bob["hand"]]
    for p in ("ann", "cy"):
        assert seat_cards(page, p) == ["hidden card"] * bob["hand_sizes"][p]
    assert page.inner_text("#stock-order") == ""  # the stock order is the auditor's alone
    page.screenshot(path=str(screenshots / "replay-as-player.png"), full_page=True)


def test_a_deep_link_opens_that_event_as_that_player(page, full_game):
    db, game, path = full_game
    doc = replay_document(game.game_id, events_of(db, game))
    seq = (doc["hands"][1]["first"] + doc["hands"][1]["last"]) // 2
    open_viewer(page, path.as_uri() + f"#e={seq}&as=cy")
    assert position(page) == f"Event {seq} of {doc['events']}"
    assert page.input_value("#perspective") == "cy"
    assert seat_cards(page, "cy") == [card_name(c) for c in doc["steps"]["cy"][seq - 1]["view"]["hand"]]
    page.click("#next")
    assert page.evaluate("location.hash") == f"#e={seq + 1}&as=cy"
    page.evaluate("location.hash = '#e=3&as=ann'")  # a link followed inside the page
    _wait_for_position(page, 3)
    assert page.input_value("#perspective") == "ann"


def test_the_file_works_from_disk_with_networking_disabled(page, full_game, screenshots):
    db, game, path = full_game
    attempted = only_this_file(page, path)  # the file itself may load; every other request is aborted and noted
    page.context.set_offline(True)
    try:
        open_viewer(page, path.as_uri() + "#e=10&as=*")
        page.click("#next")
        assert position(page).startswith("Event 11 of")
    finally:
        page.context.set_offline(False)
    assert attempted == []
    page.set_viewport_size({"width": 380, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 380  # no sideways scrolling on a phone
    page.screenshot(path=str(screenshots / "replay-phone.png"), full_page=True)


def test_a_players_file_holds_no_hidden_card_in_its_bytes_or_its_dom(page, tmp_path, record, tonk_cli, never_seen):
    db = tmp_path / "g.db"
    game = record(db, seed=22, hands=1, stop_after=16, finish=False)
    events = events_of(db, game)
    hidden = never_seen(events, "ann")
    assert len(hidden) > 20
    path = html_file(tonk_cli, db, game, tmp_path / "ann.html", "--as", "ann")
    data = path.read_text()
    assert not [c for c in hidden if re.search(rf'"{c}"', data)]
    names = {card_name(c) for c in hidden}
    open_viewer(page, path.as_uri())
    assert page.eval_on_selector_all("#perspective option", "os => os.map(o => o.value)") == ["ann"]
    for seq in range(1, len(events) + 1):
        dom = page.evaluate("document.body.outerHTML + document.title")  # the rendered page (scripts are in the head)
        assert not [c for c in names if c in dom], seq
        assert not [c for c in hidden if re.search(rf"[>\"]{c}[<\"]", dom)], seq
        page.keyboard.press("ArrowRight")
    # the auditor's file does show them, so the checks above can fail
    everything = html_file(tonk_cli, db, game, tmp_path / "all.html")
    open_viewer(page, everything.as_uri() + f"#e={len(events)}")
    assert names & set(page.eval_on_selector_all("li.card", "els => els.map(e => e.getAttribute('aria-label'))"))


@pytest.fixture
def served(tmp_path):
    """The viewer's static files and a replay document served by a real HTTP server on loopback."""
    root = tmp_path / "site"
    shutil.copytree(Path(str(web.STATIC)), root)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.05)
    yield root, f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)


def test_the_served_viewer_sends_a_player_nothing_hidden(page, tmp_path, record, never_seen, served):
    root, base = served
    db = tmp_path / "g.db"
    game = record(db, seed=23, hands=1, stop_after=10, finish=False)
    events = events_of(db, game)
    (root / "replay.json").write_text(json.dumps(replay_document(game.game_id, events, "cy")))
    hidden = never_seen(events, "cy")
    bodies: list[str] = []
    page.on("response", lambda r: bodies.append(r.text()))
    open_viewer(page, f"{base}/replay.html#e={len(events)}&as=cy")
    assert position(page) == f"Event {len(events)} of {len(events)}"
    assert seat_cards(page, "ann") == ["hidden card"] * len(game.state.hands["ann"])
    assert len(bodies) >= 4  # the page, its CSS, its three modules, the document
    for body in bodies:
        assert not [c for c in hidden if re.search(rf'"{c}"', body)]


def test_audit_findings_link_to_their_event(page, tmp_path, record, tonk_cli):
    import sqlite3

    db = tmp_path / "g.db"
    game = record(db, seed=24, hands=1)
    events = events_of(db, game)
    seq = next(i for i, e in enumerate(events, 1) if type(e).__name__ == "HandEnded")
    conn = sqlite3.connect(db)  # a forger pays himself more at the hand's end
    conn.execute("DROP TRIGGER IF EXISTS events_no_update")
    (payload,) = conn.execute("SELECT payload FROM events WHERE game_id=? AND seq=?", (game.game_id, seq)).fetchone()
    data = json.loads(payload)
    data["ledger"] = [dict(p, amount=p["amount"] + 1) for p in data["ledger"]] or [{"from": "ann", "to": "bob", "amount": 3, "reason": "knock_win"}]
    conn.execute("UPDATE events SET payload=? WHERE game_id=? AND seq=?", (json.dumps(data, separators=(",", ":"), sort_keys=True), game.game_id, seq))
    conn.commit()
    conn.close()
    path = tmp_path / "tampered.html"
    result = tonk_cli(db, "replay", game.game_id, "--html", str(path))
    assert result.exit_code == 0, result.stderr
    open_viewer(page, path.as_uri())
    assert "Verdict: findings" in page.inner_text("#audit")
    links = page.locator("#audit .findings a")
    assert links.count() >= 1
    assert "rule A12" in page.inner_text("#audit")
    links.last.click()
    _wait_for_position(page, seq)
    assert "Hand 1 ended by" in page.inner_text("#event-text")


def test_text_from_the_record_is_shown_as_text(page, tmp_path, record, tonk_cli):
    db = tmp_path / "g.db"
    game = record(db, seed=25, players=('<img src=x onerror="document.title=1">', "<b>bo</b>", "cy"), hands=1)
    path = html_file(tonk_cli, db, game, tmp_path / "odd.html")
    open_viewer(page, path.as_uri() + "#e=3")
    assert page.locator("#seats img, #seats b, main img").count() == 0
    assert "<b>bo</b>" in page.inner_text("#seats")
    assert page.title() != "1"





def test_every_text_has_enough_contrast_and_every_control_a_name(page, full_game):
    db, game, path = full_game
    doc = replay_document(game.game_id, events_of(db, game))
    open_viewer(page, path.as_uri() + f"#e={doc['hands'][0]['last']}")
    measured = page.evaluate(CONTRAST)
    assert len(measured) > 50
    assert [m for m in measured if m[1] < 4.5] == []  # WCAG AA for normal text
    unnamed = page.evaluate("""() => [...document.querySelectorAll('button, select, input')]
        .filter(e => !(e.labels && e.labels.length) && !e.textContent.trim() && !e.getAttribute('aria-label'))
        .map(e => e.id)""")
    assert unnamed == []
    assert page.eval_on_selector_all("li.card", "els => els.every(e => e.getAttribute('role') === 'img' && /^(hidden card|joker \\\\d|(ace|two|three|four|five|six|seven|eight|nine|ten|jack|queen|king) of (spades|hearts|diamonds|clubs))$/.test(e.getAttribute('aria-label')))")


def _wait_for_position(page, seq: int) -> None:
    """Wait until the viewer shows event ``seq`` (through Playwright's own assertion, which
    runs no eval in the page: the viewer's Content-Security-Policy forbids it, and
    ``wait_for_function`` with an expression was refused by it under load)."""
    from playwright.sync_api import expect

    expect(page.locator("#position")).to_have_text(re.compile(rf"^Event {seq} of"))
