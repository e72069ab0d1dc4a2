"""The house-rule lab: intervals and verdicts, the HTML report equal to the JSON report."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from typer.testing import CliRunner

from tonk.application.lab_report import difference_text, figure_text, lab_html, sentence
from tonk.application.simulate import SimConfig, compare_rulesets
from tonk.application.stats import difference, mean_ci, share_ci, verdict
from tonk.cli.app import app


def test_verdict_words_follow_the_standard_errors():
    assert verdict(0.0, 0.0) == "no difference"
    assert verdict(0.02, 0.0) == "certain"
    assert verdict(0.02, 0.02) == "within noise"
    assert verdict(-0.05, 0.02) == "likely real"
    assert verdict(0.07, 0.02) == "certain"


def test_intervals_of_shares_and_means():
    s = share_ci(41, 100)
    assert s["mean"] == 0.41 and s["ci"][0] < 0.41 < s["ci"][1]
    none = share_ci(0, 100)  # none in 100 is not "certainly 0 %": Wilson's interval reaches 3.7 %
    assert none["ci"][0] == 0.0 and 0.036 < none["ci"][1] < 0.038 and none["se"] > 0
    assert share_ci(7, 7)["ci"][1] == 1.0 and share_ci(7, 7)["ci"][0] < 0.7
    m = mean_ci(total=10.0, total_sq=30.0, n=10)  # values with mean 1 and variance (30 - 10) / 9
    assert m["mean"] == 1.0 and abs(m["se"] - ((20 / 9) / 10) ** 0.5) < 1e-12
    d = difference(share_ci(21, 1000), share_ci(0, 1000))
    assert d["verdict"] == "certain" and d["diff"] == pytest.approx(-0.021)
    # 7 knocks of 7 won is not "certainly 100 %" beside 459 of 500: within noise
    assert difference(share_ci(459, 500), share_ci(7, 7))["verdict"] == "within noise"
    assert difference(share_ci(0, 1000), share_ci(0, 1000))["verdict"] == "no difference"
    assert difference(share_ci(0, 10), share_ci(1, 10))["verdict"] == "within noise"
    row = {"metric": "ending initial_tonk (share)", "kind": "share", "a": 0.021, "b": 0.0, **d}
    assert sentence(row) == "ending initial_tonk (share): 2.1% → 0.0%, certain"
    assert difference_text(row).startswith("-2.1 pt (")


class _Rows(HTMLParser):
    """The report table's rows: each ``<tr data-metric>``'s attributes and cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[dict, list[str]]] = []
        self._cells: list[str] | None = None
        self.scripts = 0
        self.svgs = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "svg":
            self.svgs += 1
        if tag == "tr" and "data-metric" in a:
            self._cells = []
            self.rows.append((a, self._cells))
        elif tag == "td" and self._cells is not None:
            self._cells.append("")

    def handle_endtag(self, tag):
        if tag == "tr":
            self._cells = None

    def handle_data(self, data):
        if self._cells:
            self._cells[-1] += data


