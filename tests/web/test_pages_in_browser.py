"""The lobby, a seat's table and the served replay viewer in a real browser, against a real
``tonk serve`` process on a loopback port: a whole hand against bots by clicking, an illegal
action explained, and nothing of another seat's hidden cards in the DOM or any response;
house rules chosen in the lobby, play by keyboard (select, knock, spread, hit), and both pages'
contrast, control names and phone width."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the browser_context fixture skips (and under CI=true the skip fails the run)
    expect = None

from tonk.storage import EventStore
from page_checks import CONTRAST
from table_helpers import KEYS, api, create_table, card_name, knock_and_confirm, open_house_rules, open_lobby, wait_ready

pytestmark = pytest.mark.browser



def submit_and_sit(page, hands: int, screenshots: Path | None = None) -> str:
    """Submit the lobby's form as it is filled in (ann a person, bob and cy bots), check the
    table was created, and sit down as ann; returns the table id."""
    page.fill("#hand-limit", str(hands))
    page.click("#create")
    expect(page.locator("#created .tokens, #status:has-text('error')").first).to_be_visible(timeout=20000)
    assert page.inner_text("#status") == "Table created.", page.inner_text("#status")
    assert page.locator("#created .tokens li").count() == 2  # ann's token and the host's
    if screenshots is not None:
        page.screenshot(path=str(screenshots / "lobby.png"), full_page=True)
    page.click("text=Play as ann here")
    page.wait_for_url(re.compile(r"/play/"))
    page.wait_for_selector("body[data-ready=true]")
    return page.url.rsplit("/", 1)[-1]


def create_in_lobby(page, base: str, hands: int = 1, screenshots: Path | None = None) -> str:
    """Create a table from the lobby's form as it comes; sit down as ann."""
    open_lobby(page, base)
    return submit_and_sit(page, hands, screenshots)


def wait_my_turn_or_end(page) -> bool:
    """True when it is ann's turn, False when the game has ended; a hand's end, which stays
    on screen until the player moves on, is passed with its "Next hand" button."""
    turn = page.locator("#turn")
    while True:
        expect(turn).to_have_text(re.compile(r"^(Your turn\.|The game has ended\.|Hand \d+ has ended\.)$"), timeout=20000)
        text = turn.inner_text()
        if text in ("Your turn.", "The game has ended."):
            return text == "Your turn."
        if text.startswith("Hand ") and page.locator("#next-hand").is_visible():
            page.click("#next-hand")


def hand_ended(db: Path, table: str) -> bool:
    with EventStore.open(db, create=False) as store:
        return any(type(e).__name__ == "HandEnded" for e in store.read(table))


def sit_until_my_turn(page, base: str, hands: int = 1) -> str:
    """A new table (:func:`create_in_lobby`) at which it is ann's turn; the deal is secret
    and random, so the bots may end the game before ann acts (a tonk on the deal): then
    another table, up to five."""
    for _ in range(5):
        table = create_in_lobby(page, base, hands=hands)
        if wait_my_turn_or_end(page):
            return table
    raise AssertionError("five tables in a row ended before ann's first turn")


def wait_moved_on(page, version: str | None) -> None:
    expect(page.locator("body")).not_to_have_attribute("data-version", version or "", timeout=20000)


def play_by_clicking(page, screenshots: Path) -> int:
    """Ann draws and discards by clicking until the game ends; returns her turns.  Each
    step goes by what the page offers (only legal actions are enabled, Discard once a card is
    selected): a draw that ended
    the hand (an empty stock) leaves a new hand's turn, where she draws again."""
    moves = 0
    while wait_my_turn_or_end(page):
        # a turn's start, or drawn: a card to select for the discard (Discard waits for it)
        page.wait_for_selector("#draw_stock:enabled, #selection:has-text('Select a card to discard')", timeout=20000)
        version = page.get_attribute("body", "data-version")
        if page.locator("#draw_stock").is_enabled():
            moves += 1
            page.click("#draw_stock")
            wait_moved_on(page, version)
            continue
        if moves == 1:
            page.screenshot(path=str(screenshots / "table.png"), full_page=True)
        page.locator("#hand button.card").last.click()
        page.click("#discard")
        wait_moved_on(page, version)
        assert page.inner_text("#problem") == ""
    return moves


