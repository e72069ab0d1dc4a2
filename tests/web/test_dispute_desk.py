"""The dispute desk (/dispute) in headless Chromium against a real ``tonk serve``: the README's
example dispute entered by clicking only and by keyboard only (each way's number of actions
counted), the verdict read, the record downloaded and judged alike by ``tonk adjudicate``,
loaded back, the verdict saved as one page that opens offline, what cannot be said at once,
phone width, and a recorded game's position opened from the replay viewer."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from page_checks import CONTRAST
from playwright.sync_api import expect

TONK = str(Path(__import__("sys").executable).with_name("tonk"))

pytestmark = pytest.mark.browser

#: the README's example: P1 knocks holding A♠ 2♠; P2 showed 7♦ 8♦; P3 never showed his two
#: cards; Q♣ tops the discard pile; nobody knows the stock
EXAMPLE = {"P1": ["AS", "2S"], "P2": ["7D", "8D"], "P3_unknown": 2, "discard_top": "QC"}
README = Path(__file__).resolve().parents[2] / "README.md"


def readme_text() -> str:
    return " ".join(README.read_text().split())


def open_desk(page, base: str, query: str = "") -> None:
    page.goto(f"{base}/dispute{query}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")


class Counter:
    """Each click and key press the test makes on the page, counted."""

    def __init__(self, page):
        self.page = page
        self.clicks = 0
        self.keys = 0

    def click(self, selector: str) -> None:
        self.page.click(selector)
        self.clicks += 1

    def press(self, key: str, times: int = 1) -> None:
        for _ in range(times):
            self.page.keyboard.press(key)
            self.keys += 1

    def tab_to(self, selector: str) -> None:
        """Tab (forward) until the element ``selector`` has the focus."""
        target = self.page.locator(selector)
        for _ in range(200):
            if target.evaluate("(e) => e === document.activeElement"):
                return
            self.press("Tab")
        raise AssertionError(f"Tab never reached {selector}")


def enter_by_mouse(page) -> Counter:
    c = Counter(page)
    for card in EXAMPLE["P1"]:
        c.click(f"#hand-0-{card}")
    for card in EXAMPLE["P2"]:
        c.click(f"#hand-1-{card}")
    for _ in range(EXAMPLE["P3_unknown"]):
        c.click("#hand-more-2")
    c.click(f"#discard-{EXAMPLE['discard_top']}")
    c.click("button[data-add=knock]")
    c.click("#adjudicate")
    return c


RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = "SHDC"


def pick_by_keys(c: Counter, picker: str, cards: list[str]) -> None:
    """In a picker that has the focus (on its ace of spades), go to each card by typing its
    suit (s h d c) and rank (a 2..9 0 j q k) where they differ from the focused card's, and
    press Space."""
    row, col = 0, 0
    for card in cards:
        r, k = SUITS.index(card[-1]), RANKS.index(card[:-1])
        if r != row:
            c.press(SUITS[r].lower())
        if k != col:
            c.press({"10": "0"}.get(RANKS[k], RANKS[k].lower()))
        row, col = r, k
        assert c.page.evaluate("document.activeElement.id") == f"{picker}-{card}"
        c.press("Space")


def enter_by_keyboard(page) -> Counter:
    c = Counter(page)
    c.tab_to("#hand-0-AS")
    pick_by_keys(c, "hand-0", EXAMPLE["P1"])
    c.tab_to("#hand-1-AS")
    pick_by_keys(c, "hand-1", EXAMPLE["P2"])
    c.tab_to("#hand-unknown-2")
    c.press(str(EXAMPLE["P3_unknown"]))
    c.tab_to("#discard-AS")
    pick_by_keys(c, "discard", [EXAMPLE["discard_top"]])
    c.tab_to("button[data-add=knock]")
    c.press("Enter")
    c.tab_to("#adjudicate")
    c.press("Enter")
    return c


def download(page, button: str, path: Path) -> Path:
    """Click ``button`` and save the file the page gives to ``path``."""
    with page.expect_download() as got:
        page.click(button)
    got.value.save_as(path)
    return path


def verdict_text(page) -> str:
    expect(page.locator("#verdict article.verdict")).to_be_visible()
    return page.inner_text("#verdict")


def cli_verdict(path: Path) -> dict:
    out = subprocess.run([TONK, "adjudicate", str(path), "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    (v,) = json.loads(out.stdout)["cases"]
    return v


def check_page_says(text: str, v: dict) -> None:
    """What the page shows is the CLI's verdict: each action, the ending or the outcomes, the
    totals, and the statement of each rule that settles them."""
    rules = json.loads(subprocess.run([TONK, "rules", "--json"], capture_output=True, text=True, timeout=60).stdout)["rules"]
    stated = {r["id"]: r["statement"] for r in rules}
    for a in v["actions"]:
        assert ("legal" if a["legal"] is True else "OPEN" if a["legal"] == "open" else "ILLEGAL") in text
    for p, t in v["hand_totals"].items():
        shown = f"{t['min']} to {t['max']}" if isinstance(t, dict) else str(t)
        assert f"total {shown}" in text, (p, t)
    for a in v["actions"]:
        if a["rule"]:
            assert stated[a["rule"]] in text
    if v.get("open"):
        assert f"Open: {len(v['outcomes'])} outcomes" in text
        assert v["decided_by"] in text
        assert len(v["outcome_rules"]) == len(v["outcomes"])
        for settled in v["outcome_rules"]:  # the rules the engine says settled each outcome
            for rule_id in (settled["end_rule"], *settled["payment_rules"].values()):
                assert f"Rule {rule_id}: {stated[rule_id]}" in text
        for o in v["outcomes"]:
            assert "Net: " + ", ".join(f"{p} {n:+d}".replace("-", "\u2212").replace("+0", "0") for p, n in o["net"].items()) in text
    else:
        for rule_id in (v["end_rule"], *v["payment_rules"].values()):
            if rule_id:
                assert f"Rule {rule_id}: {stated[rule_id]}" in text
        assert "Net: " + ", ".join(f"{p} {n:+d}".replace("-", "\u2212").replace("+0", "0") for p, n in v["net"].items()) in text


def test_the_readme_example_by_mouse_then_download_and_the_cli_agrees(page, service, tmp_path, screenshots):
    base, _ = service
    open_desk(page, base)
    counted = enter_by_mouse(page)
    text = verdict_text(page)
    print(f"\nREADME example by mouse: {counted.clicks} clicks + {counted.keys} key press(es) = {counted.clicks + counted.keys} actions")
    assert counted.keys == 0
    assert f"{counted.clicks} clicks with the mouse" in readme_text()  # the README's figure
    page.screenshot(path=str(screenshots / "dispute-verdict.png"), full_page=True)
    record_path = download(page, "#download-record", tmp_path / "dispute.json")
    record = json.loads(record_path.read_text())
    assert record["setup"]["stock"] == {"unknown": 45} and record["setup"]["hands"]["P3"] == {"unknown": 2}
    assert [a["action"] for a in record["actions"]] == ["knock"]
    v = cli_verdict(record_path)
    assert v["status"] == "ok" and v["actions"][0]["legal"] is True
    assert {o["end"]["outcome"] for o in v["outcomes"]} == {"knocker_won", "knocker_caught"}
    check_page_says(text, v)
    # the same record over HTTP is the same verdict as the CLI's
    answer = page.request.post(f"{base}/adjudicate", data=record_path.read_text())
    assert answer.json()["cases"][0] == v


def test_the_readme_example_by_keyboard_alone(page, service):
    base, _ = service
    open_desk(page, base)
    counted = enter_by_keyboard(page)
    assert counted.clicks == 0
    text = verdict_text(page)
    print(f"\nREADME example by keyboard: {counted.keys} key presses")
    assert f"or {counted.keys} key presses by keyboard alone" in readme_text()  # the README's figure
    assert "Open: 2 outcomes" in text
    assert page.locator("#hand-0-AS").get_attribute("aria-pressed") == "true"
    assert page.locator("#discard-QC").get_attribute("aria-pressed") == "true"
    # the arrow keys move in a picker too, wrapping at its edges
    page.focus("#hand-2-AS")
    for key, there in (("ArrowLeft", "KS"), ("ArrowDown", "KH"), ("ArrowUp", "KS"), ("ArrowUp", "KC"), ("ArrowRight", "AC"), ("End", "KC"), ("Home", "AC")):
        page.keyboard.press(key)
        assert page.evaluate("document.activeElement.id") == f"hand-2-{there}", key


def test_a_spread_on_the_table_a_hit_draws_and_discards_by_clicks_agree_with_the_cli(page, service, tmp_path):
    base, _ = service
    open_desk(page, base)
    for card in ("8S", "KH", "5C"):
        page.click(f"#hand-0-{card}")
    page.click("#hand-more-1")
    page.click("#hand-more-1")
    for card in ("9C", "9D"):
        page.click(f"#hand-2-{card}")
    page.click("#discard-10S")
    page.click("#add-spread")
    page.select_option("#spread-owner-0", "P2")
    for card in ("8C", "8D", "8H"):
        page.click(f"#spread-0-{card}")
    page.click("button[data-add=draw_stock]")
    page.click("button[data-add=hit]")
    page.click("#action-1-8S")
    assert page.input_value("#action-target-1") == "S1"
    page.click("button[data-add=discard]")
    page.click("#action-2-KH")
    assert page.input_value("#next-player") == "P2"  # after a discard, the player to the left
    page.click("button[data-add=draw_discard]")
    page.click("button[data-add=discard]")
    page.click("#action-4-KH")
    page.click("button[data-add=knock]")
    assert page.input_value("#action-player-5") == "P3"
    expect(page.locator("#problems")).to_be_empty()
    page.click("#adjudicate")
    text = verdict_text(page)
    path = download(page, "#download-record", tmp_path / "spread.json")
    record = json.loads(path.read_text())
    assert record["setup"]["table"] == [{"id": "S1", "owner": "P2", "cards": ["8C", "8D", "8H"]}]
    assert [a["action"] for a in record["actions"]] == ["draw_stock", "hit", "discard", "draw_discard", "discard", "knock"]
    v = cli_verdict(path)
    assert v["status"] == "ok" and [a["legal"] for a in v["actions"]] == [True] * 6
    assert v["final_table"][0]["cards"] == ["8C", "8D", "8H", "8S"]
    check_page_says(text, v)


def test_a_downloaded_record_loads_back_and_gives_the_same_verdict(page, service, tmp_path):
    base, _ = service
    open_desk(page, base)
    enter_by_mouse(page)
    first = verdict_text(page)
    path = download(page, "#download-record", tmp_path / "back.json")
    page.click("#reset")
    expect(page.locator("#verdict")).to_be_empty()
    assert page.locator("#hand-0-AS").get_attribute("aria-pressed") == "false"
    page.set_input_files("#load-file", str(path))
    expect(page.locator("#status")).to_contain_text("Loaded back.json")
    assert page.locator("#hand-0-AS").get_attribute("aria-pressed") == "true"
    assert page.input_value("#hand-unknown-2") == "2"
    page.click("#adjudicate")
    assert verdict_text(page) == first
    path2 = download(page, "#download-record", tmp_path / "again.json")
    assert json.loads(path2.read_text()) == json.loads(path.read_text())


def test_the_saved_verdict_opens_offline_with_no_request(page, chromium, service, tmp_path):
    base, _ = service
    open_desk(page, base)
    enter_by_mouse(page)
    shown = verdict_text(page)
    path = download(page, "#save-verdict", tmp_path / "verdict.html")
    html = path.read_text()
    assert "<script" not in html.lower() and "default-src 'none'" in html
    context = chromium.new_context()
    other = context.new_page()
    requests: list[str] = []
    other.on("request", lambda r: requests.append(r.url))
    context.set_offline(True)
    other.goto(path.as_uri())
    body = other.inner_text("body")
    context.close()
    assert requests == [path.as_uri()]
    assert "Open: 2 outcomes" in body and shown.splitlines()[1] in body
    assert '"unknown": 45' in body  # the record, for whoever wants to adjudicate it again


def test_what_cannot_be_is_said_at_once(page, service):
    base, _ = service
    open_desk(page, base)
    expect(page.locator("#problems")).to_be_empty()
    page.click("#hand-0-AS")
    expect(page.locator("#discard-AS")).to_have_attribute("aria-label", "ace of spades, in P1's hand")  # marked before it is given twice
    expect(page.locator("#discard-AS")).to_have_class("pick elsewhere")
    page.click("#discard-AS")
    expect(page.locator("#problems")).to_contain_text("ace of spades (A\u2660) is named twice: in P1's hand and in the discard pile")
    expect(page.locator("#adjudicate")).to_be_disabled()
    page.click("#discard-AS")
    expect(page.locator("#problems")).to_be_empty()
    page.fill("#stock-unknown", "10")
    expect(page.locator("#problems")).to_contain_text("The cards do not add up to the deck (with 10 in the stock): 1 named and 10 not shown make 11, but the deck has 52 (41 missing).")
    page.fill("#stock-unknown", "")
    page.fill("#hand-unknown-1", "60")
    expect(page.locator("#problems")).to_contain_text("no card is left for the stock): 1 named and 60 not shown make 61, but the deck has 52 (9 too many).")
    page.fill("#hand-unknown-1", "")
    page.click("button[data-add=discard]")
    expect(page.locator("#problems")).to_contain_text("Action 1 (P1 discard): choose the card.")
    page.click("#action-0-KH")
    expect(page.locator("#problems")).to_be_empty()
    page.click("button[data-add=draw_stock]")
    page.click("#actions li:nth-child(2) summary")
    page.click("#action-1-AS")
    expect(page.locator("#problems")).to_contain_text("the card drawn, ace of spades, is already in P1's hand")
    expect(page.locator("#adjudicate")).to_be_disabled()


def test_phone_width_and_every_control_named(page, service, screenshots):
    base, _ = service
    page.set_viewport_size({"width": 390, "height": 844})
    open_desk(page, base)
    enter_by_mouse(page)
    verdict_text(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(screenshots / "dispute-phone.png"), full_page=True)
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('button, input, select, summary')].filter((e) => {
          const label = e.getAttribute('aria-label') || (e.labels && [...e.labels].map((l) => l.textContent).join('')) || e.textContent;
          return !label || !label.trim();
        }).map((e) => e.outerHTML.slice(0, 80))"""
    )
    assert unnamed == []
    low = [t for t in page.evaluate(CONTRAST) if t[1] < 4.5]
    assert low == [], low


