"""The card table of issue 20, its last parts, in a real Chromium against a real ``tonk serve``:
the rematch joined from the table page, the seat link the page shows (to be kept secret, and
never sent in a URL or a cookie), what a card click does (and selected cards that never look
like the focused one, also in forced colours), the service's state on the lobby, the table
and the replay viewer (across a real server restart), an unfinished game's replay in words,
and the table mid-hand at phone width with every control reachable."""

from __future__ import annotations

import json
import re

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixtures skip (and under CI=true the skip fails the run)
    expect = None

from table_helpers import api, card_name, create_table, knock_and_confirm, open_lobby, playing_table, wait_ready

from tonk.core.views import event_type
from tonk.storage import EventStore

pytestmark = pytest.mark.browser

WAIT = 20000
LOST = "The server cannot be reached \u2014 reconnecting\u2026"
BACK = "Connected again: the page is up to date."
SECRET = "Keep this link secret, like a password"


def new_device(chromium, width: int = 1100, height: int = 900):
    """A browser context of its own (another device: its own storage and cookies), a page in
    it, and the page's errors (a test fails on any)."""
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, errors


def watch_requests(page, sent: list[str]) -> None:
    """Every request's URL and Cookie header, as sent (to look for a token in them)."""
    page.on("request", lambda r: sent.append(r.url + " " + json.dumps(r.headers.get("cookie", ""))))


def seat_token(page, table: str) -> str:
    return page.evaluate("(t) => localStorage.getItem('tonk-token:' + t)", table)


def table_of(page) -> str:
    return page.url.split("?")[0].split("#")[0].rsplit("/", 1)[-1]


def open_seat(page, base: str, table: str, token: str, pace: int = 0) -> None:
    """The seat's page opened from its seat link (the token in the fragment), at ``pace``."""
    page.goto(f"{base}/play/{table}?pace={pace}#token={token}")
    expect(page.locator("#connection")).to_have_text(re.compile("^(connected|the game has ended)$"), timeout=WAIT)