def test_play_a_whole_hand_against_bots_by_clicking_then_replay_it(page, service, screenshots):
    base, db = service
    for attempt in range(10):  # the bots may end both hands before ann's turn (a secret random deal)
        table = create_in_lobby(page, base, hands=2, screenshots=screenshots if attempt == 0 else None)
        moves = play_by_clicking(page, screenshots)
        if moves:
            break
    else:
        raise AssertionError("ten tables in a row ended without a turn for ann")
    assert "Hand 2 ended by" in page.inner_text("#last-hand")
    with EventStore.open(db, create=False) as store:
        events = store.read(table)
    assert type(events[-1]).__name__ == "GameEnded"
    page.click("text=Replay this game")
    page.wait_for_selector("body[data-ready]")
    assert page.get_attribute("body", "data-ready") == "true", page.inner_text("#status")
    assert page.inner_text("#position") == f"Event 1 of {len(events)}"
    assert "Verdict: clean" in page.inner_text("#audit")


def test_an_illegal_action_is_explained_and_changes_nothing(page, service):
    base, db = service
    sit_until_my_turn(page, base)
    version = page.get_attribute("body", "data-version")
    hand = page.eval_on_selector_all("#hand button.card", "bs => bs.map(b => b.dataset.card)")
    page.locator("#hand button.card").first.click()
    page.keyboard.press("x")  # discard before drawing
    page.wait_for_selector("#problem .violation")
    assert page.inner_text("#problem .violation") == "MUST_DRAW_FIRST"
    assert re.fullmatch(r"A\d+(\.\d+)*", page.inner_text("#problem .rule"))
    # the engine's sentence once, its code and rule once each (its "sentence" field repeats them)
    problem = page.inner_text("#problem")
    assert problem.count("MUST_DRAW_FIRST") == 1 and problem.count(page.inner_text("#problem .rule")) == 1, problem
    assert problem.startswith("Illegal: ") and not page.inner_text("#problem .sentence").startswith("illegal ("), problem
    assert page.get_attribute("body", "data-version") == version
    assert page.eval_on_selector_all("#hand button.card", "bs => bs.map(b => b.dataset.card)") == hand


def test_a_seats_page_holds_no_other_seats_hidden_cards(page, service, never_seen):
    base, db = service
    bodies: list[tuple[str, str]] = []

    def keep(response):
        if "text/event-stream" not in (response.headers.get("content-type") or ""):
            try:
                bodies.append((response.url, response.text()))
            except Exception:
                pass

    page.on("response", keep)
    for _ in range(10):  # as sit_until_my_turn, keeping only the responses of the table played
        bodies.clear()
        table = create_in_lobby(page, base, hands=2)
        if wait_my_turn_or_end(page) and not hand_ended(db, table):
            break  # ann to act in the first hand: nothing of this table has been revealed yet
    else:
        raise AssertionError("ten tables in a row had a hand ended before ann's first turn")
    version = page.get_attribute("body", "data-version")
    page.click("#draw_stock")
    wait_moved_on(page, version)
    assert wait_my_turn_or_end(page)  # ann drew: still her turn, and nothing moves until she acts
    # what the seat's own stream sends, read with the page's own session cookie: its snapshot
    # (the seat's view now), and nothing after it while ann is to act (waited for, not read for
    # a fixed time: a busy machine may take more than a second or two to answer)
    streamed = page.evaluate(
        """(table) => new Promise((resolve, reject) => {
            const got = [];
            const s = new EventSource('/tables/' + table + '/events');
            s.onmessage = (m) => got.push(m.data);
            s.addEventListener('snapshot', (m) => { got.push(m.data); s.close(); resolve(got); });
            s.onerror = () => { s.close(); reject(new Error('the stream failed: ' + JSON.stringify(got))); };
            setTimeout(() => { s.close(); reject(new Error('no snapshot within 20 s')); }, 20000);
        })""",
        table,
    )
    dom = page.evaluate("document.documentElement.outerHTML")
    page.remove_listener("response", keep)
    texts = [("the page's DOM", dom), *(("its stream", m) for m in streamed), *((f"the response of {url}", body) for url, body in bodies)]
    # every text above was sent in the first hand, ann to act (the bots wait for her): a
    # card she never saw in it was hidden when each was sent (a hand's end reveals its whole
    # deck, so a later hand would have no hidden card to look for)
    with EventStore.open(db, create=False) as store:
        events = store.read(table)
    assert not any(type(e).__name__ == "HandEnded" for e in events)
    hidden = never_seen(events, "ann")
    assert len(hidden) > 20  # the stock and the bots' hands
    assert len(streamed) >= 1 and len(bodies) >= 8
    names = {card_name(c) for c in hidden}
    assert not [n for n in names if n in dom]
    for where, text in texts:
        leaked = [c for c in hidden if re.search(rf'"{c}"', text)]
        assert not leaked, f"{where} holds {leaked}: {text[:2000]}"


