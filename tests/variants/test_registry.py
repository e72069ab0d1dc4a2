"""Discovery, deterministic composition, conflicts, required options and pinned rulesets."""

from __future__ import annotations

import importlib
import re
import tomllib
from importlib import metadata
from types import SimpleNamespace

import msgspec
import pytest
from variant_helpers import CATALOGUE, ROOT

from tonk.variants import load_ruleset
from tonk.core import Game, RulesetError
from tonk.application.audit import audit_pinned
from tonk.core.events import PluginPin, RulesetSpec
from tonk.variants import OptionSpec, VariantInfo, hookimpl
from tonk.variants.registry import ENTRY_POINT_GROUP, Registry, builtin_modules, default_registry

ALIASES = {"mandatory-ace-laydown": "mandatory-laydown", "double-for-new-spread": "double-requires-new-spread"}


def test_every_catalogue_variant_is_installed_through_its_entry_point():
    reg = default_registry()
    assert not reg.problems
    for name in CATALOGUE:
        r = reg.get(name)
        assert r.info.name == name and r.info.rule == f"V:{name}"
        assert r.source == "entry-point" and r.dist == "tonk" and r.version == metadata.version("tonk")
        assert r.plugin.__name__ == "tonk.variants." + name.replace("-", "_")
    for alias, name in ALIASES.items():
        assert reg.canonical(alias) == name


