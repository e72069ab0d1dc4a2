"""The table page as a card table (issue 20, first part), in a real Chromium against a real
``tonk serve``: two people (each in a browser context of their own, as on two devices) and a
bot play a whole game of three hands at instant pace (``?pace=0``). At every turn the action
buttons enabled are exactly the legal ones and the hand's total is the ruleset's; the knock
asks once; the hand sorts by rank and by suit; every hand's end stays on screen (words, every
hand and total, the ledger, the net) until "Next hand". At the end each seat's move log is
compared with the store event by event: every event once, in order, with exactly the cards
that seat may see (``tonk.core.views.event_view``), so no hidden card."""

from __future__ import annotations

import json
import re

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixtures skip (and under CI=true the skip fails the run)
    expect = None

from page_checks import CONTRAST
from table_helpers import KEYS, api, card_name, create_table, knock_and_confirm, playing_table, sat_by_token

from tonk.core.views import event_type, event_view
from tonk.storage import EventStore

pytestmark = pytest.mark.browser

PEOPLE = ("ann", "bob")
#: the actions of a player's turn (what an opponent's page must show of it)
TURN_ACTIONS = {"knocked", "card_drawn", "empty_stock_called", "spread_laid", "card_hit", "card_discarded"}
RANK_ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUIT_ORDER = "SHDC"
WAIT = 20000


def sit_down(chromium, base: str, table: str, seat: str, token: str):
    """A browser context of its own (cookies, storage) with the seat's table page, sat down."""
    context = chromium.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{base}/play/{table}?pace=0")
    page.wait_for_selector("body[data-ready=token]")
    page.fill("#token", token)
    page.click("text=Sit down")
    expect(page.locator("#whoami")).to_have_text(f"You are {seat} at table {table[:8]}.", timeout=WAIT)
    expect(page.locator("#connection")).to_have_text("connected", timeout=WAIT)
    return context, page, errors


def hand_of(page) -> list[str]:
    return page.eval_on_selector_all("#hand button.card", "bs => bs.map(b => b.dataset.card)")


def caught_up(page, version: int) -> None:
    """The page shows the table at ``version`` and its log holds every event up to it."""
    try:
        expect(page.locator("body")).to_have_attribute("data-version", str(version), timeout=WAIT)
        expect(page.locator("body")).to_have_attribute("data-logged", str(version), timeout=WAIT)
    except AssertionError as exc:  # what the page shows, to tell why
        seen = page.evaluate(
            """() => ({version: document.body.dataset.version, logged: document.body.dataset.logged,
               turn: document.getElementById('turn').textContent, handEnd: !document.getElementById('hand-end').hidden,
               last: [...document.querySelectorAll('#log li')].slice(-3).map(e => e.dataset.seq + ' ' + e.textContent)})"""
        )
        raise AssertionError(f"not caught up to {version}: {seen}") from exc


def enabled_for(seat_view: dict, selected: list[str]) -> set[str]:
    """The actions the page must enable, by the view's list of legal commands and the cards
    selected: a draw or knock when legal; a spread when the selection is one the engine lists;
    a discard when one card is selected; a hit when the one selected card fits exactly one
    spread (chosen for the player) -- with several, once the player chooses one."""
    legal = seat_view["legal"]
    out = {c["action"] for c in legal if c["action"] in ("draw_stock", "draw_discard", "knock")}
    if any(c["action"] == "spread" and sorted(c["cards"]) == sorted(selected) for c in legal):
        out.add("spread")
    if len(selected) == 1:
        if any(c["action"] == "discard" and c["card"] == selected[0] for c in legal):
            out.add("discard")
        if len({c["target"] for c in legal if c["action"] == "hit" and c["card"] == selected[0]}) == 1:
            out.add("hit")
    return out


def check_controls(page, seat_view: dict, selected: list[str] = ()) -> None:
    """Enabled exactly when legal (the view's list) for the cards selected; the total is the
    view's, always shown."""
    legal = enabled_for(seat_view, list(selected))
    for action in KEYS:
        if action in legal:
            expect(page.locator(f"#{action}")).to_be_enabled()
        else:
            expect(page.locator(f"#{action}")).to_be_disabled()
    expect(page.locator("#total")).to_have_text(f"Your hand counts {seat_view['hand_total']} points")


