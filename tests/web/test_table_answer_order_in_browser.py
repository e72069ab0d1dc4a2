"""The table page whichever comes first: a command's answer (its POST) or the seat's stream
event of the same command. Two connections keep no order between them (and on a durable
SQLite store one fsync releases both, service/group_sync.py), so the page must work either
way. Here, in a real Chromium against a real ``tonk serve``, the answer to the player's draw is
held back (Playwright's request routing: the command reaches the server, its answer waits)
until the stream has shown the drawn card and the player has selected the card to discard;
then the answer comes, and Discard must be enabled for that card.

The bug it guards (found when the group commit first came, issue 24): the answer cleared the
selection the player had made meanwhile, so Discard stayed disabled."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixtures skip (and under CI=true the skip fails the run)
    expect = None

from table_helpers import api, playing_table, sat_by_token

pytestmark = pytest.mark.browser

WAIT = 20000


@contextmanager
def seat_page(chromium, base: str, table: str, token: str, turn: str):
    """ann's table page in a new browser context, sat down with ``token``, once it says
    ``turn`` and its stream is connected; the page's script errors fail the test."""
    with sat_by_token(chromium, base, table, token) as page:
        expect(page.locator("#turn")).to_have_text(turn, timeout=WAIT)
        expect(page.locator("#connection")).to_have_text("connected", timeout=WAIT)
        yield page


def _my_turn_to_draw(base: str) -> tuple[str, str]:
    """A table where ann (the one person; two greedy bots) is to act and may draw: its id
    and ann's token (a deal may end the hand at once: tried again, a bounded number of times)."""
    for _ in range(10):
        created = playing_table(base, seats=["ann", "bob", "cy"], bots={"bob": "greedy", "cy": "greedy"})
        token = created["tokens"]["ann"]
        seen = api(base, "GET", f"/tables/{created['table']}/view", token)
        if seen["view"]["to_act"] == "ann" and any(c["action"] == "draw_stock" for c in seen["legal"]):
            return created["table"], token
    raise AssertionError("ten tables in a row gave ann no draw")


