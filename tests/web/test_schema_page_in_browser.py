"""The OpenAPI page at ``/schema`` in a real browser against a real ``tonk serve``: it makes
no request but its own (no script, font or style from a CDN on the origin that keeps seat
tokens), shows every route of the document, and its links reach the document and the
schemas."""

from __future__ import annotations

import json
import urllib.request

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the browser_context fixture skips (and under CI=true the skip fails the run)
    expect = None

pytestmark = pytest.mark.browser


def test_the_schema_page_makes_no_other_request_and_shows_every_route(page, service):
    base, _ = service
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(base + "/schema")
    expect(page.locator("h1")).to_have_text("tonk table service 1")
    with urllib.request.urlopen(base + "/schema/openapi.json", timeout=10) as r:
        paths = json.loads(r.read())["paths"]
    shown = page.locator("section.route h3 code").all_inner_texts()
    assert set(paths) <= set(shown) and "/tables/{table_id}/commands" in shown
    # the page may not even ask for more: its policy refuses a script's request
    assert page.evaluate("() => fetch('/schema/openapi.json').then(() => 'fetched', () => 'refused')") == "refused"
    assert requests == [base + "/schema"], requests
    page.locator("#TablesCreateTable a", has_text="TableSettings").click()
    expect(page.locator("#schema-TableSettings")).to_be_in_viewport()
