"""Two seats of one table played from one browser (hot seat, or trying a table out): each tab
is the seat whose link it opened, across its own reloads, though both tabs share the
device's storage; a new tab without a link takes the seat this device was given last."""

from __future__ import annotations

import re

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the browser_context fixture skips (and under CI=true the skip fails the run)
    expect = None

from table_helpers import playing_table

pytestmark = pytest.mark.browser

WAIT = 20000
CONNECTED = re.compile("^(connected|the game has ended)$")


def opened(page, base: str, table: str, token: str | None = None) -> str:
    """The table page (from a seat link when ``token`` is given): the seat it says it is."""
    page.goto(f"{base}/play/{table}" + (f"#token={token}" if token else ""))
    expect(page.locator("#connection")).to_have_text(CONNECTED, timeout=WAIT)
    return whoami(page)


def whoami(page) -> str:
    expect(page.locator("#whoami")).to_have_text(re.compile(r"^You are \S+ at table"), timeout=WAIT)
    return page.inner_text("#whoami").split()[2]


def test_each_tab_stays_the_seat_of_its_link_across_a_reload(browser_context, service):
    base, _ = service
    created = playing_table(base, seats=["ann", "bob"])
    table, tokens = created["table"], created["tokens"]
    ann_tab, bob_tab = browser_context.new_page(), browser_context.new_page()  # one browser: one storage
    try:
        assert opened(ann_tab, base, table, tokens["ann"]) == "ann"
        assert opened(bob_tab, base, table, tokens["bob"]) == "bob"
        ann_tab.reload()
        expect(ann_tab.locator("#connection")).to_have_text(CONNECTED, timeout=WAIT)
        assert whoami(ann_tab) == "ann"  # not bob, whose link this browser opened last
        bob_tab.reload()
        expect(bob_tab.locator("#connection")).to_have_text(CONNECTED, timeout=WAIT)
        assert whoami(bob_tab) == "bob"
        fresh = browser_context.new_page()  # a new tab, no link: the seat given last on this device
        try:
            assert opened(fresh, base, table) == "bob"
        finally:
            fresh.close()
    finally:
        ann_tab.close()
        bob_tab.close()