def test_a_selection_made_before_the_commands_answer_comes_is_kept(chromium, service):
    base, _db = service
    table, token = _my_turn_to_draw(base)
    held: list = []  # (route, the server's answer) of the command held back

    def hold_answer(route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        held.append((route, route.fetch()))  # the server has the command; the page waits for its answer

    with seat_page(chromium, base, table, token, "Your turn.") as page:
        try:
            before = page.locator("body").get_attribute("data-version")
            cards_before = page.locator("#hand button.card").count()
            page.route(f"**/tables/{table}/commands*", hold_answer)  # (the page asks ?view=true)
            page.click("#draw_stock")
            # the stream's event of the draw, then the view it makes the page read again: the
            # drawn card is in the hand while the answer is still held back
            expect(page.locator("body")).not_to_have_attribute("data-version", before, timeout=WAIT)
            expect(page.locator("#hand button.card")).to_have_count(cards_before + 1, timeout=WAIT)
            assert len(held) == 1
            page.locator("#hand button.card").last.click()  # the card to discard, chosen at once
            expect(page.locator("#hand button.card").last).to_have_attribute("aria-pressed", "true")
            route, answer = held.pop()
            route.fulfill(response=answer)  # the answer comes last
            expect(page.locator("#discard")).to_be_enabled(timeout=WAIT)
            expect(page.locator("#hand button.card").last).to_have_attribute("aria-pressed", "true")
            drawn = page.locator("body").get_attribute("data-version")
            page.unroute(f"**/tables/{table}/commands")
            page.click("#discard")
            expect(page.locator("body")).not_to_have_attribute("data-version", drawn, timeout=WAIT)
            expect(page.locator("#problem")).to_have_text("")
        finally:
            for route, answer in held:
                route.fulfill(response=answer)


def test_a_view_read_that_answers_late_never_takes_the_page_back(chromium, service):
    """The page reads the seat's view again at each stream event. A read the server answered
    before the player's next command, whose answer reaches the page after that command's
    answer (two connections keep no order), shows the table as it was: the page must not go
    back to it. Here the read made after ann's draw is held back until her discard (and the
    bot's turn after it) has been answered; then the old view comes."""
    base, _db = service
    table, token = _my_turn_to_draw(base)
    held: list = []  # (route, the server's answer) of the view read held back

    def hold_first_read(route) -> None:
        if route.request.method != "GET" or held:
            route.continue_()
            return
        held.append((route, route.fetch()))  # answered by the server now (the view after the draw), shown later

    with seat_page(chromium, base, table, token, "Your turn.") as page:
        try:
            expect(page.locator("#draw_stock")).to_be_enabled()
            page.route(f"**/tables/{table}/view", hold_first_read)
            with page.expect_request(lambda r: r.url.endswith(f"/tables/{table}/view"), timeout=WAIT):
                page.click("#draw_stock")  # its stream event makes the page read the view: held
            expect(page.locator("#selection")).to_contain_text("Select a card to discard", timeout=WAIT)
            drawn = page.get_attribute("body", "data-version")
            card = page.locator("#hand button.card").last.get_attribute("data-card")
            page.click(f'#hand button.card[data-card="{card}"]')
            page.click("#discard")
            expect(page.locator("body")).not_to_have_attribute("data-version", drawn, timeout=WAIT)
            now = page.get_attribute("body", "data-version")
            expect(page.locator(f'#hand button.card[data-card="{card}"]')).to_have_count(0)
            assert len(held) == 1
            route, answer = held.pop()
            with page.expect_event("requestfinished", lambda r: r.url.endswith(f"/tables/{table}/view"), timeout=WAIT):
                route.fulfill(response=answer)  # the old view comes last
            page.evaluate("() => fetch('/ping').then((r) => r.text())")  # a round trip after it: the page has taken it
            assert page.get_attribute("body", "data-version") == now
            expect(page.locator(f'#hand button.card[data-card="{card}"]')).to_have_count(0)
        finally:
            for route, answer in held:
                route.fulfill(response=answer)


def test_a_redraw_that_leaves_the_hand_as_it_was_keeps_its_card_buttons(chromium, service):
    """Every stream event makes the page read its view again and draw it. Where the player's
    hand is what it was, its card buttons are kept (only their pressed state is set again):
    a double click whose two clicks fall on either side of such a redraw is still a double
    click, and a card keeps the keyboard's focus. Here bob's draw, at his turn, redraws ann's
    page; her buttons must be the very ones she was pointing at."""
    base, _db = service
    for _ in range(10):
        created = playing_table(base, seats=["ann", "bob"])
        table, tokens = created["table"], created["tokens"]
        seen = api(base, "GET", f"/tables/{table}/view", tokens["bob"])
        if seen["view"]["to_act"] == "bob" and any(c["action"] == "draw_stock" for c in seen["legal"]):
            break
    else:
        raise AssertionError("ten tables in a row gave bob no draw at his first turn")
    with seat_page(chromium, base, table, tokens["ann"], "bob to act.") as page:
        before = page.locator("body").get_attribute("data-version")
        first = page.locator("#hand button.card").first
        first.click()  # selected: the redraw must keep that too
        first.focus()
        page.evaluate("() => document.querySelectorAll('#hand button.card').forEach((b) => { b.kept = true; })")
        body = {"action": "draw_stock", "version": seen["version"], "command_id": "bob-draws"}
        api(base, "POST", f"/tables/{table}/commands", tokens["bob"], body)
        expect(page.locator("body")).not_to_have_attribute("data-version", before, timeout=WAIT)
        expect(page.locator("#turn")).to_have_text("bob to act.")
        kept = page.evaluate("() => [...document.querySelectorAll('#hand button.card')].map((b) => b.kept === true)")
        assert kept and all(kept), kept  # the same buttons, not new ones drawn alike
        assert page.evaluate("() => document.activeElement.kept === true")
        expect(first).to_have_attribute("aria-pressed", "true")