def test_the_table_page_shows_the_seat_link_to_keep_secret_and_joins_the_rematch(chromium, service):
    """Ann creates a table in the lobby (bob a person, cy a bot, one hand) and gives bob his
    seat link; each page offers "your seat link" with the word to keep it secret like a
    password. The hand is knocked out; the host's page starts the rematch; bob's page, which
    no stream tells any more, offers "Join the rematch" by itself, and both join the new table
    (each page keeps its new token). No token is ever in a URL sent or in a cookie."""
    base, db = service
    ann_ctx, ann, ann_errors = new_device(chromium)
    bob_ctx, bob, bob_errors = new_device(chromium)
    sent: list[str] = []
    watch_requests(ann, sent)
    watch_requests(bob, sent)
    try:
        # the deal is secret and made once both people have sat (bob's seat link sits him): a
        # tonk on the deal, or the bot's knock on its first turn, may end the one-hand game at once
        ended_or_connected = re.compile("^(connected|the game has ended)$")
        for _ in range(10):
            open_lobby(ann, base)
            ann.select_option("#seat-kind-2", "person")
            ann.click("#create")
            expect(ann.locator("#created .tokens")).to_be_visible(timeout=WAIT)
            bob_link = ann.input_value("#seat-link-bob")
            ann.click("text=Play as ann here")
            ann.wait_for_url(re.compile(r"/play/"))
            expect(ann.locator("#connection")).to_have_text(ended_or_connected, timeout=WAIT)
            bob.goto(bob_link)
            expect(bob.locator("#connection")).to_have_text(ended_or_connected, timeout=WAIT)
            # the service's word, not the pages': a page says "connected" when its stream opens,
            # a moment before that stream tells it that the game has already ended (bob's seat
            # link sat him, so hand 1 is dealt and the bot has played: nothing changes now
            # until a person acts)
            table = table_of(ann)
            if next(t["status"] for t in api(base, "GET", "/tables")["tables"] if t["table"] == table) == "playing":
                break
        else:
            raise AssertionError("ten tables in a row ended before both people could play")
        tokens = {"ann": seat_token(ann, table), "bob": seat_token(bob, table)}
        assert bob_link.endswith("#token=" + tokens["bob"])
        # "your seat link": the seat's own link, told to be kept secret like a password
        for seat, page in (("ann", ann), ("bob", bob)):
            expect(page.locator("#seat-link-box")).to_be_visible()
            page.click("#seat-link-box > summary")
            expect(page.locator("#seat-link-box .secret-note")).to_contain_text(SECRET)
            assert page.input_value("#seat-link") == f"{base}/play/{table}#token={tokens[seat]}"
            assert "#" not in page.url  # the fragment was read once and taken from the address bar
        # the one hand: whoever is to act knocks (and confirms)
        view = api(base, "GET", f"/tables/{table}/view", tokens["ann"])
        actor = view["view"]["to_act"]
        page = ann if actor == "ann" else bob
        expect(page.locator("#turn")).to_have_text("Your turn.", timeout=WAIT)
        knock_and_confirm(page)
        for page in (ann, bob):
            expect(page.locator("#turn")).to_have_text("The game has ended.", timeout=WAIT)
            expect(page.locator("#connection")).to_have_text("the game has ended")
        expect(bob.locator("#rematch")).to_contain_text("If the host starts a rematch, you can join it from here.")
        expect(bob.locator("#start-rematch")).to_have_count(0)  # bob's device does not host the table
        expect(ann.locator("#start-rematch")).to_be_visible()
        ann.click("#start-rematch")
        new = api(base, "GET", "/tables")
        rematch = next(t["rematch"] for t in new["tables"] if t["table"] == table)
        assert rematch
        for seat, page in (("bob", bob), ("ann", ann)):  # bob's page finds it by itself
            expect(page.locator("#join-rematch")).to_be_visible(timeout=WAIT)
            page.click("#join-rematch")
            page.wait_for_url(re.compile(rf"/play/{rematch}"))
            expect(page.locator("#whoami")).to_have_text(f"You are {seat} at table {rematch[:8]}.", timeout=WAIT)
            expect(page.locator("#connection")).to_have_text(re.compile("^(connected|the game has ended)$"), timeout=WAIT)
            tokens[seat + "-rematch"] = seat_token(page, rematch)
            assert tokens[seat + "-rematch"] and tokens[seat + "-rematch"] != tokens[seat]
            assert api(base, "GET", f"/tables/{rematch}/view", tokens[seat + "-rematch"])["seat"] == seat
            assert page.input_value("#seat-link") == f"{base}/play/{rematch}#token={tokens[seat + '-rematch']}"
        leaks = [s for s in sent for t in tokens.values() if t in s]
        assert sent and not leaks  # in no URL sent, in no cookie
        for context in (ann_ctx, bob_ctx):
            assert not [c for c in context.cookies() for t in tokens.values() if t in c["value"]]
    finally:
        ann_ctx.close()
        bob_ctx.close()
    assert not ann_errors and not bob_errors, (ann_errors, bob_errors)


def style_of(page, selector: str) -> dict:
    """The computed look of an element that tells a selected card from a focused one."""
    return page.eval_on_selector(
        selector,
        """e => { const s = getComputedStyle(e), a = getComputedStyle(e, '::after');
           return {border: s.borderTopStyle + ' ' + s.borderTopWidth, background: s.backgroundColor, transform: s.transform,
                   outline: s.outlineStyle + ' ' + s.outlineWidth, mark: a.content}; }""",
    )