def check_hand_end(page, seat: str, ended, net: dict[str, int]) -> None:
    """The hand's end on screen, as the store has it, in words; it waits for "Next hand"."""
    box = page.locator("#hand-end")
    expect(box).to_be_visible()
    expect(page.locator("#hand-end-heading")).to_have_text(f"Hand {ended.hand_no} has ended")
    how = page.inner_text("#hand-end-how")
    assert how.startswith(f"Hand {ended.hand_no} ended by "), how
    text = box.inner_text()
    assert "_" not in text, text  # words, never codes such as knock_win
    for player, cards in ended.hands.items():
        name = f"{player} (you)" if player == seat else player
        seat_box = box.locator(f'.seat[data-player="{player}"]')
        expect(seat_box.locator("h3")).to_have_text(f"{name}: total {ended.totals[player]}")
        labels = seat_box.locator("li.card").evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
        assert labels == [card_name(c) for c in cards]
    expect(page.locator("#hand-end-ledger li")).to_have_count(max(1, len(ended.ledger)))
    for line, pay in zip(page.locator("#hand-end-ledger li").all_inner_texts(), ended.ledger):
        assert line.startswith(f"{pay.from_} pays {pay.to} {pay.amount} ("), line
    signed = {p: (f"+{n}" if n > 0 else f"\u2212{-n}" if n < 0 else "0") for p, n in net.items()}
    expect(page.locator("#hand-end-net")).to_have_text("Running net: " + ", ".join(f"{p} {signed[p]}" for p in net))
    # the next deal waits: no hand, no action, the title says the hand has ended
    expect(page.locator("#turn")).to_have_text(f"Hand {ended.hand_no} has ended.")
    expect(page.locator("#hand-section")).to_be_hidden()
    expect(page.locator("#next-hand")).to_be_focused()
    assert page.title().startswith(f"Hand {ended.hand_no} has ended")


def check_sorting(page) -> None:
    held = hand_of(page)
    page.select_option("#sort", "rank")
    by_rank = sorted(held, key=lambda c: (RANK_ORDER.index(c[:-1]), SUIT_ORDER.index(c[-1])))
    expect(page.locator("#hand button.card")).to_have_count(len(held))
    assert hand_of(page) == by_rank
    page.select_option("#sort", "suit")
    assert hand_of(page) == sorted(held, key=lambda c: (SUIT_ORDER.index(c[-1]), RANK_ORDER.index(c[:-1])))


def check_knock_asks_once(page, version: int) -> None:
    """k asks; Escape answers no: nothing is sent, and the knock is still there to choose."""
    page.keyboard.press("k")
    expect(page.locator("#knock-confirm")).to_be_visible()
    expect(page.locator("#knock-question")).to_contain_text("Knock now and end the hand?")
    page.keyboard.press("Escape")
    expect(page.locator("#knock-confirm")).to_be_hidden()
    assert page.get_attribute("body", "data-version") == str(version)
    expect(page.locator("#knock")).to_be_enabled()


def shown_cards(data: dict, seat: str) -> list[str]:
    """The cards the log's sentence for this event (as the seat saw it) names, in order."""
    kind = data["type"]
    if kind == "hand_dealt":
        return ([data["discard"][0]] if data.get("discard") else []) + list(data["hands"][seat])
    if kind == "card_drawn":
        return [] if data["card"] == "??" else [data["card"]]
    if kind in ("card_discarded", "card_hit"):
        return [data["card"]]
    if kind == "spread_laid":
        return list(data["cards"])
    return []


