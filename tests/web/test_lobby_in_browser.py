"""The lobby of issue 20 and a seat that survives the tab, in a real browser against a real
``tonk serve``: the short form reached by keyboard, the house rules found by a search, a
table closed by its host from the page, a seat rejoined from a new browser context that
carries the device's storage and from the seat link, and the lobby at phone width."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the browser_context fixture skips (and under CI=true the skip fails the run)
    expect = None

from table_helpers import open_house_rules, open_lobby

pytestmark = pytest.mark.browser


def api(base: str, method: str, path: str, token: str | None = None) -> dict:
    """A JSON call to the running service, as any client makes it (no body)."""
    headers = {"Accept": "application/json", **({"Authorization": "Bearer " + token} if token else {})}
    with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers, method=method), timeout=20) as response:
        return json.loads(response.read())

#: at most this many presses of Tab from the page's start reach "Create the table"
#: (three seats of a name and a player each, "Add a seat", stake, hands, turn timer, the bot that
#: plays a timed-out turn (shown once a timer is chosen), then the button)
SHORT_PATH = 12


def tab_presses_to(page, selector: str, limit: int = 120) -> int:
    """Press Tab from the page's start until ``selector`` has the focus; how many presses."""
    for n in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector):
            return n
    raise AssertionError(f"{limit} presses of Tab never reached {selector}")


def created_table(page) -> str:
    expect(page.locator("#created .tokens")).to_be_visible(timeout=20000)
    assert page.inner_text("#status") == "Table created.", page.inner_text("#status")
    return page.get_attribute("#tables-open li:first-child", "data-table") or ""


def test_the_short_path_creates_a_table_by_keyboard_in_a_few_presses_with_a_turn_timer(page, service):
    base, db = service
    open_lobby(page, base)
    presses = tab_presses_to(page, "#turn-timer")
    page.select_option("#turn-timer", "60")  # (a select's value by keyboard differs by platform)
    presses += tab_presses_to(page, "#create")
    assert presses <= SHORT_PATH, presses
    print(f"Tab presses to 'Create the table': {presses}")
    page.keyboard.press("Enter")
    expect(page.locator("#created .tokens")).to_be_visible(timeout=20000)
    link = page.input_value("#seat-link-ann")
    table = re.search(r"/play/([^#]+)#token=", link).group(1)
    token = re.search(r"#token=(.+)$", link).group(1)
    view = api(base, "GET", f"/tables/{table}/view", token)
    assert view["turn_timer"] == 60 and view["bots"] == {"bob": "greedy", "cy": "greedy"}
    assert view["stand_in"] == "greedy"  # a timed-out turn is the greedy bot's unless the host picks another
    assert page.get_attribute("#house-rules", "open") is None  # the house rules stayed folded away


def test_the_host_picks_the_bot_that_plays_a_timed_out_turn(page, service):
    base, db = service
    open_lobby(page, base)
    expect(page.locator("#stand-in")).to_be_hidden()  # no timer, no stand-in to choose
    page.select_option("#turn-timer", "60")
    expect(page.locator("#stand-in")).to_be_visible()
    page.select_option("#stand-in", "expert")
    page.click("#create")
    expect(page.locator("#created .tokens")).to_be_visible(timeout=20000)
    link = page.input_value("#seat-link-ann")
    table = re.search(r"/play/([^#]+)#token=", link).group(1)
    token = re.search(r"#token=(.+)$", link).group(1)
    assert api(base, "GET", f"/tables/{table}/view", token)["stand_in"] == "expert"


def test_the_house_rules_are_found_by_a_search(page, service):
    base, db = service
    open_lobby(page, base)
    groups = page.locator("#variants .variant")
    expect(groups.first).to_be_hidden()  # behind the disclosure
    open_house_rules(page)
    total = groups.count()
    assert total >= 10
    expect(page.locator("#variant-count")).to_have_text(f"{total} installed")
    page.fill("#variant-search", "joker")
    shown = page.locator("#variants .variant:visible")
    expect(shown).not_to_have_count(total)
    names = shown.evaluate_all("gs => gs.map(g => g.textContent.trim().toLowerCase())")
    assert names and all("joker" in n for n in names)
    assert any(n.startswith("jokers-wild") for n in names)
    expect(page.locator("#variant-count")).to_have_text(f"{len(names)} of {total} shown")
    page.get_by_label(re.compile(r"^jokers-wild: ")).check()
    expect(page.locator("#variant-count")).to_have_text(f"{len(names)} of {total} shown; 1 chosen")
    page.fill("#variant-search", "no house rule is called this")
    expect(shown).to_have_count(0)
    page.fill("#variant-search", "")
    expect(shown).to_have_count(total)
    assert page.is_checked("#variant-jokers-wild")  # a search never unticks a rule