def check_selected_and_focused_look_different(page, chosen: str, other: str) -> None:
    """The selected card (not focused) and a focused card (not selected) differ in their
    border, their check mark and their outline, in normal and in forced colours."""
    page.focus(f'#hand button.card[data-card="{other}"]')
    page.keyboard.press("Shift+Tab")  # the focus shown as by the keyboard (:focus-visible) ...
    page.keyboard.press("Tab")  # ... on the other card
    assert page.evaluate("document.activeElement.dataset.card") == other
    for colours in ("none", "active"):
        page.emulate_media(forced_colors=colours)
        selected = style_of(page, f'#hand button.card[data-card="{chosen}"]')
        focused = style_of(page, f'#hand button.card[data-card="{other}"]')
        assert selected["border"] != focused["border"], (colours, selected, focused)
        assert selected["mark"] == '"\u2713"' and focused["mark"] in ("none", "normal"), (colours, selected, focused)
        assert focused["outline"].startswith("dashed") and not selected["outline"].startswith("dashed"), (colours, selected, focused)
        if colours == "none":
            assert selected["background"] != focused["background"] and selected["transform"] != focused["transform"]
    page.emulate_media(forced_colors="none")


def ann_discards(db, table: str) -> list[str]:
    with EventStore.open(db, create=False) as store:
        return [e.card for e in store.read(table) if event_type(e) == "card_discarded" and e.player == "ann"]


def wait_turn(page) -> bool:
    """True at ann's turn, once the page acts on her keys and clicks (:func:`wait_ready`: the
    answer to her last command has come); False when the game has ended (a hand's end is
    passed on)."""
    turn = page.locator("#turn")
    while True:
        expect(turn).to_have_text(re.compile(r"^(Your turn\.|The game has ended\.|Hand \d+ has ended\.)$"), timeout=WAIT)
        text = turn.inner_text()
        if text != "Your turn." and text.startswith("Hand ") and page.locator("#next-hand").is_visible():
            page.click("#next-hand")
            continue
        if text == "Your turn.":
            wait_ready(page)
        return text == "Your turn."


def test_a_card_click_selects_and_enter_or_a_double_click_discards(page, service):
    """What a card click does (the page's help text says it): a click selects a card (again:
    lets it go) and sends nothing; once drawn, Discard is enabled only with one card selected,
    Enter on the selected card discards it, and so does a double click on a card. Selected and
    focused cards look different."""
    base, db = service
    for _ in range(5):
        created = playing_table(base, seats=["ann", "bob", "cy"], bots={"bob": "greedy", "cy": "greedy"}, hand_limit=3)
        table, token = created["table"], created["tokens"]["ann"]
        open_seat(page, base, table, token)
        if not wait_turn(page):
            continue
        help_text = page.inner_text("#hand-section .hint")
        assert "Click a card" in help_text and "press Enter on a selected card, or double-click a card, to discard it" in help_text
        hand = page.eval_on_selector_all("#hand button.card", "bs => bs.map(b => b.dataset.card)")
        version = page.get_attribute("body", "data-version")
        first = page.locator(f'#hand button.card[data-card="{hand[0]}"]')
        first.click()
        expect(first).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#selection")).to_have_text(f"Selected: {card_name(hand[0])}.")
        expect(page.locator("#discard")).to_be_disabled()  # not drawn yet
        first.click()
        expect(first).to_have_attribute("aria-pressed", "false")
        assert page.get_attribute("body", "data-version") == version  # a click sends nothing
        page.keyboard.press("d")
        expect(page.locator("body")).not_to_have_attribute("data-version", version, timeout=WAIT)
        if not wait_turn(page):
            continue
        expect(page.locator("#selection")).to_contain_text("Select a card to discard it")
        expect(page.locator("#discard")).to_be_disabled()  # nothing selected
        hand = page.eval_on_selector_all("#hand button.card", "bs => bs.map(b => b.dataset.card)")
        chosen, other = hand[-1], hand[0]
        page.click(f'#hand button.card[data-card="{chosen}"]')
        expect(page.locator("#discard")).to_be_enabled()
        check_selected_and_focused_look_different(page, chosen, other)
        page.focus(f'#hand button.card[data-card="{chosen}"]')
        before = ann_discards(db, table)
        page.keyboard.press("Enter")  # Enter on the selected card discards it
        expect(page.locator(f'#hand button.card[data-card="{chosen}"]')).to_have_count(0, timeout=WAIT)
        assert ann_discards(db, table) == [*before, chosen]
        expect(page.locator("#problem")).to_have_text("")
        # a double click on a card discards it (at the next turn of ann's)
        if not wait_turn(page):
            continue
        version = page.get_attribute("body", "data-version")
        # the draw's stream event makes the page read its view again and redraw the hand: a
        # double click whose two clicks land on two drawings of the card is no double click,
        # so the page is let take that read first (a round trip after it: it has been shown)
        with page.expect_response(lambda r: r.request.method == "GET" and r.url.endswith(f"/tables/{table}/view"), timeout=WAIT):
            page.keyboard.press("d")
        page.evaluate("() => fetch('/ping').then((r) => r.text())")
        expect(page.locator("body")).not_to_have_attribute("data-version", version, timeout=WAIT)
        if not wait_turn(page):
            continue
        hand = page.eval_on_selector_all("#hand button.card", "bs => bs.map(b => b.dataset.card)")
        if len(hand) < 2:
            continue
        before = ann_discards(db, table)
        page.dblclick(f'#hand button.card[data-card="{hand[1]}"]')
        expect(page.locator(f'#hand button.card[data-card="{hand[1]}"]')).to_have_count(0, timeout=WAIT)
        assert ann_discards(db, table) == [*before, hand[1]]
        return
    raise AssertionError("five tables in a row ended before ann's second turn")