def check_log_against_store(page, seat: str, events: list, hands: int) -> tuple[list, list]:
    """The seat's move log against the store, event by event: every event once, in order, of
    the type and player stored, naming exactly the cards the seat may see (``event_view``) and
    no hidden card; each hand in its own group, the earlier ones folded away. Returns the
    others' turn actions as shown (seq, type, player) and as stored, to be compared."""
    entries = page.eval_on_selector_all(
        "#log li",
        """els => els.map(e => [Number(e.dataset.seq), e.dataset.type, e.dataset.player || null, e.textContent,
           [...e.querySelectorAll('.card')].map(c => c.getAttribute('aria-label'))])""",
    )
    assert [e[0] for e in entries] == list(range(1, len(events) + 1)), seat  # every event once, in order
    for (seq, kind, player, text, labels), event in zip(entries, events):
        data = event_view(event, seat)
        assert kind == data["type"], (seat, seq)
        assert player == data.get("player"), (seat, seq)
        assert labels == [card_name(c) for c in shown_cards(data, seat)], (seat, seq, text)
        assert "hidden card" not in labels and "??" not in text, (seat, seq, text)
        if kind in TURN_ACTIONS:
            assert text.startswith(player + " "), text
    assert page.locator("#log details").count() == 1 + hands  # the seating, then each hand
    assert page.locator("#log details[open]").count() == 1
    assert page.get_attribute("#log details[open]", "data-hand") == str(hands)
    stored = [(seq, event_type(e), e.player) for seq, e in enumerate(events, 1) if event_type(e) in TURN_ACTIONS and e.player != seat]
    shown = [(e[0], e[1], e[2]) for e in entries if e[1] in TURN_ACTIONS and e[2] != seat]
    return shown, stored