def test_a_recorded_game_opens_from_the_replay_viewer_at_its_position(page, service, record, tmp_path):
    base, db = service
    game = record(db, seed=31, hands=1)
    page.goto(f"{base}/games/{game.game_id}#e=4&as=*")
    link = page.locator("#dispute-here")
    expect(link).to_be_visible()
    expect(link).to_have_attribute("href", f"/dispute?game={game.game_id}&seq=4")
    link.click()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#status")).to_contain_text(f"Game {game.game_id}, hand 1")
    page.click("#adjudicate")
    text = verdict_text(page)
    ending = game.state.last_ending
    assert ending is not None
    for p, total in ending.totals.items():
        assert f"{p}: " in text and f"total {total}" in text


def test_a_live_games_position_is_not_given(page, service):
    base, _ = service
    created = page.request.post(f"{base}/tables", data=json.dumps({"seats": ["ann", "bob"]}), headers={"content-type": "application/json"}).json()
    answer = page.request.get(f"{base}/games/{created['table']}/record?seq=2")
    assert answer.status == 409 and "still in play" in answer.json()["error"]["message"]
    open_desk(page, base, f"?game={created['table']}&seq=2")
    expect(page.locator("#status")).to_contain_text("still in play")
    assert page.locator("#hand-0-AS").get_attribute("aria-pressed") == "false"