def test_the_lobby_says_when_the_server_is_gone_and_when_it_is_back(page, server):
    """A real restart: the server stopped (SIGTERM), a click on the lobby's refresh is told in
    words and the banner says the server cannot be reached; the server started again on the
    same port and store, the banner says it is back and the tables are listed again."""
    open_lobby(page, server.url)
    page.click("#create")
    expect(page.locator("#created .tokens")).to_be_visible(timeout=WAIT)
    banner = page.locator("#connection[role=status]")
    expect(banner).to_have_text("")
    server.stop()
    page.click("#refresh")
    expect(banner).to_have_text(LOST, timeout=WAIT)
    expect(page.locator("#status")).to_have_text(re.compile(r"^error: The server cannot be reached"))
    assert "Failed to fetch" not in page.inner_text("body")
    server.start()
    expect(banner).to_have_text(BACK, timeout=WAIT)  # the page pings until it answers
    expect(page.locator("#tables-open li")).to_have_count(1)


def test_the_table_tells_a_click_made_while_the_server_is_gone_and_says_when_it_is_back(page, server):
    """A real restart under the table page: a click on "Draw from the stock" while the server
    is stopped is answered in words (never a silent failure), the banner says the page is
    reconnecting, and when the server is back the banner says so and the draw can be made."""
    created = playing_table(server.url, seats=["ann", "bob"], bots={"bob": "greedy"}, hand_limit=1)
    table, token = created["table"], created["tokens"]["ann"]
    open_seat(page, server.url, table, token)
    expect(page.locator("#turn")).to_have_text("Your turn.", timeout=WAIT)
    banner = page.locator("#connection[role=status]")
    server.stop()
    expect(banner).to_have_text(LOST, timeout=WAIT)
    page.click("#draw_stock")
    expect(page.locator("#problem")).to_contain_text("the server could not be reached", timeout=WAIT)
    server.start()
    expect(banner).to_have_text(BACK, timeout=30000)
    expect(page.locator("#draw_stock")).to_be_enabled(timeout=WAIT)
    version = page.get_attribute("body", "data-version")
    page.click("#draw_stock")
    expect(page.locator("body")).not_to_have_attribute("data-version", version, timeout=WAIT)


