"""The pages' routes on a real ``tonk serve``: the pages and their static files, the replay
document of an ended game, and clear 4xx JSON errors (never a 500) for what is not there."""

from __future__ import annotations

import json
import urllib.error
import urllib.request


def get(url: str):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read())


def test_pages_static_files_and_errors(service):
    base, db = service
    for path, kind in (("/", "text/html"), ("/static/lobby.js", "text/javascript"), ("/static/pages.css", "text/css"), ("/static/replay.js", "text/javascript")):
        status, headers, text = get(base + path)
        assert status == 200 and headers["content-type"].startswith(kind), path
        assert "default-src 'none'" in headers["content-security-policy"]
    status, _, page = get(base + "/")
    assert 'src="/static/lobby.js"' in page and 'href="/static/pages.css"' in page
    # the pages name their icon (a browser asks for /favicon.ico, a 404, when a page names none)
    for path in ("/", "/dispute", "/play/any-table"):
        assert '<link rel="icon" type="image/svg+xml" href="/static/favicon.svg">' in get(base + path)[2], path
    status, headers, icon = get(base + "/static/favicon.svg")
    assert status == 200 and headers["content-type"].startswith("image/svg+xml") and icon.startswith("<svg") and "<script" not in icon
    for path in ("/static/nothing.js", "/static/..%2Fpages.py", "/static/__init__.py"):
        status, headers, text = get(base + path)
        assert status == 404 and json.loads(text)["error"]["code"] == "not_found", path
    created = post(base + "/tables", {"seats": ["ann", "bob"], "bots": {"bob": "greedy"}})
    status, _, text = get(base + f"/games/{created['table']}/document")
    assert status == 409 and "still in play" in json.loads(text)["error"]["message"]
    status, _, text = get(base + "/games/no-such-game/document")
    assert status == 404 and json.loads(text)["error"]["code"] == "not_found"
    status, _, page = get(base + f"/games/{created['table']}")
    assert status == 200 and f'data-replay-src="/games/{created["table"]}/document"' in page


def test_the_variants_route_lists_what_tonk_variants_lists(service, runner_json):
    base, db = service
    status, _, text = get(base + "/variants")
    assert status == 200
    assert json.loads(text) == runner_json(db, "variants", "--json")


def test_the_dispute_desk_page_and_its_json_routes(service, runner_json, record):
    """/dispute is a page like the others; /rules holds what `tonk rules --json` prints and the
    rule of every ending and payment; /games/{id}/record is what `tonk export --as-record` writes."""
    from tonk.core.events import HandDealt
    from tonk.core.rule_statements import ending_rules, payment_rules

    base, db = service
    status, headers, page = get(base + "/dispute")
    assert status == 200 and 'src="/static/dispute.js"' in page and "default-src 'none'" in headers["content-security-policy"]
    status, _, text = get(base + "/rules")
    rules = json.loads(text)
    assert status == 200 and rules["rules"] == runner_json(db, "rules", "--json")["rules"]
    assert rules["endings"] == ending_rules() and rules["payments"] == payment_rules()
    game = record(db, seed=41, hands=2)
    events = list(game.events)
    second = next(i for i, e in enumerate(events) if type(e) is HandDealt and e.hand_no == 2)
    for seq, hand, at in ((1, 1, 0), (second + 1, 2, 0), (second + 3, 2, 2)):
        status, _, text = get(base + f"/games/{game.game_id}/record?seq={seq}")
        assert status == 200, text
        assert json.loads(text) == runner_json(db, "export", game.game_id, "--hand", str(hand), "--as-record", "--at", str(at))
    status, _, text = get(base + f"/games/{game.game_id}/record?seq=0")
    assert status == 400 and "not 0" in json.loads(text)["error"]["message"]


def test_the_api_doc_quotes_the_table_pages_banner_and_names_every_key_it_keeps():
    """docs/http-api.md quotes the words the table page's banner says when the server is gone
    and when it is back (web/static/service.js), and names every localStorage key the pages
    keep (web/static/api.js, sit.js)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    doc = " ".join((root / "docs" / "http-api.md").read_text().split())
    service = (root / "web" / "static" / "service.js").read_text()
    words = {k: json.loads('"' + v + '"') for k, v in re.findall(r'^\s*(lost|back|connected): "([^"]*)",$', service, re.M)}
    assert set(words) == {"lost", "back", "connected"}
    for said in words.values():
        assert f'"{said}"' in doc, said
    keys = re.findall(r'^const [A-Z]+ = "(tonk-[a-z]+:)";$', (root / "web" / "static" / "api.js").read_text() + (root / "web" / "static" / "sit.js").read_text(), re.M)
    assert sorted(keys) == ["tonk-host:", "tonk-seed:", "tonk-token:"]
    for key in keys:
        assert f"`{key}ID`" in doc, key