def test_an_illegal_action_shows_its_violation_and_the_statement_of_its_rule(page, service, tmp_path):
    base, _ = service
    open_desk(page, base)
    page.click("#hand-0-AS")
    page.click("#hand-0-2S")
    page.click("button[data-add=draw_stock]")
    page.click("button[data-add=knock]")  # a knock after drawing
    page.click("#adjudicate")
    text = verdict_text(page)
    path = download(page, "#download-record", tmp_path / "late-knock.json")
    v = cli_verdict(path)
    late = v["actions"][1]
    assert late["legal"] is False and late["rule"] == "A7.1"
    assert f"ILLEGAL \u2014 {late['violation']}: {late['message']}" in text
    check_page_says(text, v)
    assert "The hand has not ended." in text


VARIANT_SETTLEMENTS = Path(__file__).resolve().parents[1] / "core" / "fixtures" / "variant-settlements.json"


@pytest.mark.parametrize(("case_id", "house_rule", "base_rule"), [("CS6", "V:caught-scheme", "A12.5"), ("ST1", "V:stock-tie", "A12.8")])
def test_under_a_house_rule_that_settles_the_hand_the_desk_shows_its_statement(page, service, tmp_path, case_id, house_rule, base_rule):
    """The verdict's own ``end_rule``/``payment_rules`` are shown, chosen by the engine under the
    record's house rules: a caught knocker under dropper_pays_all_stakes (a lower player is paid
    nothing), a tie at a dry stock under stock-tie (nobody is paid); not the base game's rule."""
    base, _ = service
    records = json.loads(VARIANT_SETTLEMENTS.read_text())
    case = next(c for c in records["cases"] if c["id"] == case_id)
    path = tmp_path / f"{case_id}.json"
    path.write_text(json.dumps({**records, "cases": [case]}))
    open_desk(page, base)
    page.set_input_files("#load-file", str(path))
    expect(page.locator("#status")).to_contain_text(f"Loaded {case_id}.json")
    page.click("#adjudicate")
    text = verdict_text(page)
    v = cli_verdict(download(page, "#download-record", tmp_path / "again.json"))
    assert v["end_rule"] == house_rule
    check_page_says(text, v)
    assert f"Rule {house_rule}:" in text and f"Rule {base_rule}:" not in text