LOST = "The server cannot be reached \u2014 reconnecting\u2026"
BACK = "Connected again: the page is up to date."


def test_the_table_says_when_the_server_is_gone_and_when_it_is_back_and_shows_the_current_view(page, server):
    """Issue 18, finding 6: SIGTERM stops the server (exit 0) while the page holds its stream
    open; the page says the server is gone, a key pressed meanwhile is answered (not lost
    silently), and once the server is back on the same port and store the page says so and
    shows the table as it is now (here: a draw played on the store while the server was gone)."""
    from tonk.application.tables import Tables
    from tonk.storage.open import open_store

    table = sit_until_my_turn(page, server.url)
    status = page.locator("#connection[role=status]")
    expect(status).to_have_text("connected")
    hand = hand_of(page)
    server.stop()  # SIGTERM
    assert server.proc.returncode == 0, server.logs.read_text()
    expect(status).to_have_text(LOST, timeout=20000)
    page.keyboard.press("d")  # the keyboard draws from the stock: the server cannot be reached
    expect(page.locator("#problem")).to_contain_text("the server could not be reached", timeout=20000)
    expect(status).to_have_text(LOST)
    with open_store(server.db) as store:  # meanwhile ann's draw is played on the store (as another node would)
        tables = Tables(store)
        seen = tables.view(table, "ann")
        tables.act(table, "ann", "draw_stock", {}, seen.version, "played-while-the-page-was-away")
        now = tables.view(table, "ann")
    assert len(now.view.hand) == len(hand) + 1
    server.start()
    expect(status).to_have_text(BACK, timeout=30000)
    expect(page.locator("body")).to_have_attribute("data-version", str(now.version), timeout=20000)
    assert sorted(hand_of(page)) == sorted(now.view.hand)
    expect(page.locator("#turn")).to_have_text("Your turn.")
    version = page.get_attribute("body", "data-version")
    page.locator("#hand button.card").last.click()
    page.keyboard.press("x")  # and play goes on: the discard after that draw
    wait_moved_on(page, version)
    assert page.inner_text("#problem") == ""
    assert len(hand_of(page)) == len(hand)


def test_once_the_game_has_ended_the_table_never_says_reconnecting(page, server):
    sit_until_my_turn(page, server.url, hands=1)
    status = page.locator("#connection[role=status]")
    expect(status).to_have_text("connected")
    page.evaluate(
        """() => { window.shownStatus = [];
        const box = document.getElementById('connection');
        new MutationObserver(() => window.shownStatus.push(box.textContent)).observe(box, {childList: true, characterData: true, subtree: true}); }"""
    )
    streams: list[str] = []
    page.on("request", lambda r: streams.append(r.url) if r.url.endswith("/events") else None)
    knock_and_confirm(page)  # a knock at the start of the turn ends the hand, and the game (one hand)
    expect(page.locator("#turn")).to_have_text("The game has ended.", timeout=20000)
    expect(status).to_have_text("the game has ended")
    server.stop()
    assert server.proc.returncode == 0, server.logs.read_text()
    server.start()
    page.evaluate("() => fetch('/ping')")  # the page is alive, with the server back
    # (a look for a rematch made while the server was gone says it cannot be reached, and no more)
    expect(status).to_have_text("the game has ended", timeout=20000)
    assert not [t for t in page.evaluate("window.shownStatus") if "reconnecting" in t]
    assert streams == []  # the stream was closed with the game: nothing to reconnect