def test_a_whole_game_two_people_and_a_bot_each_log_matches_the_store(chromium, service, screenshots):
    base, db = service
    # the deal is secret and random; what the test counts on is made to hold for every deck:
    # no hand ends at its deal (no-initial-tonk) and cy deals hand 1, so ann has the first turn
    # of hand 1 and bob that of hand 2 (the deal passes to the left): both people see hand 1's
    # end, and a person's knock through the page is certain (below) even when the bot knocks
    # out hand 1 before anyone's third turn
    created = create_table(base, seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=3, variants=["no-initial-tonk"], dealer="cy")
    table, tokens = created["table"], created["tokens"]
    first = api(base, "GET", f"/tables/{table}/view", tokens["ann"])
    assert first["status"] == "playing" and first["view"]["hand_no"] == 1 and first["view"]["to_act"] == "ann", first
    seats = {seat: sit_down(chromium, base, table, seat, tokens[seat]) for seat in PEOPLE}
    pages = {seat: s[1] for seat, s in seats.items()}
    for page in pages.values():
        expect(page.locator("#log[role=log][aria-live=polite]")).to_have_count(1)
    turns_in_hand: dict[tuple[str, int], int] = {}
    hand_ends = knocks_confirmed = 0
    knock_asked = sorted_once = False
    try:
        for _ in range(300):
            views = {seat: api(base, "GET", f"/tables/{table}/view", tokens[seat]) for seat in PEOPLE}
            version = views["ann"]["version"]
            with EventStore.open(db, create=False) as store:
                events = store.read(table)
            last_end = next((e for e in reversed(events) if event_type(e) == "hand_ended"), None)
            for seat, page in pages.items():
                expect(page.locator("body")).to_have_attribute("data-version", str(version), timeout=WAIT)
                if page.locator("#hand-end").is_visible() and views[seat]["status"] == "playing":
                    # the log stops at the hand's end: the next deal is not shown before "Next hand"
                    expect(page.locator("#log li").last).to_have_attribute("data-type", "hand_ended", timeout=WAIT)
                    held = int(page.get_attribute("#log details[open]", "data-hand"))
                    assert held < views[seat]["view"]["hand_no"] and page.locator(f'#log details[data-hand="{held + 1}"]').count() == 0
                else:
                    caught_up(page, version)
            if views["ann"]["status"] == "ended":
                for seat, page in pages.items():
                    check_hand_end_final = page.locator("#hand-end")
                    expect(check_hand_end_final).to_be_visible()
                    expect(page.locator("#next-hand")).to_be_hidden()
                    expect(page.locator("#turn")).to_have_text("The game has ended.")
                    expect(page.locator("#hand-end-heading")).to_have_text(f"Hand {last_end.hand_no} has ended")
                break
            for seat, page in pages.items():
                if page.locator("#hand-end").is_visible():
                    check_hand_end(page, seat, last_end, views[seat]["view"]["net"])
                    if not hand_ends:
                        assert [m for m in page.evaluate(CONTRAST) if m[1] < 4.5] == []  # WCAG AA
                        page.screenshot(path=str(screenshots / "table-hand-end.png"), full_page=True)
                        page.set_viewport_size({"width": 380, "height": 800})  # a phone: no sideways scrolling
                        assert page.evaluate("document.documentElement.scrollWidth") <= 380
                        page.screenshot(path=str(screenshots / "table-hand-end-phone.png"), full_page=True)
                        page.set_viewport_size({"width": 1100, "height": 900})
                    page.click("#next-hand")
                    expect(page.locator("#hand-section")).to_be_visible()
                    caught_up(page, version)  # and now the next deal
                    hand_ends += 1
            actor = views["ann"]["view"]["to_act"]
            assert actor in PEOPLE, views["ann"]  # the bot plays within the people's commands
            page, seat_view = pages[actor], views[actor]
            other = pages[next(p for p in PEOPLE if p != actor)]
            expect(page.locator("#turn")).to_have_text("Your turn.")
            assert page.title() == "Your turn \u2014 Tonk table"
            expect(other.locator("#turn")).to_have_text(f"{actor} to act.")
            assert other.title() == f"{actor} to act \u2014 Tonk table"
            expect(other.locator(f'#others .seat.on-turn[data-player="{actor}"]')).to_have_count(1)
            check_controls(page, seat_view)
            key = (actor, seat_view["view"]["hand_no"])
            turns_in_hand[key] = turns_in_hand.get(key, 0) + 1
            if not knock_asked:
                check_knock_asks_once(page, version)
                knock_asked = True
            if not sorted_once:
                check_sorting(page)
                sorted_once = True
            # a knock at the start of the third turn ends the hand; so does one at hand 2's first
            # turn (bob's) when no person has knocked yet (the bot ended hand 1 first)
            if turns_in_hand[key] >= 3 or (not knocks_confirmed and seat_view["view"]["hand_no"] == 2):
                knock_and_confirm(page)
                knocks_confirmed += 1
                expect(page.locator("body")).not_to_have_attribute("data-version", str(version), timeout=WAIT)  # played
                continue
            page.click("#draw_stock")
            expect(page.locator("body")).not_to_have_attribute("data-version", str(version), timeout=WAIT)  # played
            after_draw = api(base, "GET", f"/tables/{table}/view", tokens[actor])
            if after_draw["view"]["to_act"] != actor:
                continue  # the draw ended the hand (the empty stock)
            caught_up(page, after_draw["version"])
            check_controls(page, after_draw)  # drawn: no more drawing or knocking; nothing selected yet
            card = page.locator("#hand button.card").last
            card.click()  # a card click selects it: Discard (and a hit it fits) now
            check_controls(page, after_draw, [card.get_attribute("data-card")])
            page.click("#discard")
            done = after_draw["version"]
            expect(page.locator("body")).not_to_have_attribute("data-version", str(done), timeout=WAIT)
            expect(page.locator("#problem")).to_have_text("")
            # the focus stays where the player works, not dropped to the page's body
            assert page.evaluate("document.activeElement !== document.body && document.activeElement !== null")
        else:
            raise AssertionError("the game did not end in 300 turns")

        with EventStore.open(db, create=False) as store:
            events = store.read(table)
        assert event_type(events[-1]) == "game_ended"
        hands = sum(1 for e in events if event_type(e) == "hand_ended")
        assert hands == 3 and knock_asked and sorted_once and knocks_confirmed >= 1
        # both people saw a hand's end screen before the game's (hand 1's at least: hand 2 does
        # not end at its deal)
        assert hand_ends >= 2
        counts = {seat: check_log_against_store(page, seat, events, hands) for seat, page in pages.items()}
        for seat, (shown, stored) in counts.items():
            assert shown == stored and len(shown) > 0, seat
        counts = {seat: (len(shown), len(stored)) for seat, (shown, stored) in counts.items()}
        print(f"\nopponent actions shown / stored over {hands} hands: {counts}")
    finally:
        for context, _page, errors in seats.values():
            context.close()
            assert not errors, errors