def test_the_host_closes_a_table_from_the_page(page, service):
    base, db = service
    open_lobby(page, base)
    page.fill("#hand-limit", "")  # until the host closes it
    page.click("#create")
    table = created_table(page)
    row = page.locator(f'#tables-open li[data-table="{table}"]')
    close = row.get_by_role("button", name="Close table")
    expect(close).to_be_visible()
    close.click()
    expect(page.locator("#status")).to_have_text(re.compile(rf"^Table {table[:8]} (is closing|closed)"), timeout=20000)
    listed = {t["table"]: t for t in api(base, "GET", "/tables")["tables"]}
    assert listed[table]["status"] in ("closing", "ended")
    expect(page.locator(f'#tables li[data-table="{table}"]').get_by_role("button", name="Close table")).to_have_count(0)
    # a device that keeps no host token of the table is offered no "Close table"
    page.evaluate("() => localStorage.clear()")
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    expect(page.get_by_role("button", name="Close table")).to_have_count(0)


def sit_as_ann(page, base: str) -> str:
    """Create a table in the lobby (ann a person, one hand) and sit down as ann here."""
    open_lobby(page, base)
    page.fill("#hand-limit", "")
    page.click("#create")
    expect(page.locator("#created .tokens")).to_be_visible(timeout=20000)
    link = page.input_value("#seat-link-ann")
    page.click("text=Play as ann here")
    page.wait_for_url(re.compile(r"/play/"))
    expect(page.locator("#connection")).to_have_text("connected", timeout=20000)
    return link


def test_a_seat_is_taken_again_from_a_new_tab_and_after_a_browser_restart(chromium, service):
    base, db = service
    first = chromium.new_context()
    page = first.new_page()
    link = sit_as_ann(page, base)
    table = re.search(r"/play/([^#]+)#", link).group(1)
    whoami = f"You are ann at table {table[:8]}."
    expect(page.locator("#whoami")).to_have_text(whoami)
    tab = first.new_page()  # a new tab of the same browser: nothing retyped
    tab.goto(f"{base}/play/{table}")
    expect(tab.locator("#connection")).to_have_text("connected", timeout=20000)
    expect(tab.locator("#whoami")).to_have_text(whoami)
    storage = first.storage_state()  # the device's storage, as a browser keeps it across a restart
    first.close()
    kept = [o for o in storage["origins"] if o["origin"] == base]
    assert kept and any(item["name"] == f"tonk-token:{table}" for item in kept[0]["localStorage"])
    storage["cookies"] = []  # not even the stream cookie: the token kept on the device suffices
    again = chromium.new_context(storage_state=storage)
    page = again.new_page()
    page.goto(f"{base}/play/{table}")
    expect(page.locator("#connection")).to_have_text("connected", timeout=20000)
    expect(page.locator("#whoami")).to_have_text(whoami)
    assert page.is_hidden("#token-form")
    # and the lobby of that device offers its way back
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator(f'#tables-open li[data-table="{table}"]').get_by_role("link", name="Back to your seat")).to_be_visible()
    again.close()


def test_the_seat_link_sits_down_on_another_device_and_never_sends_the_token_in_a_url(chromium, service):
    base, db = service
    creator = chromium.new_context()
    page = creator.new_page()
    open_lobby(page, base)
    page.fill("#hand-limit", "")  # until closed: a one-hand game may end on its deal, before "connected"
    page.click("#create")
    expect(page.locator("#created .tokens")).to_be_visible(timeout=20000)
    link = page.input_value("#seat-link-ann")
    creator.close()
    table, token = re.fullmatch(rf"{re.escape(base)}/play/([^#?]+)#token=(.+)", link).groups()
    device = chromium.new_context()  # another device: nothing kept
    page = device.new_page()
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url + " " + json.dumps(r.headers.get("cookie", ""))))
    page.goto(link)
    expect(page.locator("#connection")).to_have_text("connected", timeout=20000)
    expect(page.locator("#whoami")).to_have_text(f"You are ann at table {table[:8]}.")
    assert "#" not in page.url and token not in page.url  # read once, removed from the address bar
    assert page.evaluate("(t) => localStorage.getItem('tonk-token:' + t)", table) == token
    page.reload()  # kept on the device: the page sits down again without the link
    expect(page.locator("#connection")).to_have_text("connected", timeout=20000)
    assert sent and not [s for s in sent if token in s]  # in no URL, in no cookie
    device.close()