def test_the_html_report_holds_the_json_reports_numbers(tmp_path):
    report = tmp_path / "lab.html"
    # 1,000 hands: about 11 initial tonks against none (at 300, 4 against none is within noise)
    args = ["simulate", "-n", "1000", "-p", "2", "-b", "greedy", "-b", "random", "-s", "4", "--no-store", "--compare", "no-initial-tonk", "--report", str(report), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    page = report.read_text(encoding="utf-8")
    parser = _Rows()
    parser.feed(page)
    assert parser.scripts == 0 and parser.svgs >= 4
    assert [a["data-metric"] for a, _ in parser.rows] == [r["metric"] for r in data["rows"]]
    for (attrs, cells), row in zip(parser.rows, data["rows"]):
        assert float(attrs["data-a"]) == row["a"] and float(attrs["data-b"]) == row["b"]
        assert float(attrs["data-diff"]) == row["diff"] and float(attrs["data-se"]) == row["se"]
        assert [float(attrs["data-ci-lo"]), float(attrs["data-ci-hi"])] == row["ci"]
        assert cells == [row["metric"], figure_text(row, row["a"]), figure_text(row, row["b"]), difference_text(row), row["verdict"]]
    tonks = next(r for r in data["rows"] if r["metric"] == "ending initial_tonk (share)")
    assert tonks["b"] == 0.0 and tonks["verdict"] in ("certain", "likely real")
    assert sentence(tonks) in page


def test_the_terminal_comparison_shows_intervals_and_verdicts():
    args = ["simulate", "-n", "200", "-p", "2", "-s", "4", "--no-store", "--compare", "no-initial-tonk"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stderr
    assert "95% interval" in result.stdout and "verdict" in result.stdout
    assert "within noise" in result.stdout


def test_text_in_the_report_is_data_never_markup():
    config = SimConfig(hands=40, players=2, bots=("greedy", "random"), seed=1)
    other = SimConfig(hands=40, players=2, bots=("greedy", "random"), seed=1, variants=("no-initial-tonk",))
    result = compare_rulesets(config, other)
    result["rows"][0]["metric"] = '<script>alert(1)</script>"'
    page = lab_html(result, "<b>classic</b>", "x\" onload=\"y")
    assert "<script>" not in page and "<b>classic</b>" not in page
    assert "&lt;script&gt;" in page and "&lt;b&gt;classic&lt;/b&gt;" in page
    assert 'onload="y' not in page


def test_report_needs_compare_and_a_writable_path(tmp_path):
    runner = CliRunner()
    r = runner.invoke(app, ["simulate", "-n", "10", "--no-store", "--report", str(tmp_path / "x.html")])
    assert r.exit_code == 2 and "--compare" in r.stderr and "Traceback" not in r.stderr
    r = runner.invoke(app, ["simulate", "-n", "10", "--no-store", "--compare", "no-initial-tonk", "--report", str(tmp_path / "no" / "x.html")])
    assert r.exit_code == 2 and "cannot write" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("where", ["a-directory", "no/x.html"])
def test_a_report_path_that_cannot_be_written_stores_nothing(tmp_path, where):
    """The path is checked before the run: a bad --report changes nothing in the store."""
    (tmp_path / "a-directory").mkdir()
    db = tmp_path / "s.db"
    r = CliRunner().invoke(app, ["simulate", "-n", "4", "--hands-per-game", "2", "--db", str(db), "--compare", "no-initial-tonk", "--report", str(tmp_path / where)])
    assert r.exit_code == 2 and "--report: cannot write" in r.stderr and "nothing was simulated" in r.stderr, r.stderr
    assert not db.exists()


def test_a_report_that_fails_part_way_leaves_no_half_page(tmp_path):
    """A real write failure (the file size limit, RLIMIT_FSIZE, which binds root too, as a
    full disk would) part way through the page: an error, no half-written page, and a
    report that was there before is as it was (it was cut to the limit)."""
    import resource
    import signal
    import subprocess
    import sys
    from pathlib import Path

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (4000, 4000))

    (tmp_path / "old.html").write_text("the last report\n")
    tonk = Path(sys.executable).parent / "tonk"
    for name in ("new.html", "old.html"):
        r = subprocess.run(
            [str(tonk), "simulate", "-n", "6", "-p", "2", "--no-store", "--compare", "no-initial-tonk", "--report", str(tmp_path / name)],
            capture_output=True, text=True, preexec_fn=limit, timeout=120,
        )
        assert r.returncode == 2 and r.stderr.startswith(f"error: --report: cannot write {tmp_path / name}: "), r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.html"]
    assert (tmp_path / "old.html").read_text() == "the last report\n"


def test_a_report_to_a_link_writes_the_links_file(tmp_path):
    (tmp_path / "reports").mkdir()
    (tmp_path / "latest.html").symlink_to(tmp_path / "reports" / "lab.html")
    r = CliRunner().invoke(app, ["simulate", "-n", "4", "-p", "2", "--no-store", "--compare", "no-initial-tonk", "--report", str(tmp_path / "latest.html")])
    assert r.exit_code == 0, r.stderr
    assert (tmp_path / "latest.html").is_symlink()
    assert (tmp_path / "reports" / "lab.html").read_text().startswith("<!DOCTYPE html>")


def test_the_report_is_said_written_to_the_path_as_named(tmp_path):
    # the line is printed as text, not markup: a bracket in the name is not escaped ('lab\\[b].html')
    path = tmp_path / "lab[b].html"
    r = CliRunner().invoke(app, ["simulate", "-n", "4", "-p", "2", "--no-store", "--compare", "no-initial-tonk", "--report", str(path)])
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines() == [f"wrote the report to {path}"]
    assert path.read_text().startswith("<!DOCTYPE html>")