def new_table(base: str, hands: int) -> tuple[str, str]:
    """A table of ann (a person) and two greedy bots at which ann is to act (the bots play
    until a person's turn; a tonk on the deal may end the game first: then another table)."""
    for _ in range(10):
        created = create_table(base, seats=["ann", "bob", "cy"], bots={"bob": "greedy", "cy": "greedy"}, hand_limit=hands)
        table, token = created["table"], created["tokens"]["ann"]
        if api(base, "GET", f"/tables/{table}/view", token)["status"] == "playing":
            return table, token
    raise AssertionError("ten tables in a row ended at their first deal")


def test_a_page_opened_in_the_third_hand_shows_the_whole_games_log_and_keys_work_from_the_sort(chromium, service):
    """The backlog: a seat that sits down in the third hand (the first two played over the
    API) is shown every event since the seating, each with exactly what it may see, the two
    ended hands folded away; a shortcut key pressed while the sort's select has focus acts."""
    base, db = service
    for _ in range(10):
        table, token = new_table(base, hands=4)
        seen = api(base, "GET", f"/tables/{table}/view", token)
        while seen["status"] == "playing" and seen["view"]["hand_no"] < 3:
            api(base, "POST", f"/tables/{table}/commands", token, {"action": "knock", "version": seen["version"], "command_id": f"k{seen['version']}"})
            seen = api(base, "GET", f"/tables/{table}/view", token)
        if seen["status"] == "playing":
            break
    else:
        raise AssertionError("ten tables in a row ended before their third hand")
    context, page, errors = sit_down(chromium, base, table, "ann", token)
    try:
        caught_up(page, seen["version"])
        with EventStore.open(db, create=False) as store:
            events = store.read(table)
        entries = page.eval_on_selector_all(
            "#log li", "els => els.map(e => [Number(e.dataset.seq), e.dataset.type, [...e.querySelectorAll('.card')].map(c => c.getAttribute('aria-label'))])"
        )
        assert [e[0] for e in entries] == list(range(1, len(events) + 1))
        for (seq, kind, labels), event in zip(entries, events):
            data = event_view(event, "ann")
            assert kind == data["type"] and labels == [card_name(c) for c in shown_cards(data, "ann")], seq
        hand_no = seen["view"]["hand_no"]
        assert page.locator("#log details").count() == 1 + hand_no
        assert page.locator("#log details[open]").count() == 1
        assert page.get_attribute("#log details[open]", "data-hand") == str(hand_no)
        expect(page.locator("#hand-end")).to_be_hidden()  # a page opened mid-hand holds nothing back
        expect(page.locator("#turn")).to_have_text("Your turn.")
        page.focus("#sort")
        page.keyboard.press("d")  # not taken by the select: ann draws from the stock
        drawn = seen["version"] + 1
        caught_up(page, drawn)
        with EventStore.open(db, create=False) as store:
            last = store.read(table)[-1]
        assert (event_type(last), last.player, last.source) == ("card_drawn", "ann", "stock")
        mine = page.locator(f'#log li[data-seq="{drawn}"]')
        expect(mine).to_contain_text("ann drew ")  # her own draw: she sees her card
        assert mine.locator(".card").evaluate_all("els => els.map(e => e.getAttribute('aria-label'))") == [card_name(last.card)]
        expect(page.locator("#sort")).to_have_value("dealt")
    finally:
        context.close()
    assert not errors, errors