def test_pyproject_entry_points_declare_every_variant_module_of_the_package():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"][ENTRY_POINT_GROUP]
    assert sorted(declared.values()) == sorted(builtin_modules())
    assert "tonk.variants.classic" in builtin_modules() and "tonk.variants.registry" not in builtin_modules()
    for name, module in declared.items():
        assert importlib.import_module(module).VARIANT.name == name
    installed = {ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    assert set(declared) <= installed  # the editable install is up to date


def test_every_variant_documents_its_decisions():
    for name in CATALOGUE:
        info = default_registry().get(name).info
        assert info.summary and len(info.summary) < 130
        assert "Decisions" in info.doc, f"{name} does not document the decisions it made"
        assert f"``{name}``" in info.doc


def test_order_is_the_order_named_and_is_recorded():
    rs = load_ruleset(["one-hit-per-turn", "hit-penalty", "mandatory-ace-laydown"])
    assert rs.variants == ("one-hit-per-turn", "hit-penalty", "mandatory-laydown")
    assert [r.info.name for r in rs.registered] == ["classic", *rs.variants]
    assert rs.spec.variants == rs.variants
    assert list(rs.spec.plugins) == ["classic", *rs.variants]
    # pluggy asks the last named first
    assert [i.plugin_name for i in reversed(rs.hook.tonk_veto.get_hookimpls())] == ["mandatory-laydown", "hit-penalty", "one-hit-per-turn"]
    g = Game.new(["a", "b"], ruleset=rs, dealer="b")
    assert g.events[0].ruleset.variants == rs.variants


def test_a_variant_named_twice_is_refused():
    with pytest.raises(RulesetError, match="named twice"):
        load_ruleset(["mandatory-laydown", "mandatory-ace-laydown"])


# --- conflicts ------------------------------------------------------------------------------------


def test_declared_conflicts_are_refused_unless_acknowledged():
    with pytest.raises(RulesetError, match=r"variants no-initial-tonk and initial-tonk-50-only contradict each other \(declared conflicting\).*allow_conflicts: true.*\(initial-tonk-50-only\) win"):
        load_ruleset(["no-initial-tonk", "initial-tonk-50-only"])
    with pytest.raises(RulesetError, match="low-initial-tonk and no-initial-tonk contradict"):
        load_ruleset(["low-initial-tonk", "no-initial-tonk"])
    later_wins = load_ruleset(["low-initial-tonk", "no-initial-tonk"], {"allow_conflicts": True})
    assert later_wins.initial_tonks({"a": [], "b": []}, {"a": 5, "b": 50}) == []
    other_order = load_ruleset(["no-initial-tonk", "low-initial-tonk"], {"allow_conflicts": True})
    assert other_order.initial_tonks({"a": [], "b": []}, {"a": 5, "b": 50}) == ["a", "b"]
    assert later_wins.spec.options["allow_conflicts"] is True  # the acknowledgement is pinned


def _registry(*plugins):
    reg = default_registry().copy()
    for p in plugins:
        reg.add(p, "test-plugins", "1.0", "test")
    return reg


def test_two_presets_of_one_option_contradict():
    a = SimpleNamespace(VARIANT=VariantInfo("scheme-a", "a", options=(OptionSpec("caught_scheme", "str", "double_flat", choices=("double_flat",)),)))
    reg = _registry(a)
    with pytest.raises(RulesetError, match="caught-scheme and scheme-a contradict each other \\(both set the option caught_scheme differently\\)"):
        load_ruleset(["caught-scheme", "scheme-a"], {"caught_scheme": "double_flat"}, registry=reg)
    # jokers-wild and deuces-wild declare min_natural_cards identically: no conflict
    load_ruleset(["jokers-wild", "deuces-wild"], {"joker_value": 0})


def test_two_answers_to_an_option_only_hook_contradict():
    sevens = SimpleNamespace(VARIANT=VariantInfo("sevens", "deal 7"), tonk_deal_size=hookimpl(lambda num_players, ruleset: 7))
    reg = _registry(sevens)
    with pytest.raises(RulesetError, match=r"deal-size-by-player-count and sevens contradict each other \(they decide the deal size for 2 players differently: 9 against 7\)"):
        load_ruleset(["deal-size-by-player-count", "sevens"], registry=reg)
    assert load_ruleset(["deal-size-by-player-count", "sevens"], {"allow_conflicts": True}, registry=reg).deal_size(3) == 7
    assert load_ruleset(["sevens", "deal-size-by-player-count"], {"allow_conflicts": True}, registry=reg).deal_size(3) == 7
    assert load_ruleset(["sevens", "deal-size-by-player-count"], {"allow_conflicts": True}, registry=reg).deal_size(2) == 9
    # different cards valued by different variants are no contradiction
    load_ruleset(["face-cards-11-12-13", "deuces-wild", "jokers-wild"], {"joker_value": 3})


def _third_joker(ruleset):
    deck = yield
    return deck + ["X3"]


def test_a_deck_with_a_card_tonk_does_not_know_is_refused():
    """A variant's deck must hold cards only (the fair deal, the spreads and the points know
    no other): a third joker is refused when the ruleset is built, before any game starts."""
    odd = SimpleNamespace(VARIANT=VariantInfo("third-joker", "x"), tonk_deck=hookimpl(wrapper=True)(_third_joker))
    with pytest.raises(RulesetError, match=r"the deck built by the variants holds X3, which is no card \(a rank A 2-10 J Q K and a suit S H D C, or a joker X1 X2\)"):
        load_ruleset(["third-joker"], registry=_registry(odd))


def test_required_options_must_be_given():
    for name, option in (("jokers-wild", "joker_value"), ("caught-scheme", "caught_scheme"), ("cards-per-player", "cards_per_player")):
        with pytest.raises(RulesetError, match=f"variant {name} needs the option {option} to be given"):
            load_ruleset([name])


def test_unknown_variant_and_option_are_clear():
    with pytest.raises(RulesetError, match="unknown variant 'jokers-wilde'; installed: .*jokers-wild"):
        load_ruleset(["jokers-wilde"])
    with pytest.raises(RulesetError, match="unknown option 'turns_per_hits'"):
        load_ruleset(["hit-penalty"], {"turns_per_hits": 2})


# --- pinned rulesets --------------------------------------------------------------------------------


def _game(variants, options=None) -> Game:
    g = Game.new(["a", "b", "c"], dealer="c", seed=5, ruleset=load_ruleset(variants, options))
    g.deal(seed=9)
    return g


def test_a_pinned_ruleset_is_rebuilt_with_its_variants_and_options():
    g = _game(["hit-penalty", "mandatory-laydown"], {"turns_per_hit": 2})
    spec = g.events[0].ruleset
    assert spec.plugins["hit-penalty"] == PluginPin("tonk", metadata.version("tonk"))
    rs = load_ruleset(spec)
    assert rs.variants == ("hit-penalty", "mandatory-laydown") and rs.options == spec.options
    assert audit_pinned(g.events).clean


def test_a_game_pinned_to_a_missing_variant_is_refused_clearly():
    g = _game(["hit-penalty"])
    spec = g.events[0].ruleset
    missing = RulesetSpec(variants=("sevens-wild",), options=dict(spec.options), plugins={**spec.plugins, "sevens-wild": PluginPin("tonk-sevens", "2.1")})
    with pytest.raises(RulesetError, match=r"recorded with variant 'sevens-wild' \(recorded from tonk-sevens 2\.1\), which is not installed"):
        load_ruleset(missing)
    events = [msgspec.structs.replace(g.events[0], ruleset=missing)] + g.events[1:]
    with pytest.raises(RulesetError, match="sevens-wild"):
        audit_pinned(events)


def test_a_game_pinned_to_another_version_is_refused_clearly():
    g = _game(["hit-penalty"])
    spec = g.events[0].ruleset
    old = RulesetSpec(variants=spec.variants, options=dict(spec.options), plugins={**spec.plugins, "hit-penalty": PluginPin("tonk", "0.0.1")})
    with pytest.raises(RulesetError, match=rf"variant 'hit-penalty' was recorded as tonk 0\.0\.1 but tonk {metadata.version('tonk')} is installed"):
        load_ruleset(old)
    assert load_ruleset(old, strict_versions=False).variants == ("hit-penalty",)


# --- variant files ---------------------------------------------------------------------------------


def test_a_variant_file_is_loaded_into_a_copy(tmp_path):
    f = tmp_path / "sevens_low.py"
    f.write_text(
        "from tonk.variants import VariantInfo, hookimpl\n"
        "__version__ = '0.3'\n"
        "VARIANT = VariantInfo(name='sevens-low', summary='sevens count 0')\n"
        "@hookimpl\n"
        "def tonk_card_points(card, ruleset):\n"
        "    return 0 if card.startswith('7') else None\n"
    )
    base = default_registry()
    reg = base.with_files([f])
    assert "sevens-low" in reg and "sevens-low" not in base
    r = reg.get("sevens-low")
    assert (r.dist, r.version, r.source) == ("file", "0.3", f"file:{f}")
    rs = load_ruleset(["sevens-low"], registry=reg)
    assert rs.hand_total(["7S", "7H", "AS"]) == 1
    assert rs.spec.plugins["sevens-low"] == PluginPin("file", "0.3")


@pytest.mark.parametrize(
    "text, message",
    [
        (None, "does not exist"),
        ("raise ValueError('boom')\n", "failed to import: ValueError: boom"),
        ("X = 1\n", "has no VARIANT = VariantInfo"),
        ("from tonk.variants import VariantInfo\nVARIANT = VariantInfo(name='hit-penalty', summary='x')\n", "two plugins claim the variant name 'hit-penalty'"),
        ("from tonk.variants import VariantInfo\nVARIANT = VariantInfo(name='x-laydown', summary='x', aliases=('mandatory-ace-laydown',))\n", "alias 'mandatory-ace-laydown', which already names variant 'mandatory-laydown'"),
    ],
)
def test_a_bad_variant_file_is_a_clear_error(tmp_path, text, message):
    f = tmp_path / "house.py"
    if text is not None:
        f.write_text(text)
    with pytest.raises(RulesetError, match=message):
        Registry().copy().with_files([f]) if text is None else default_registry().with_files([f])


@pytest.mark.parametrize(
    "name, message",
    [("house", "is a directory, not a Python file"), ("house.json", "cannot be imported: a variant file is Python source named *.py")],
)
def test_a_variant_file_that_is_a_directory_or_not_python_says_so(tmp_path, name, message):
    f = tmp_path / name
    if name == "house":
        f.mkdir()
    else:
        f.write_text('{"not": "python"}\n')
    with pytest.raises(RulesetError, match=re.escape(f"variant file {str(f)!r} {message}")):
        default_registry().with_files([f])


def test_a_hook_name_that_does_not_exist_is_refused(tmp_path):
    bad = SimpleNamespace(VARIANT=VariantInfo("typo", "t"), tonk_vetoo=hookimpl(lambda state, command, ruleset: None))
    with pytest.raises(RulesetError, match="implements a hook that does not exist"):
        load_ruleset(["typo"], registry=_registry(bad))