def test_the_lobby_with_a_table_created_fits_a_phone(page, service):
    base, db = service
    page.set_viewport_size({"width": 390, "height": 844})
    open_lobby(page, base)
    page.click("#create")
    expect(page.locator("#created .tokens")).to_be_visible(timeout=20000)
    open_house_rules(page)
    page.fill("#variant-search", "hit")
    for summary in page.locator("#variants .variant:visible summary").all():
        summary.click()
    expect(page.locator("#tables li")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scrolling


def test_the_lobby_needs_no_token_in_any_request_it_makes_but_the_header(page, service):
    """The host token, kept on this device, travels only in the Authorization header of close."""
    base, db = service
    open_lobby(page, base)
    page.fill("#hand-limit", "")
    page.click("#create")
    table = created_table(page)
    host = page.evaluate("(t) => localStorage.getItem('tonk-host:' + t)", table)
    assert host
    seen: list[tuple[str, str | None]] = []
    page.on("request", lambda r: seen.append((r.url, r.headers.get("authorization"))))
    page.locator(f'#tables-open li[data-table="{table}"]').get_by_role("button", name="Close table").click()
    expect(page.locator("#status")).to_contain_text(table[:8], timeout=20000)
    assert (f"{base}/tables/{table}/close", f"Bearer {host}") in seen
    assert not [u for u, _ in seen if host in u]
    request = urllib.request.Request(f"{base}/tables/{table}/close", method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:  # and without it, nothing closes
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 401


def end_the_game(base: str, table: str, token: str) -> None:
    """Ann plays (a knock whenever she may: her table has one hand) until the game has ended."""
    body = {}
    for n in range(500):
        view = api(base, "GET", f"/tables/{table}/view", token)
        if view["status"] == "ended":
            return
        legal = view["legal"]
        assert legal, view
        move = next((a for a in legal if a["action"] == "knock"), legal[0])
        body = {k: v for k, v in move.items() if k != "player" and v not in (None, {})}
        body.update(version=view["version"], command_id=f"end-{n}")
        request = urllib.request.Request(
            f"{base}/tables/{table}/commands", data=json.dumps(body).encode(), method="POST", headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"}
        )
        urllib.request.urlopen(request, timeout=20).read()
    raise AssertionError("the game did not end")


def test_the_host_starts_a_rematch_from_the_lobby_and_a_player_joins_it(chromium, service):
    base, db = service
    host_device = chromium.new_context()
    page = host_device.new_page()
    open_lobby(page, base)
    page.fill("#hand-limit", "1")
    page.click("#create")
    expect(page.locator("#created .tokens")).to_be_visible(timeout=20000)
    link = page.input_value("#seat-link-ann")
    table, token = re.fullmatch(rf"{re.escape(base)}/play/([^#?]+)#token=(.+)", link).groups()
    player_device = chromium.new_context()  # ann, on her own device, from her seat link
    mine = player_device.new_page()
    mine.goto(link)
    expect(mine.locator("#connection")).to_have_text(re.compile("connected|the game has ended"), timeout=20000)
    end_the_game(base, table, token)
    page.click("#refresh")
    ended = page.locator(f'#tables-ended li[data-table="{table}"]')
    expect(ended.get_by_role("button", name="Join the rematch")).to_have_count(0)  # the host holds no seat here
    ended.get_by_role("button", name="Rematch").click()
    expect(page.locator("#status")).to_contain_text("Rematch started: table ", timeout=20000)
    new = api(base, "GET", "/tables")["tables"]
    rematch = next(t for t in new if t["rematch_of"] == table)
    assert rematch["players"] == ["ann", "bob", "cy"] and rematch["bots"] == {"bob": "greedy", "cy": "greedy"}
    expect(ended.get_by_role("button", name="Rematch")).to_have_count(0)  # one rematch
    if rematch["status"] != "ended":  # (a deal may end a one-hand game at once)
        expect(page.locator(f'#tables-open li[data-table="{rematch["table"]}"]').get_by_role("button", name="Close table")).to_be_visible()
    # ann's device: the lobby offers her the rematch; joining keeps her new token and sits her down
    mine.goto(base + "/")
    mine.wait_for_selector("body[data-ready=true]")
    mine.locator(f'#tables-ended li[data-table="{table}"]').get_by_role("button", name="Join the rematch").click()
    mine.wait_for_url(f"{base}/play/{rematch['table']}")
    expect(mine.locator("#whoami")).to_have_text(f"You are ann at table {rematch['table'][:8]}.", timeout=20000)
    kept = mine.evaluate("(t) => localStorage.getItem('tonk-token:' + t)", rematch["table"])
    assert kept and kept != token
    assert api(base, "GET", f"/tables/{rematch['table']}/view", kept)["seat"] == "ann"
    host_device.close()
    player_device.close()