def test_a_page_that_waited_for_the_other_seat_logs_the_first_deal_and_the_moves_after_it(chromium, service):
    """The usual start: ann opens her table page while it waits for bob (the fair deal: no hand
    yet), bob sits down elsewhere and hand 1 is dealt. Ann's log shows that deal and every move
    after it at once: no hand's end is on screen, so nothing waits for "Next hand"."""
    from seating import client_seed

    base, db = service
    for _ in range(10):
        created = create_table(base, seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=1, sit=False)
        table, tokens = created["table"], created["tokens"]
        context, page, errors = sit_down(chromium, base, table, "ann", tokens["ann"])
        try:
            expect(page.locator("#seating")).to_contain_text("Waiting for bob", timeout=WAIT)
            api(base, "POST", f"/tables/{table}/sit", tokens["bob"], {"client_seed": client_seed()})
            seen = api(base, "GET", f"/tables/{table}/view", tokens["bob"])
            if seen["status"] != "playing":  # a tonk on the deal ended the game: another table
                continue
            to_act = seen["view"]["to_act"]
            if to_act in tokens:  # a person's turn: a move the page must show (bob's, or ann's from another device)
                api(base, "POST", f"/tables/{table}/commands", tokens[to_act], {"action": "draw_stock", "version": seen["version"], "command_id": "first-draw"})
            version = api(base, "GET", f"/tables/{table}/view", tokens["ann"])["version"]
            caught_up(page, version)
            expect(page.locator("#hand-end")).to_be_hidden()
            expect(page.locator('#log li[data-type="hand_dealt"]')).to_contain_text("Your cards: ")
            break
        finally:
            context.close()
    else:
        raise AssertionError("ten tables in a row ended at their first deal")
    assert not errors, errors


def test_the_others_moves_are_shown_one_after_another_at_the_pace_asked(chromium, service):
    """?pace=250: after ann's discard the bots' moves (which the service played within her
    command) reach the log no faster than one every 250 ms (measured when each is appended:
    a lower bound that a slower machine only widens), each named, ann's own moves at once."""
    base, db = service
    table, token = new_table(base, hands=1)
    with sat_by_token(chromium, base, table, token, pace=250) as page:
        expect(page.locator("#turn")).to_have_text("Your turn.", timeout=WAIT)
        caught_up(page, api(base, "GET", f"/tables/{table}/view", token)["version"])  # the backlog is shown at once
        # each entry's time taken as it is appended (not when an observer runs later, which a busy
        # machine delays by a varying amount): the page lets the pace pass after that moment
        page.evaluate(
            """() => { window.logged = [];
            const append = Element.prototype.append;
            Element.prototype.append = function (...nodes) {
              const now = performance.now();
              for (const n of nodes)
                if (n instanceof HTMLLIElement && n.dataset.seq && this.closest('#log'))
                  window.logged.push([Number(n.dataset.seq), n.dataset.player || null, now]);
              return append.apply(this, nodes);
            }; }"""
        )
        page.click("#draw_stock")
        expect(page.locator("#selection")).to_contain_text("Select a card to discard", timeout=WAIT)
        page.locator("#hand button.card").last.click()
        drawn = page.get_attribute("body", "data-version")
        page.click("#discard")
        expect(page.locator("body")).not_to_have_attribute("data-version", drawn, timeout=WAIT)  # the discard is played
        final = api(base, "GET", f"/tables/{table}/view", token)["version"]
        expect(page.locator("body")).to_have_attribute("data-logged", str(final), timeout=WAIT)
        logged = page.evaluate("window.logged")
        assert [e[0] for e in logged] == list(range(logged[0][0], final + 1))
        with EventStore.open(db, create=False) as store:
            events = store.read(table)
        others = [e for e in events[logged[0][0] - 1:] if getattr(e, "player", None) not in (None, "ann")]
        assert len(others) >= 2  # the bots' turns after ann's discard
        for before, after in zip(logged, logged[1:]):
            if before[1] not in (None, "ann"):  # after another's move the next waits the pace
                assert after[2] - before[2] >= 249, (before, after)  # 250, less the clock's coarsening