def test_text_from_a_loaded_record_is_shown_as_text_in_the_page_and_the_saved_verdict(page, service, tmp_path):
    base, _ = service
    hostile = '<img src=x onerror="document.title=1">'
    record = {
        "format_version": 2, "title": "<b>bold</b>", "players": [hostile, "bob"], "dealer": "bob",
        "ruleset": {"variants": [], "options": {"base_stake": 1}},
        "setup": {"mode": "explicit", "hands": {hostile: ["AS", "2S"], "bob": {"unknown": 2}}, "stock": {"unknown": 47}, "discard": ["QC"], "table": [], "to_act": hostile},
        "actions": [{"seq": 1, "player": hostile, "action": "knock"}],
    }
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(record))
    open_desk(page, base)
    page.set_input_files("#load-file", str(path))
    expect(page.locator("#status")).to_contain_text("Loaded hostile.json")
    page.click("#adjudicate")
    text = verdict_text(page)
    assert hostile + " knock: legal" in text
    assert page.locator("img").count() == 0 and page.title() == "Tonk dispute desk"
    saved = download(page, "#save-verdict", tmp_path / "hostile.html")
    html = saved.read_text()
    assert "<img" not in html and "<b>bold" not in html and "&lt;img src=x" in html


def test_house_rules_their_options_and_their_deck_come_from_the_engine(page, service, tmp_path):
    base, _ = service
    open_desk(page, base)
    page.click("#house-rules summary")
    page.click("#variant-forty-card-deck")  # 8s, 9s and 10s out of the deck
    expect(page.locator("#hand-0-8S")).to_have_count(0)
    expect(page.locator("#stock-unknown")).to_have_attribute("placeholder", "the rest: 40")
    page.click("#variant-forty-card-deck")
    expect(page.locator("#hand-0-8S")).to_have_count(1)
    page.click("#variant-jokers-wild")
    expect(page.locator("#hand-0-X1")).to_be_visible()
    expect(page.locator("#option-joker_value")).to_have_value("0")  # an option the rule needs, at its default
    page.fill("#option-jokers", "1")
    page.press("#option-jokers", "Tab")
    expect(page.locator("#hand-0-X2")).to_have_count(0)
    expect(page.locator("#stock-unknown")).to_have_attribute("placeholder", "the rest: 53")
    page.fill("#option-jokers", "7")
    page.press("#option-jokers", "Tab")
    expect(page.locator("#problems")).to_contain_text("The house rules cannot be used as chosen")
    expect(page.locator("#adjudicate")).to_be_disabled()
    page.fill("#option-jokers", "1")
    page.press("#option-jokers", "Tab")
    expect(page.locator("#problems")).to_be_empty()
    for card in ("X1", "AS", "2S"):
        page.click(f"#hand-0-{card}")
    page.click("#hand-more-1")
    page.click("#hand-more-2")
    page.click("button[data-add=knock]")
    page.click("#adjudicate")
    text = verdict_text(page)
    path = download(page, "#download-record", tmp_path / "jokers.json")
    record = json.loads(path.read_text())
    assert record["ruleset"] == {"variants": ["jokers-wild"], "options": {"jokers": 1, "joker_value": 0, "base_stake": 1}}
    assert record["setup"]["stock"] == {"unknown": 48}  # 53 cards: 3 named, 2 not shown
    check_page_says(text, cli_verdict(path))