def test_the_replay_viewer_says_in_words_when_the_game_is_unfinished_or_the_server_unreachable(page, service):
    base, db = service
    created = playing_table(base, seats=["ann", "bob"], bots={"bob": "greedy"}, hand_limit=1)
    page.goto(f"{base}/games/{created['table']}")
    page.wait_for_selector("body[data-ready=error]")
    status = page.inner_text("#status")
    assert status == "error: This game has not ended yet: its replay opens once the game is over. Come back to this page then.", status
    assert "409" not in page.inner_text("body")
    # an ended game's replay, its document's first request failed as if the server were gone
    view = api(base, "GET", f"/tables/{created['table']}/view", created["tokens"]["ann"])
    api(base, "POST", f"/tables/{created['table']}/commands", created["tokens"]["ann"], {"action": "knock", "version": view["version"], "command_id": "k1"})
    failed: list[str] = []

    def fail_once(route):
        if not failed:
            failed.append(route.request.url)
            route.abort("internetdisconnected")
        else:
            route.continue_()

    page.route("**/document", fail_once)
    page.goto(f"{base}/games/{created['table']}")
    expect(page.locator("#connection")).to_have_text(LOST, timeout=WAIT)
    expect(page.locator("#status")).to_have_text("The server cannot be reached: the replay is loaded as soon as it is back.")
    expect(page.locator("#connection")).to_have_text(BACK, timeout=WAIT)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    assert failed