def test_join_a_seat_from_the_lobby_with_its_token(page, service):
    base, db = service
    created = create_table(base, seats=["ann", "bob"], bots={"bob": "random"})
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#join-table", created["table"])
    page.fill("#join-token", "not-the-token")
    page.click("#join-form button[type=submit]")
    page.wait_for_selector("body[data-ready=error]")
    assert "error: " in page.inner_text("#notice") and page.is_visible("#token-form")
    page.fill("#token", created["tokens"]["ann"])
    page.click("text=Sit down")
    expect(page.locator("#whoami")).to_have_text(f"You are ann at table {created['table'][:8]}.")
    assert page.locator("#hand button.card").count() >= 5


# --- house rules from the lobby, keyboard play, accessibility (issue 13) ---------------------------


def hand_of(page) -> list[str]:
    return page.eval_on_selector_all("#hand button.card", "bs => bs.map(b => b.dataset.card)")


def focus_by_tab(page, selector: str, limit: int = 120) -> None:
    """Press Tab until the focus is on an element matching ``selector``, as a keyboard user does."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{limit} presses of Tab never reached {selector}")


def toggle_by_keyboard(page, code: str, key: str = "Space") -> None:
    """Select (or unselect) the card ``code`` of the hand: Tab to it, then ``key``.
    The page redraws the hand on each refresh, which drops the focus (never the selection):
    a key that landed on no card is tried again, and the card's state is what counts."""
    selector = f'#hand button.card[data-card="{code}"]'
    card = page.locator(selector)
    want = "false" if card.get_attribute("aria-pressed") == "true" else "true"
    for _ in range(3):
        focus_by_tab(page, selector)
        page.keyboard.press(key)
        if card.get_attribute("aria-pressed") == want:
            break
    expect(card).to_have_attribute("aria-pressed", want)


def check_target_by_keyboard(page, spread_id: str) -> None:
    """Choose the spread to hit with the keyboard: Tab into the radio group, arrows to the spread, Space."""
    radio = page.locator(f'#spreads input[name="target"][value="{spread_id}"]')
    for _ in range(3):
        focus_by_tab(page, '#spreads input[name="target"]')
        for _ in range(page.locator('#spreads input[name="target"]').count()):
            if page.evaluate("(v) => document.activeElement.value === v", spread_id):
                break
            page.keyboard.press("ArrowDown")
        page.keyboard.press("Space")
        if radio.is_checked():
            break
    expect(radio).to_be_checked()


def sit_down_with_token(page, base: str, table: str, token: str) -> None:
    """Open the table page with no token kept, and sit down by typing the seat's token."""
    page.goto(f"{base}/play/{table}")
    page.wait_for_selector("body[data-ready=token]")
    page.fill("#token", token)
    page.click("text=Sit down")
    expect(page.locator("#connection")).to_have_text("connected", timeout=20000)


RANK_ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def spread_and_hit(cards: list[str]) -> tuple[list[str], str] | None:
    """A spread of three of ``cards`` and a fourth card of them that extends it (a book of
    four, or a run of four in one suit, ace low), or None."""
    by_rank: dict[str, list[str]] = {}
    for c in cards:
        by_rank.setdefault(c[:-1], []).append(c)
    for same in by_rank.values():
        if len(same) >= 4:
            return same[:3], same[3]
    for suit in "SHDC":
        ranks = {RANK_ORDER.index(c[:-1]) for c in cards if c[-1] == suit}
        for low in range(10):
            if {low, low + 1, low + 2, low + 3} <= ranks:
                return [RANK_ORDER[low + i] + suit for i in range(3)], RANK_ORDER[low + 3] + suit
    return None