def test_on_a_timed_table_the_hands_end_moves_on_by_itself(chromium, service):
    """With a turn timer the hand's end is shown a short time (at most 8 s), then the next
    deal, without a click."""
    base, db = service
    # no hand limit (until closed): whatever the deals, a next hand follows the one ann's knock
    # ends (with a limit of two, a tonk on the second deal, or the bot's knock at its first turn,
    # would end the game with that knock: the game's end, which rightly stays on screen)
    created = create_table(base, seats=["ann", "bob"], bots={"bob": "greedy"}, turn_timer=60)
    table, token = created["table"], created["tokens"]["ann"]
    seen = api(base, "GET", f"/tables/{table}/view", token)
    assert seen["status"] == "playing" and seen["view"]["to_act"] == "ann", seen
    context, page, errors = sit_down(chromium, base, table, "ann", token)
    try:
        caught_up(page, seen["version"])
        knock_and_confirm(page)
        expect(page.locator("body")).not_to_have_attribute("data-version", str(seen["version"]), timeout=WAIT)  # played
        # the hand ann's knock ended, or a later one that ended at its deal or by the bot's knock
        # before ann's next turn (the page shows the last hand's end)
        after = api(base, "GET", f"/tables/{table}/view", token)
        assert after["view"]["hand_no"] > seen["view"]["hand_no"] and after["status"] == "playing", after
        ended = after["last_hand"]["ended"]["hand_no"]
        assert ended >= seen["view"]["hand_no"]
        expect(page.locator("#hand-end-heading")).to_have_text(f"Hand {ended} has ended", timeout=WAIT)
        expect(page.locator("#hand-end")).to_be_hidden(timeout=30000)  # no click
        expect(page.locator("#hand-section")).to_be_visible()
        expect(page.locator("#turn")).to_have_text("Your turn.")
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.parametrize("people", [("ann", "bob"), ("ann",)], ids=["two-people-one-bot", "one-person-two-bots"])
def test_an_eight_hand_game_each_seats_page_shows_every_opponent_action(chromium, service, people):
    """The note's figure (issue 20: in an 8-hand game 38 of 79 bot discards never reached the
    player's page). Two people (ann, bob, each on a device of their own) and a greedy bot (cy),
    or ann and two greedy bots, play a game of eight hands through the page at instant pace:
    each person draws from the stock and discards the last card of the hand (selected by a
    click), and knocks at the start of their sixth turn in a hand. At the end each seat's log is checked against the
    store event by event, and every opponent action the store holds must be on the page;
    the counts are printed (``pytest -s``)."""
    base, db = service
    bots = {seat: "greedy" for seat in ("ann", "bob", "cy") if seat not in people}
    created = playing_table(base, seats=["ann", "bob", "cy"], bots=bots, hand_limit=8)
    table, tokens = created["table"], created["tokens"]
    seats = {seat: sit_down(chromium, base, table, seat, tokens[seat]) for seat in people}
    pages = {seat: s[1] for seat, s in seats.items()}
    turns_in_hand: dict[tuple[str, int], int] = {}
    try:
        for _ in range(600):
            seen = api(base, "GET", f"/tables/{table}/view", tokens["ann"])
            for page in pages.values():
                expect(page.locator("body")).to_have_attribute("data-version", str(seen["version"]), timeout=WAIT)
                while page.locator("#next-hand").is_visible():  # a hand's end: move on
                    page.click("#next-hand")
                caught_up(page, seen["version"])
            if seen["status"] == "ended":
                break
            actor = seen["view"]["to_act"]
            page = pages[actor]
            key = (actor, seen["view"]["hand_no"])
            turns_in_hand[key] = turns_in_hand.get(key, 0) + 1
            expect(page.locator("#turn")).to_have_text("Your turn.", timeout=WAIT)
            if turns_in_hand[key] >= 6:
                knock_and_confirm(page)
                expect(page.locator("body")).not_to_have_attribute("data-version", str(seen["version"]), timeout=WAIT)
                continue
            page.click("#draw_stock")
            expect(page.locator("body")).not_to_have_attribute("data-version", str(seen["version"]), timeout=WAIT)
            drawn = api(base, "GET", f"/tables/{table}/view", tokens[actor])
            if drawn["view"]["to_act"] != actor or not drawn["legal"]:
                continue  # the draw ended the hand (the empty stock)
            caught_up(page, drawn["version"])
            page.locator("#hand button.card").last.click()
            page.click("#discard")
            expect(page.locator("body")).not_to_have_attribute("data-version", str(drawn["version"]), timeout=WAIT)
        else:
            raise AssertionError("the game did not end in 600 turns")
        with EventStore.open(db, create=False) as store:
            events = store.read(table)
        hands = sum(1 for e in events if event_type(e) == "hand_ended")
        assert hands == 8 and event_type(events[-1]) == "game_ended"
        figures = {}
        for seat, page in pages.items():
            shown, stored = check_log_against_store(page, seat, events, hands)
            assert shown == stored, seat  # every opponent action the store holds, in order
            bot_discards = [a for a in stored if a[2] in bots and a[1] == "card_discarded"]
            shown_bot_discards = [a for a in shown if a[2] in bots and a[1] == "card_discarded"]
            figures[seat] = {"opponent actions shown": len(shown), "stored": len(stored),
                             "bot discards shown": len(shown_bot_discards), "bot discards stored": len(bot_discards)}
        print(f"\n{hands} hands, {len(events)} events, bots {sorted(bots)}; per seat's page: {json.dumps(figures)}")
    finally:
        for context, _page, errors in seats.values():
            context.close()
            assert not errors, errors


