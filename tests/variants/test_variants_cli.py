"""``tonk variants`` and ``tonk adjudicate --variant-file``."""

from __future__ import annotations

import json
from importlib import metadata

from variant_helpers import CATALOGUE
from typer.testing import CliRunner
from variant_helpers import ROOT

from tonk.variants import load_ruleset
from tonk.cli.app import app

EXAMPLE = ROOT / "examples" / "tonk-variant-example"
EXAMPLE_FILE = EXAMPLE / "tonk_variant_example" / "__init__.py"


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def test_variants_lists_every_catalogue_variant():
    res = run("variants")
    assert res.exit_code == 0, res.output
    for name in ["classic", *CATALOGUE]:
        assert name in res.stdout
    assert "alias mandatory-ace-laydown" in res.stdout
    assert f"tonk {metadata.version('tonk')}" in res.stdout
    assert "hooks: tonk_veto" in res.stdout
    assert f"{len(CATALOGUE) + 1} variant(s)" in res.stdout


def test_variants_json_has_summary_options_hooks_and_version():
    res = run("variants", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    by_name = {v["name"]: v for v in data["variants"]}
    assert set(CATALOGUE) <= set(by_name) and data["problems"] == []
    hp = by_name["hit-penalty"]
    assert hp["version"] == metadata.version("tonk") and hp["dist"] == "tonk" and hp["rule"] == "V:hit-penalty"
    assert hp["hooks"] == ["tonk_veto"]
    assert [(o["name"], o["type"], o["default"]) for o in hp["options"]] == [("turns_per_hit", "int", 1), ("stacking", "str", "additive"), ("count_own_hits", "bool", False)]
    jw = by_name["jokers-wild"]
    assert {o["name"]: o["required"] for o in jw["options"]}["joker_value"] is True
    assert "tonk_wild_cards" in jw["hooks"] and "tonk_deck" in jw["hooks"]
    assert by_name["caught-scheme"]["hooks"] == []
    assert by_name["no-initial-tonk"]["conflicts"] == ["initial-tonk-50-only", "initial-tonk-totals", "low-initial-tonk"]
    for v in data["variants"]:
        assert v["summary"] and "doc" not in v


def test_variants_name_shows_the_documentation():
    res = run("variants", "double-for-new-spread")
    assert res.exit_code == 0
    assert "double-requires-new-spread" in res.stdout and "Decisions" in res.stdout and "going_out_turn" in res.stdout
    data = json.loads(run("variants", "mandatory-ace-laydown", "--json").stdout)
    assert [v["name"] for v in data["variants"]] == ["mandatory-laydown"] and "B-24" in data["variants"][0]["doc"]


def test_variants_unknown_name_is_one_error_line():
    res = run("variants", "jokers-wilde")
    assert res.exit_code == 2
    assert res.stderr.startswith("error: unknown variant 'jokers-wilde'; installed: ")
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.output


def test_variants_with_a_variant_file():
    data = json.loads(run("variants", "--json", "--variant-file", str(EXAMPLE_FILE)).stdout)
    mine = next(v for v in data["variants"] if v["name"] == "first-round-no-knock")
    assert mine["source"] == f"file:{EXAMPLE_FILE}" and mine["version"] == "0.1.0" and mine["hooks"] == ["tonk_veto"]


def test_adjudicate_with_a_variant_file_checks_its_hand_records():
    cases = str(EXAMPLE / "cases.json")
    res = run("adjudicate", cases, "--check", "--variant-file", str(EXAMPLE_FILE))
    assert res.exit_code == 0, res.output
    assert "1 match expected, 0 differ" in res.stdout and "KNOCK_TOO_EARLY" in res.stdout
    skipped = run("adjudicate", cases, "--check")
    assert "skipped: variant 'first-round-no-knock' is not installed" in skipped.stdout


def test_adjudicate_with_a_missing_variant_file_is_one_error_line(tmp_path):
    res = run("adjudicate", str(EXAMPLE / "cases.json"), "--variant-file", str(tmp_path / "nope.py"))
    assert res.exit_code == 2
    assert res.stderr.strip() == f"error: variant file '{tmp_path / 'nope.py'}' does not exist"


def test_adjudicate_public_cases_check_passes(public_cases):
    from variant_helpers import public_cases_path

    res = run("adjudicate", str(public_cases_path()), "--check")
    assert res.exit_code == 0, res.stdout[-2000:]
    assert f"{len(public_cases)} adjudicated, 0 skipped, 0 malformed; {len(public_cases)} match expected, 0 differ" in res.stdout


def test_the_authoring_guide_covers_every_hook_and_quotes_the_example():
    guide = (ROOT / "docs" / "variant-authoring.md").read_text()
    from tonk.variants.registry import HOOK_NAMES

    missing = [h for h in HOOK_NAMES if f"`{h}(" not in guide]
    assert not missing, f"hooks missing from docs/variant-authoring.md: {missing}"
    code = EXAMPLE_FILE.read_text()
    body = code[code.index("from tonk.core.commands"):].strip()
    assert body in guide, "the worked example in the guide differs from examples/tonk-variant-example"


def test_audit_refuses_a_stored_game_pinned_to_a_variant_that_is_not_installed(tmp_path):
    from tonk.core import Game
    from tonk.storage import EventStore
    from tonk.variants.registry import default_registry

    house = tmp_path / "sevens_low.py"
    house.write_text(
        "from tonk.variants import VariantInfo, hookimpl\n__version__ = '0.3'\n"
        "VARIANT = VariantInfo(name='sevens-low', summary='sevens count 0')\n"
        "@hookimpl\ndef tonk_card_points(card, ruleset):\n    return 0 if card.startswith('7') else None\n"
    )
    rs = load_ruleset(["sevens-low"], registry=default_registry().with_files([house]))
    game = Game.new(["a", "b", "c"], ruleset=rs, dealer="c", seed=1)
    game.deal(seed=3)
    game.act("knock")
    db = tmp_path / "games.db"
    with EventStore.open(db, create=True) as store:
        store.append(game.game_id, list(game.events), 0)
    res = run("--db", str(db), "audit", game.game_id, "--json")
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert "the game was recorded with variant 'sevens-low' (recorded from file 0.3), which is not installed" in res.output.replace("\n", " ")


def _guide_block(marker: str) -> str:
    """The guide's Python code block holding ``marker``, dedented."""
    import re
    import textwrap

    guide = (ROOT / "docs" / "variant-authoring.md").read_text()
    blocks = [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", guide, re.S)]
    found = [b for b in blocks if marker in b]
    assert len(found) == 1, f"the guide has {len(found)} Python blocks holding {marker!r}"
    return found[0]


def test_the_guides_deck_wrapper_runs_as_written(tmp_path):
    from tonk.core import Game
    from tonk.variants.registry import default_registry

    house = tmp_path / "my_rule.py"
    house.write_text("from tonk.variants import VariantInfo, hookimpl\nVARIANT = VariantInfo(name='my-rule', summary='x')\n\n" + _guide_block("def tonk_deck"))
    rs = load_ruleset(["my-rule"], registry=default_registry().with_files([house]))
    game = Game.new(["a", "b", "c"], ruleset=rs, dealer="c", seed=1)
    game.deal(seed=2)
    game.act("knock")
    assert len(rs.deck) < 52 and not game.state.in_hand


def test_the_guides_library_call_runs_as_written(tmp_path, monkeypatch):
    """Section 5's pytest snippet, with the worked example as ``my_rule.py`` and ``case``
    the example's hand record."""
    (tmp_path / "my_rule.py").write_text(EXAMPLE_FILE.read_text())
    monkeypatch.chdir(tmp_path)
    case = json.loads((EXAMPLE / "cases.json").read_text())["cases"][0]
    exec(compile(_guide_block("adjudicate(case"), "variant-authoring.md", "exec"), {"case": case})