def test_the_lobby_creates_a_table_with_a_house_rule_its_options_and_the_stake(page, service, runner_json):
    base, db = service
    open_lobby(page, base)
    open_house_rules(page)
    page.get_by_label(re.compile(r"^hit-penalty: ")).check()
    page.get_by_text("Options of hit-penalty", exact=True).click()
    page.fill("#opt-hit-penalty-turns_per_hit", "3")
    page.select_option("#opt-hit-penalty-stacking", label="none")
    page.fill("#stake", "5")
    table = submit_and_sit(page, hands=1)
    # the service's own answer: the spectators' stream opens with the game's start and its ruleset
    started = page.evaluate(
        """(table) => new Promise((resolve, reject) => {
            const s = new EventSource('/tables/' + table + '/spectate');
            s.addEventListener('game_started', (m) => { s.close(); resolve(JSON.parse(m.data).event); });
            setTimeout(() => { s.close(); reject(new Error('no game_started on the spectators stream')); }, 15000);
        })""",
        table,
    )
    recorded = runner_json(db, "replay", table, "--json")["steps"][0]["event"]  # and the record
    for event in (started, recorded):
        assert event["type"] == "game_started" and event["players"] == ["ann", "bob", "cy"]
        ruleset = event["ruleset"]
        assert ruleset["variants"] == ["hit-penalty"]
        assert set(ruleset["plugins"]) == {"classic", "hit-penalty"}
        options = ruleset["options"]
        assert (options["turns_per_hit"], options["stacking"], options["base_stake"]) == (3, "none", 5)
        assert options["count_own_hits"] is False  # an option left alone keeps its default
    listed = [t for t in api(base, "GET", "/tables")["tables"] if t["table"] == table]
    assert listed and listed[0]["bots"] == {"bob": "greedy", "cy": "greedy"}


def test_a_required_option_is_sent_as_shown_and_options_of_rules_not_chosen_are_not(page, service, runner_json):
    """jokers-wild needs joker_value given: the value the lobby shows (0) is a choice and is
    sent; an option changed under a house rule that is not ticked is not sent."""
    base, db = service
    open_lobby(page, base)
    open_house_rules(page)
    page.get_by_label(re.compile(r"^jokers-wild: ")).check()
    page.get_by_text("Options of hit-penalty", exact=True).click()
    page.fill("#opt-hit-penalty-turns_per_hit", "3")  # hit-penalty is not ticked
    table = submit_and_sit(page, hands=1)
    ruleset = runner_json(db, "replay", table, "--json")["steps"][0]["event"]["ruleset"]
    assert ruleset["variants"] == ["jokers-wild"] and ruleset["options"]["joker_value"] == 0
    assert "turns_per_hit" not in ruleset["options"]


HINTS = {"draw_stock": "d draw", "draw_discard": "p pick up", "knock": "k knock", "spread": "s spread", "hit": "h hit", "discard": "x discard"}


def test_cards_are_selected_and_every_action_reached_with_the_keyboard(page, service):
    base, db = service
    sit_until_my_turn(page, base)
    expect(page.locator("#connection")).to_have_text("connected")
    version = page.get_attribute("body", "data-version")
    hand = hand_of(page)
    toggle_by_keyboard(page, hand[0], "Space")
    toggle_by_keyboard(page, hand[1], "Enter")
    toggle_by_keyboard(page, hand[0], "Space")  # Space again unselects
    pressed = page.eval_on_selector_all("#hand button.card", "bs => bs.map(b => b.getAttribute('aria-pressed'))")
    assert pressed == ["false", "true"] + ["false"] * (len(hand) - 2)
    # the actions legal now (a turn's start: draw or knock, A7) follow the hand in the Tab
    # order, each with its key announced; the others are disabled
    enabled = [a for a in KEYS if page.locator(f"#{a}").is_enabled()]
    assert enabled == ["draw_stock", "draw_discard", "knock"]
    focus_by_tab(page, "#draw_stock")
    reached = ["draw_stock"]
    for _ in range(len(enabled) - 1):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.id"))
    assert reached == enabled
    for action, key in KEYS.items():
        assert page.get_attribute(f"#{action}", "aria-keyshortcuts") == key
        assert HINTS[action] in page.inner_text(".hint")
    assert page.get_attribute("body", "data-version") == version  # selecting sends nothing
    assert page.inner_text("#problem") == ""