def test_a_joker_stands_for_the_card_chosen_on_the_table_and_in_a_hit(page, service, tmp_path):
    base, _ = service
    open_desk(page, base)
    page.click("#house-rules summary")
    page.click("#variant-jokers-wild")
    expect(page.locator("#hand-0-X2")).to_be_visible()
    for card in ("AS", "2S", "X2"):
        page.click(f"#hand-0-{card}")
    page.click("#add-spread")
    page.select_option("#spread-owner-0", "P2")
    for card in ("5H", "6H", "X1"):
        page.click(f"#spread-0-{card}")
    page.select_option("#spread-0-stands-X1", "7H")
    page.click("button[data-add=draw_stock]")
    page.click("button[data-add=hit]")
    page.click("#action-1-X2")
    page.select_option("#action-1-stands-X2", "8H")
    page.click("button[data-add=discard]")
    page.click("#action-2-AS")
    page.click("button[data-add=knock]")
    page.click("#adjudicate")
    text = verdict_text(page)
    path = download(page, "#download-record", tmp_path / "wild.json")
    record = json.loads(path.read_text())
    assert record["setup"]["table"] == [{"id": "S1", "owner": "P2", "cards": ["5H", "6H", "X1"], "jokers_as": {"X1": "7H"}}]
    assert record["actions"][1] == {"seq": 2, "player": "P1", "action": "hit", "card": "X2", "target": "S1", "joker_as": "8H"}
    v = cli_verdict(path)
    assert [a["legal"] for a in v["actions"]] == [True] * 4
    assert v["final_table"][0]["jokers_as"] == {"X1": "7H", "X2": "8H"}
    check_page_says(text, v)
    page.click("#reset")
    page.set_input_files("#load-file", str(path))
    expect(page.locator("#status")).to_contain_text("Loaded wild.json")
    expect(page.locator("#action-1-stands-X2")).to_have_value("8H")
    expect(page.locator("#spread-0-stands-X1")).to_have_value("7H")