def test_the_table_mid_hand_fits_a_phone_with_every_control_reachable(page, service, screenshots):
    """390 x 844: no sideways scrolling, and every control of the page (the actions, the cards,
    the sort, the seat link, the log) lies within the screen's width and is reached by
    scrolling; screenshots of the table mid-hand, on a desktop and on a phone."""
    base, db = service
    for _ in range(5):
        created = playing_table(base, seats=["ann", "bob", "cy"], bots={"bob": "greedy", "cy": "greedy"}, hand_limit=2)
        table, token = created["table"], created["tokens"]["ann"]
        open_seat(page, base, table, token)
        if wait_turn(page):
            break
    else:
        raise AssertionError("five tables in a row ended before ann's turn")
    version = page.get_attribute("body", "data-version")
    page.keyboard.press("d")
    expect(page.locator("body")).not_to_have_attribute("data-version", version, timeout=WAIT)
    if wait_turn(page):
        page.locator("#hand button.card").last.click()  # a card selected, as in play
    page.screenshot(path=str(screenshots / "table-mid-hand.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scrolling
    controls = page.locator("button:visible, select:visible, input:visible, summary:visible, a:visible, #log")
    assert controls.count() >= 12
    for i in range(controls.count()):
        control = controls.nth(i)
        control.scroll_into_view_if_needed()
        box = control.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (control.evaluate("e => e.outerHTML.slice(0, 80)"), box)
        assert 0 <= box["y"] < 844, control.evaluate("e => e.outerHTML.slice(0, 80)")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(screenshots / "table-mid-hand-phone.png"), full_page=True)
    page.set_viewport_size({"width": 1100, "height": 900})


def test_an_ended_table_page_opened_without_the_host_token_offers_no_rematch_start(page, service):
    """Only the device holding the host token is offered to start a rematch."""
    base, db = service
    created = create_table(base, seats=["ann", "bob"], bots={"bob": "greedy"}, hand_limit=1)
    table, token = created["table"], created["tokens"]["ann"]
    view = api(base, "GET", f"/tables/{table}/view", token)
    if view["status"] == "playing":
        api(base, "POST", f"/tables/{table}/commands", token, {"action": "knock", "version": view["version"], "command_id": "k"})
    open_seat(page, base, table, token)
    expect(page.locator("#turn")).to_have_text("The game has ended.", timeout=WAIT)
    expect(page.locator("#rematch")).to_contain_text("If the host starts a rematch")
    expect(page.locator("#start-rematch")).to_have_count(0)


def test_a_table_page_whose_address_is_no_valid_percent_encoding_says_there_is_no_such_table(page, service):
    """GET /play/{id} is the page for any id, which shows the error its requests meet: an id
    that is no valid percent-encoding (%E0%A4%A) too, never a script that stops at its start
    (the page fixture fails the test on a page error)."""
    base, db = service
    page.goto(f"{base}/play/%E0%A4%A#token=not-a-token")
    page.wait_for_selector("body[data-ready=error]", timeout=WAIT)
    expect(page.locator("#notice")).to_have_text("error: no table '%E0%A4%A'")
    expect(page.locator("#token-form")).to_be_visible()


def test_seat_names_of_the_longest_length_fit_a_phone_on_every_page(page, service):
    """A seat's name may be 40 characters with no space: on a phone (390 px) the table page
    mid-hand and at the game's end, the lobby, the replay viewer and the dispute desk opened at
    the game's position break such a name across lines, never scroll sideways."""
    base, db = service
    names = ["W" * 40, "M" * 40, "Q" * 40]
    created = playing_table(base, seats=names, bots={names[1]: "greedy", names[2]: "greedy"}, hand_limit=1)
    table, token = created["table"], created["tokens"][names[0]]
    page.set_viewport_size({"width": 390, "height": 844})

    def fits(where: str) -> None:
        wide = page.evaluate(
            """() => [...document.querySelectorAll('body *')].filter(e => e.getClientRects().length
                 && e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map(e => e.tagName + '#' + e.id)"""
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= 390 and not wide, (where, wide)

    page.goto(f"{base}/play/{table}?pace=0#token={token}")
    expect(page.locator("#turn")).to_have_text("Your turn.", timeout=WAIT)
    fits("the table mid-hand")
    view = api(base, "GET", f"/tables/{table}/view", token)
    api(base, "POST", f"/tables/{table}/commands", token, {"action": "knock", "version": view["version"], "command_id": "k1"})
    expect(page.locator("#turn")).to_have_text("The game has ended.", timeout=WAIT)
    fits("the table at the game's end")
    page.goto(f"{base}/")
    expect(page.locator(f'#tables li[data-table="{table}"]')).to_be_visible(timeout=WAIT)
    fits("the lobby")
    page.goto(f"{base}/games/{table}#e=3&as={names[0]}")
    page.wait_for_selector("body[data-ready=true]", timeout=WAIT)
    fits("the replay viewer")
    page.goto(f"{base}/dispute?game={table}&seq=3")
    expect(page.locator("#status")).to_contain_text("Loaded", timeout=WAIT)
    fits("the dispute desk")


def test_seats_named_as_what_every_object_inherits_are_seats_like_any_other(page, service):
    """Seats named "constructor", "toString" and "__proto__" (a bot) are names like any other
    on every page: the table page and the lobby count constructor and toString as people (not
    bots of the kind "function toString() ..."), and the replay viewer opens their game."""
    from seating import client_seed

    base, db = service
    names = ["constructor", "toString", "__proto__"]
    created = create_table(base, seats=names, bots={"__proto__": "greedy"}, hand_limit=1, sit=False)
    table, tokens = created["table"], created["tokens"]
    assert sorted(tokens) == ["constructor", "toString"]
    page.goto(f"{base}/play/{table}?pace=0#token={tokens['constructor']}")
    expect(page.locator("#seating")).to_have_text("Waiting for toString to sit down (constructor has sat).", timeout=WAIT)
    expect(page.locator('#others .seat[data-player="toString"] h3')).to_have_text(re.compile(r"^toString( \(dealer\))?$"))  # a person: no bot
    expect(page.locator('#others .seat[data-player="__proto__"] h3')).to_contain_text("greedy bot")
    page.goto(f"{base}/")
    expect(page.locator(f'#tables li[data-table="{table}"]')).to_contain_text("people: constructor, toString; bots: __proto__ (greedy bot)", timeout=WAIT)
    api(base, "POST", f"/tables/{table}/sit", tokens["toString"], {"client_seed": client_seed()})
    for turn in range(20):  # each person knocks at their turn's start: the one hand ends
        view = api(base, "GET", f"/tables/{table}/view", tokens["constructor"])
        if view["status"] == "ended":
            break
        seat = view["view"]["to_act"]
        api(base, "POST", f"/tables/{table}/commands", tokens[seat], {"action": "knock", "version": view["version"], "command_id": f"k{turn}"})
    else:
        raise AssertionError("the hand did not end")
    page.goto(f"{base}/games/{table}")
    page.wait_for_selector("body[data-ready]", timeout=WAIT)
    assert page.get_attribute("body", "data-ready") == "true", page.inner_text("#status")
    expect(page.locator("#seats")).to_contain_text("constructor")