def test_the_spread_key_on_cards_that_are_no_spread_is_explained_and_changes_nothing(page, service):
    base, db = service
    sit_until_my_turn(page, base)
    version = page.get_attribute("body", "data-version")
    page.keyboard.press("d")
    wait_moved_on(page, version)
    assert wait_my_turn_or_end(page)  # ann drew: still her turn
    wait_ready(page)  # the draw's answer has come: the page acts on keys again
    hand = hand_of(page)
    assert len(hand) == 6
    spreads = page.inner_text("#spreads")  # the bots may have laid some already
    toggle_by_keyboard(page, hand[0], "Space")
    toggle_by_keyboard(page, hand[1], "Space")  # (Enter on a selected card would discard it now)
    version = page.get_attribute("body", "data-version")
    page.keyboard.press("s")  # two cards are never a spread (A8: three or more)
    expect(page.locator("#problem .violation")).to_have_text("INVALID_SPREAD")
    assert re.fullmatch(r"A\d+(\.\d+)*", page.inner_text("#problem .rule"))
    assert page.inner_text("#problem").count("INVALID_SPREAD") == 1
    assert page.get_attribute("body", "data-version") == version
    assert hand_of(page) == hand
    assert page.inner_text("#spreads") == spreads
    page.keyboard.press("h")  # two cards selected: the page asks for one, and sends nothing
    expect(page.locator("#problem")).to_have_text("error: select exactly one card to hit")
    assert page.get_attribute("body", "data-version") == version and hand_of(page) == hand


def test_the_knock_key_knocks_at_the_start_of_the_turn_and_ends_the_hand(page, service):
    base, db = service
    table = sit_until_my_turn(page, base, hands=1)
    version = int(page.get_attribute("body", "data-version"))
    knock_and_confirm(page)
    expect(page.locator("#turn")).to_have_text("The game has ended.", timeout=20000)
    expect(page.locator("#last-hand h3")).to_have_text("Hand 1 ended by a knock (ann)")
    assert page.inner_text("#problem") == ""
    with EventStore.open(db, create=False) as store:
        events = store.read(table)
    knocked = events[version]  # the first event after the version ann saw
    assert (type(knocked).__name__, knocked.player) == ("Knocked", "ann")
    ended = events[version + 1]
    assert (type(ended).__name__, ended.end, ended.player) == ("HandEnded", "knock", "ann")