def test_a_game_that_ends_while_a_hands_end_is_on_screen_logs_every_event(chromium, service):
    """A hand's end held on screen holds back the next deal's entries until "Next hand"; when
    the game ends meanwhile (here: ann's page leaves the end of the hand she knocked out on
    screen while the host closes the table and the next hand is played to its end over the API;
    in play, the last deal ending at once by a tonk), there is no "Next hand": the log must
    still show every event up to the game's end (it stopped at the hand's end held)."""
    base, db = service
    # no hand limit: the host closes the table once ann's page holds a hand's end, so the game
    # cannot end with ann's knock whatever the deals (with a limit of two, a tonk on the second
    # deal, or a bot's knock before ann's turn, would end it at once: no hand's end held back)
    created = create_table(base, seats=["ann", "bob", "cy"], bots={"bob": "greedy", "cy": "greedy"})
    table, token = created["table"], created["tokens"]["ann"]
    context, page, errors = sit_down(chromium, base, table, "ann", token)
    try:
        expect(page.locator("#turn")).to_have_text("Your turn.", timeout=WAIT)
        before = api(base, "GET", f"/tables/{table}/view", token)
        held = before["view"]["hand_no"]
        knock_and_confirm(page)
        expect(page.locator("body")).not_to_have_attribute("data-version", str(before["version"]), timeout=WAIT)  # played
        expect(page.locator("#hand-end-heading")).to_have_text(re.compile(r"^Hand \d+ has ended$"), timeout=WAIT)
        expect(page.locator("#next-hand")).to_be_visible()
        seen = api(base, "GET", f"/tables/{table}/view", token)
        assert seen["status"] == "playing" and seen["view"]["hand_no"] > held, seen
        api(base, "POST", f"/tables/{table}/close", created["host_token"])  # the game ends with the hand in play
        seen = api(base, "GET", f"/tables/{table}/view", token)
        while seen["status"] != "ended":  # that hand, played past the page: ann knocks over the API
            api(base, "POST", f"/tables/{table}/commands", token, {"action": "knock", "version": seen["version"], "command_id": f"k{seen['version']}"})
            seen = api(base, "GET", f"/tables/{table}/view", token)
        expect(page.locator("#turn")).to_have_text("The game has ended.", timeout=WAIT)
        expect(page.locator("#next-hand")).to_be_hidden()
        caught_up(page, seen["version"])
        with EventStore.open(db, create=False) as store:
            events = store.read(table)
        hands = sum(1 for e in events if event_type(e) == "hand_ended")
        assert hands > held
        shown, stored = check_log_against_store(page, "ann", events, hands)
        assert shown == stored
    finally:
        context.close()
    assert not errors, errors