def test_a_verdict_asked_while_the_server_cannot_be_reached_is_said_in_words(page, service):
    """The browser cannot reach the server for /adjudicate (the request fails as when the server
    is down): the desk says so in words, the page's banner says it is reconnecting, and the
    entered hand stays on the page to ask again."""
    base, _ = service
    open_desk(page, base)
    page.route("**/adjudicate", lambda route: route.abort("connectionrefused"))
    enter_by_mouse(page)
    expect(page.locator("#status")).to_contain_text("The server cannot be reached")
    expect(page.locator("#connection")).to_contain_text("reconnecting")
    expect(page.locator("#hand-0-AS")).to_have_attribute("aria-pressed", "true")
    page.unroute("**/adjudicate")
    page.click("#adjudicate")
    expect(page.locator("#verdict")).to_contain_text("knock")
    expect(page.locator("#connection")).to_contain_text("Connected again")


def test_players_named_as_what_every_object_inherits_are_judged_like_any_other(page, service, tmp_path):
    """A record whose players are named "__proto__" and "constructor" is sent to the service as
    it was loaded (every hand in it: on a plain {} a key "__proto__" would set the prototype
    and the hand be lost) and judged as the service judges the file itself."""
    base, _ = service
    example = json.loads((Path(__file__).resolve().parents[2] / "examples" / "disputed-hands.json").read_text())
    case = next(c for c in example["cases"] if c["setup"].get("table"))
    text = json.dumps(case).replace('"P1"', '"__proto__"').replace('"P2"', '"constructor"')
    path = tmp_path / "proto.json"
    path.write_text(text)
    expected = page.request.post(f"{base}/adjudicate", data=text).json()["cases"][0]
    assert expected["status"] == "ok"
    sent: list[dict] = []
    page.on("request", lambda r: sent.append(json.loads(r.post_data)) if r.url.endswith("/adjudicate") else None)
    open_desk(page, base)
    page.set_input_files("#load-file", str(path))
    expect(page.locator("#status")).to_contain_text("Loaded proto.json")
    page.click("#adjudicate")
    said = verdict_text(page)
    assert sent[-1]["setup"]["hands"] == json.loads(text)["setup"]["hands"]  # every hand, as loaded
    check_page_says(said, expected)


def test_a_payment_reason_named_as_what_every_object_inherits_cites_no_rule(page, service, tmp_path):
    """A house rule may name its payments as it likes; a reason such as "constructor" that no
    verdict's ``payment_rules`` names is shown with no rule line (not the statement of an
    object's inherited function). The service's answer is changed on its way to the page."""
    base, _ = service
    example = json.loads((Path(__file__).resolve().parents[2] / "examples" / "disputed-hands.json").read_text())
    case = next(c for c in example["cases"] if c["setup"].get("table"))
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case))

    def renamed(route) -> None:
        answer = route.fetch()
        body = answer.json()
        verdict = body["cases"][0]
        assert verdict["ledger"], verdict  # a verdict with payments to rename
        for p in verdict["ledger"]:
            p["reason"] = "constructor"
        verdict["payment_rules"] = {}
        route.fulfill(response=answer, json=body)

    open_desk(page, base)
    page.route("**/adjudicate", renamed)
    page.set_input_files("#load-file", str(path))
    expect(page.locator("#status")).to_contain_text("Loaded case.json")
    page.click("#adjudicate")
    said = verdict_text(page)
    assert "function" not in said and "native code" not in said, said
