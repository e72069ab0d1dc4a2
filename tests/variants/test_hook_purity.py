"""Hooks are pure: no hook call of any installed variant changes the state, the options or
any other argument it was given (checked on random play through pluggy's call monitoring)."""

from __future__ import annotations


import pytest
from sim_helpers import required_options

from tonk.core import Game
from tonk.variants import load_ruleset
from tonk.variants.registry import default_registry


def _names():
    return [n for n in default_registry().names()]


@pytest.mark.parametrize("name", _names())
def test_no_hook_call_changes_what_it_is_given(name, pure_hooks, random_game):
    variants = () if name == "classic" else (name,)
    options = {} if name == "classic" else required_options(name)
    ruleset = load_ruleset(variants, {"max_turns_per_hand": 30, **options}, trace=True)
    changed = pure_hooks(ruleset)
    game = random_game(7, hands=3, variants=variants, options=options, max_turns=30, ruleset=ruleset)
    assert game.state.hand_no == 3
    assert changed == []


def test_the_monitor_sees_a_hook_that_changes_its_argument(pure_hooks):
    """The fixture itself: a plugin whose hook mutates the hands it is given is caught."""
    from tonk.core.plugin import VariantInfo, hookimpl
    from tonk.variants.registry import Registry

    class Meddler:
        VARIANT = VariantInfo(name="meddler", summary="changes what it is given")

        @hookimpl
        def tonk_initial_tonks(self, hands, totals, ruleset):
            totals.clear()
            return None

    reg = default_registry().copy()
    # as if the project shipped it: a plugin it did not ship is stopped by the engine's own
    # check before the monitor sees the call (tests/variants/test_house_rule_mistakes.py)
    reg.add(Meddler(), "tonk", "0", "test")
    assert isinstance(reg, Registry)
    ruleset = load_ruleset(["meddler"], registry=reg, trace=True)
    changed = pure_hooks(ruleset)
    Game.new(["a", "b", "c"], ruleset=ruleset, seed=1).deal()
    assert changed and "tonk_initial_tonks changed its argument totals" in changed


def test_hooks_get_read_only_options_and_never_a_half_built_ruleset():
    from tonk.core.plugin import VariantInfo, hookimpl
    from tonk.core.ruleset import RulesetDraft

    seen = {}

    class Curious:
        VARIANT = VariantInfo(name="curious", summary="looks at what it is given")

        @hookimpl
        def tonk_upcard(self, ruleset):
            seen["upcard"] = ruleset
            try:
                ruleset.options["base_stake"] = 9
            except TypeError:
                seen["refused"] = True
            return None

    reg = default_registry().copy()
    reg.add(Curious(), "test", "0", "test")
    ruleset = load_ruleset(["curious"], registry=reg)
    assert type(seen["upcard"]) is RulesetDraft and seen["upcard"].deck == ruleset.deck
    assert seen["refused"] and ruleset.options["base_stake"] == 1
    with pytest.raises(TypeError):
        ruleset.options["base_stake"] = 2  # type: ignore[index]
