"""Helpers the page's browser tests share (tests/web): opening the lobby and its house rules, the API as any client calls it,
cards as a screen reader names them, the action keys, and a knock by keyboard."""

from __future__ import annotations

import json
from contextlib import contextmanager

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixtures skip (and under CI=true the skip fails the run)
    expect = None

@contextmanager
def sat_by_token(chromium, base: str, table: str, token: str, pace: int = 0):
    """A seat's table page in a new browser context (another device), opened at ``?pace=``
    and sat down by typing ``token`` (no seat link); the page's script errors fail the test."""
    context = chromium.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{base}/play/{table}?pace={pace}")
        page.wait_for_selector("body[data-ready=token]")
        page.fill("#token", token)
        page.click("text=Sit down")
        yield page
    finally:
        context.close()
    assert not errors, errors


#: the table page's action buttons (their ids) and their keys
KEYS = {"draw_stock": "d", "draw_discard": "p", "knock": "k", "spread": "s", "hit": "h", "discard": "x"}


def api(base: str, method: str, path: str, token: str | None = None, body: dict | None = None) -> dict:
    """A JSON call to the running service, as any client makes it."""
    import urllib.error
    import urllib.request

    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    if body is not None:
        headers["Content-Type"] = "application/json"
    data = None if body is None else json.dumps(body).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(base + path, data=data, headers=headers, method=method), timeout=20) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raise AssertionError(f"{method} {path}: HTTP {exc.code} {exc.read().decode(errors='replace')}") from None


def create_table(base: str, body: dict | None = None, *, sit: bool = True, **settings) -> dict:
    """A table created over HTTP (``POST /tables`` with ``body`` and ``settings``: seats, bots,
    hand_limit, ...): its answer, ``{table, tokens, host_token, ...}``. With ``sit`` (the
    default) every person's seat then sits down with a fresh seed (``tests/support/seating.py``),
    so hand 1 is dealt before a page opens (a page sitting down later keeps the seed sent here:
    the seat has sat). The browser tests create their tables here, in one place, so that a
    change to how a table starts is made once."""
    from seating import sit_everyone

    created = api(base, "POST", "/tables", body={**(body or {}), **settings})
    return sit_everyone(lambda path, token, data: api(base, "POST", path, token, data), created) if sit else created


def playing_table(base: str, tries: int = 10, **settings) -> dict:
    """:func:`create_table` until the first person's view says the table is in play (the deal
    is secret and random: a tonk on the deal may end a game at once); its answer."""
    for _ in range(tries):
        created = create_table(base, **settings)
        first = next(iter(created["tokens"]))
        if api(base, "GET", f"/tables/{created['table']}/view", created["tokens"][first])["status"] == "playing":
            return created
    raise AssertionError(f"{tries} tables in a row ended at their first deal")


RANKS = {"A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight", "9": "nine", "10": "ten", "J": "jack", "Q": "queen", "K": "king"}
SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def card_name(code: str) -> str:
    return f"{RANKS[code[:-1]]} of {SUITS[code[-1]]}"


def wait_ready(page) -> None:
    """Wait until the table page acts on a key, a click or a double click of the player's: at a
    turn's start a draw or knock is enabled, once drawn the page asks for a card to discard.
    While the page's own last command is under way (its answer not yet come) it ignores them,
    and the stream may show that command's outcome (a new ``data-version``, "Your turn.")
    before the answer comes: two connections keep no order."""
    page.wait_for_selector("#draw_stock:enabled, #draw_discard:enabled, #knock:enabled, #selection:has-text('Select a card to discard')", timeout=20000)


def knock_and_confirm(page) -> None:
    """The knock key asks once; Enter answers the question's focused "Yes, knock"."""
    wait_ready(page)
    page.keyboard.press("k")
    expect(page.locator("#knock-confirm")).to_be_visible()
    expect(page.locator("#knock-yes")).to_be_focused()
    page.keyboard.press("Enter")


def open_lobby(page, base: str) -> None:
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready=true]")


def open_house_rules(page) -> None:
    """Open the lobby's house rules (a disclosure after the short form)."""
    if page.get_attribute("#house-rules", "open") is None:
        page.click("#house-rules > summary")
    expect(page.locator("#variants .variant").first).to_be_visible()