def test_a_spread_and_a_hit_played_with_the_keyboard(page, service):
    base, db = service
    # the deal is secret: new tables of two, 16 cards each (the most the classic ruleset's
    # three seats allow), until ann, to act, holds (with the discard top she will pick up)
    # three cards of a spread and a fourth that fits it: about one table in three does
    for _ in range(80):
        created = create_table(base, seats=["ann", "bob"], bots={"bob": "greedy"}, options={"cards_per_player": 16}, hand_limit=1)
        table, token = created["table"], created["tokens"]["ann"]
        view = api(base, "GET", f"/tables/{table}/view", token)["view"]
        if view["in_hand"] and view["to_act"] == "ann" and view["drew"] is None and view["discard_top"]:
            plan = spread_and_hit([*view["hand"], view["discard_top"]])
            if plan:
                break
    else:
        raise AssertionError("eighty tables in a row gave ann no spread with a card to hit on it")
    spread, hit = plan
    sit_down_with_token(page, base, table, token)
    expect(page.locator("#turn")).to_have_text("Your turn.")
    version = page.get_attribute("body", "data-version")
    page.keyboard.press("p")  # pick up the discard
    wait_moved_on(page, version)
    wait_ready(page)
    expect(page.locator(f'#hand button.card[data-card="{view["discard_top"]}"]')).to_have_count(1)
    for code in spread:
        toggle_by_keyboard(page, code, "Space")
    version = page.get_attribute("body", "data-version")
    page.keyboard.press("s")
    wait_moved_on(page, version)
    wait_ready(page)
    assert page.inner_text("#problem") == ""
    laid = [s for s in api(base, "GET", f"/tables/{table}/view", token)["view"]["table"] if s["owner"] == "ann"]
    assert len(laid) == 1 and sorted(laid[0]["cards"]) == sorted(spread)
    spread_id = laid[0]["id"]
    row = page.locator(f'#spreads ul.cards[aria-label$=" {spread_id}"] li.card')
    expect(row).to_have_count(3)
    assert sorted(row.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")) == sorted(card_name(c) for c in spread)
    assert not set(spread) & set(hand_of(page))
    toggle_by_keyboard(page, hit, "Space")
    check_target_by_keyboard(page, spread_id)
    version = page.get_attribute("body", "data-version")
    assert page.evaluate("document.activeElement.name") == "target"
    page.keyboard.press("h")  # the key acts from the spread's radio too
    wait_moved_on(page, version)
    assert page.inner_text("#problem") == ""
    expect(row).to_have_count(4)
    assert card_name(hit) in row.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
    assert hit not in hand_of(page)
    with EventStore.open(db, create=False) as store:
        played = [(type(e).__name__, e.player) for e in store.read(table)[-2:]]
    assert played == [("SpreadLaid", "ann"), ("CardHit", "ann")]



CONTROL_ROLES = {"button", "checkbox", "combobox", "textbox", "spinbutton", "radio", "link", "slider", "listbox", "searchbox", "switch", "DisclosureTriangle"}


def controls(page) -> list[tuple[str, str]]:
    """(role, accessible name) of each control a screen reader is offered, as Chromium computes them."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    return [(n["role"]["value"], str((n.get("name") or {}).get("value", "")).strip()) for n in nodes if not n.get("ignored") and (n.get("role") or {}).get("value") in CONTROL_ROLES]


def assert_readable_and_named(page, texts: int, named: int) -> None:
    measured = page.evaluate(CONTRAST)
    assert len(measured) >= texts
    assert [m for m in measured if m[1] < 4.5] == []  # WCAG AA for normal text
    found = controls(page)
    assert len(found) >= named
    assert [c for c in found if not c[1]] == []


def assert_fits_a_phone(page, path: Path) -> None:
    page.set_viewport_size({"width": 380, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 380  # no sideways scrolling
    page.screenshot(path=str(path), full_page=True)


def test_the_lobby_reads_well_names_every_control_and_fits_a_phone(page, service, screenshots):
    base, db = service
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready=true]")
    page.click("#create")  # a table, so the list, the tokens and the status are shown too
    expect(page.locator("#created .tokens")).to_be_visible(timeout=20000)
    expect(page.locator("#tables li")).to_have_count(1)
    open_house_rules(page)
    for summary in page.locator("#variants summary").all():
        summary.click()  # every variant's options in view
    assert page.locator("#variants details[open]").count() >= 10
    assert_readable_and_named(page, texts=60, named=60)
    assert_fits_a_phone(page, screenshots / "lobby-phone.png")


def test_the_table_reads_well_names_every_control_and_card_and_fits_a_phone(page, service, screenshots):
    base, db = service
    sit_until_my_turn(page, base)
    page.locator("#hand button.card").first.click()
    page.keyboard.press("x")  # an illegal discard, so the explanation is on the page too
    expect(page.locator("#problem .violation")).to_have_text("MUST_DRAW_FIRST")
    assert_readable_and_named(page, texts=25, named=12)
    mine = page.get_by_role("group", name="your hand").get_by_role("button")
    hand = hand_of(page)
    expect(mine).to_have_count(len(hand))
    for code in hand:
        expect(page.get_by_role("group", name="your hand").get_by_role("button", name=card_name(code), exact=True)).to_have_count(1)
    shown = page.eval_on_selector_all("#others li.card, #piles .card, #spreads li.card", "els => els.map(e => [e.getAttribute('role'), e.getAttribute('aria-label')])")
    assert ["img", "hidden card"] in shown and len(shown) >= 3  # the other seats' hidden cards, the discard top
    card = re.compile(r"hidden card|joker \d|(ace|two|three|four|five|six|seven|eight|nine|ten|jack|queen|king) of (spades|hearts|diamonds|clubs)")
    assert [s for s in shown if s[0] != "img" or not card.fullmatch(s[1] or "")] == []
    assert_fits_a_phone(page, screenshots / "table-phone.png")
