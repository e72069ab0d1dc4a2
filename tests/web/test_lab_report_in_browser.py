"""The house-rule lab's report opens in headless Chromium from disk, with no network request."""

from __future__ import annotations

import pytest
from page_checks import only_this_file
from playwright.sync_api import expect

from tonk.application.lab_report import lab_html, sentence
from tonk.application.simulate import SimConfig, compare_rulesets

pytestmark = pytest.mark.browser


def test_the_report_opens_from_disk_with_no_request_and_shows_its_charts(page, tmp_path, screenshots):
    a = SimConfig(hands=1500, players=3, bots=("greedy", "greedy", "random"), seed=1)
    b = SimConfig(hands=1500, players=3, bots=("greedy", "greedy", "random"), seed=1, variants=("knock-limit",))
    result = compare_rulesets(a, b)
    path = tmp_path / "lab.html"
    path.write_text(lab_html(result, "classic", "knock-limit"), encoding="utf-8")
    violations: list[str] = []
    page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
    attempted = only_this_file(page, path)
    page.context.set_offline(True)
    try:
        page.goto(path.as_uri())
        expect(page.locator("h1")).to_have_text("House-rule lab")
        expect(page.locator("svg")).to_have_count(5)  # endings, lengths, knocks, seats, bots
        won = next(r for r in result["rows"] if r["metric"] == "knocks won (share)")
        assert won["verdict"] == "certain"  # a knock limit turns most knocks into wins
        expect(page.locator("ul.findings")).to_contain_text(sentence(won))
        rows = page.locator("tbody tr")
        expect(rows).to_have_count(len(result["rows"]))
        # the style sheet applied (allowed by its hash): a certain verdict is bold
        weight = page.locator("tr.certain td.verdict").first.evaluate("e => getComputedStyle(e).fontWeight")
        assert int(weight) >= 700
    finally:
        page.context.set_offline(False)
    assert attempted == [] and violations == []
    page.set_viewport_size({"width": 1000, "height": 1500})
    page.screenshot(path=str(screenshots / "house-rule-lab.png"), full_page=False)
