"""The fair deal in the browser (docs/fair-deal.md): the table page sits down by itself with a
seed from ``crypto.getRandomValues``, the table page and the lobby show who has sat, and the
replay viewer recomputes every deck with WebCrypto ("deck verified"), naming a hand whose deck
does not follow."""

from __future__ import annotations

import random
import re

import pytest

from table_helpers import api, create_table
from tonk.core import Game
from tonk.core.commands import DealHand
from tonk.core.events import HandDealt
from tonk.storage import EventStore
from tonk.variants import load_ruleset

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixtures skip (and under CI=true the skip fails the run)
    expect = None

pytestmark = pytest.mark.browser


def test_the_table_page_sits_down_by_itself_and_the_lobby_and_page_show_who_has_sat(page, service):
    base, db = service
    created = create_table(base, {"seats": ["ann", "bob", "cy"], "bots": {"cy": "greedy"}, "hand_limit": 1}, sit=False)
    table, tokens = created["table"], created["tokens"]
    page.goto(f"{base}/play/{table}#token={tokens['ann']}")
    expect(page.locator("#seating")).to_have_text("Waiting for bob to sit down (ann has sat).", timeout=20000)
    seed = page.evaluate(f"() => localStorage.getItem('tonk-seed:{table}')")
    assert re.fullmatch(r"[0-9a-f]{64}", seed)
    view = api(base, "GET", f"/tables/{table}/view", tokens["ann"])
    assert view["status"] == "waiting" and view["sat"] == ["ann"] and view["client_seed"] == seed
    lobby = page.context.new_page()
    lobby.goto(base + "/")
    item = lobby.locator(f'li[data-table="{table}"]')
    expect(item).to_contain_text("waiting for people to sit down")
    expect(item.locator(".seating")).to_have_text("Waiting for bob to sit down (ann has sat).")
    lobby.close()
    bob = api(base, "POST", f"/tables/{table}/sit", tokens["bob"], {"client_seed": "b0" * 32})
    assert bob["sat"] == ["ann", "bob"] and bob["status"] != "waiting"
    expect(page.locator("#seating")).to_have_text("", timeout=20000)  # the page asks again while it waits
    with EventStore.open(db) as store:
        dealt = next(e for e in store.read(table) if type(e) is HandDealt)
    assert dealt.client_seeds == {"ann": seed, "bob": "b0" * 32, "cy": ""}
    page.reload()  # a reload sends the same seed again: the seat has sat, nothing changes
    expect(page.locator("#whoami")).to_have_text(f"You are ann at table {table[:8]}.")
    assert api(base, "GET", f"/tables/{table}/view", tokens["ann"])["client_seed"] == seed


def _play_to_the_end(base: str, created: dict) -> None:
    rng = random.Random(9)
    table, tokens = created["table"], created["tokens"]
    for _ in range(3000):
        views = {s: api(base, "GET", f"/tables/{table}/view", t) for s, t in tokens.items()}
        if next(iter(views.values()))["status"] == "ended":
            return
        seat, view = next((s, v) for s, v in views.items() if v["legal"])
        command = {k: v for k, v in rng.choice(view["legal"]).items() if k != "player" and v not in (None, {})}
        api(base, "POST", f"/tables/{table}/commands", tokens[seat], {**command, "version": view["version"], "command_id": f"c{view['version']}"})
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("seeds_recorded", [True, False], ids=["seeds-recorded", "recorded-without-seeds"])
def test_the_replay_viewer_recomputes_every_deck_and_names_one_that_does_not_follow(page, service, tonk_cli, tmp_path, seeds_recorded):
    base, db = service
    created = create_table(base, {"seats": ["ann", "bob"], "hand_limit": 2})
    _play_to_the_end(base, created)
    page.goto(f"{base}/games/{created['table']}")
    checks = page.locator("#deck-checks li")
    expect(checks).to_have_text(["Hand 1: deck verified", "Hand 2: deck verified"], timeout=20000)
    expect(page.locator("#deck-checks")).to_contain_text("Fair: every deck follows")
    # the operator dealt hand 2 from a deck of its choosing (the record otherwise consistent),
    # recording the seats' seeds, or recording it as an ordinary salted deal without them
    with EventStore.open(db) as store:
        events = store.read(created["table"])
    i = next(k for k, e in enumerate(events) if type(e) is HandDealt and e.hand_no == 2)
    real = events[i]
    game = Game(load_ruleset(), events[:i])
    seeds = dict(real.client_seeds) if seeds_recorded else None
    game.play(DealHand(deck=tuple(sorted(real.deck)), salt=real.salt, client_seeds=seeds))
    rng = random.Random(1)
    while game.in_hand:
        game.play(rng.choice(game.legal_actions()))
    game.end("hand limit 2 reached", server_seed=events[-1].server_seed)
    forged = tmp_path / "forged.db"
    with EventStore.open(forged, create=True) as store:
        store.append(created["table"], game.events, 0)
    out = tmp_path / "forged.html"
    result = tonk_cli(forged, "replay", created["table"], "--html", str(out))
    assert result.exit_code == 0, result.stderr
    page.goto(out.as_uri())
    expect(page.locator("#deck-checks li")).to_have_text(["Hand 1: deck verified", "Hand 2: deck does NOT follow from the seeds"], timeout=20000)
    expect(page.locator("#deck-checks")).to_contain_text("NOT fair: hand 2 does not follow from the seeds.")
