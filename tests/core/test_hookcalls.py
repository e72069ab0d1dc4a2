"""A ruleset's compiled hook calls (tonk.core.hookcalls) answer exactly what pluggy's hook
caller answers: the same implementations, in the same order, with the same semantics."""

from __future__ import annotations

from types import SimpleNamespace

import pluggy
import pytest

from tonk.core.hookcalls import HookCalls
from tonk.core.hookspecs import HOOK_NAMES, TonkHooks
from tonk.core.plugin import PROJECT, hookimpl


def _pm(*plugins: object) -> pluggy.PluginManager:
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(TonkHooks)
    for i, p in enumerate(plugins):
        pm.register(p, name=f"p{i}")
    return pm


def _plugin(**hooks: object) -> SimpleNamespace:
    return SimpleNamespace(**{name: hookimpl(fn) for name, fn in hooks.items()})


def test_a_first_answer_hook_takes_the_last_registered_answer_that_is_not_none():
    base = _plugin(tonk_knock_outcome=lambda knocker, totals, ruleset: "knocker_won")
    silent = _plugin(tonk_knock_outcome=lambda ruleset: None)  # takes some of the arguments
    caught = _plugin(tonk_knock_outcome=lambda totals, knocker: "knocker_caught" if totals[knocker] > 3 else None)
    pm = _pm(base, caught, silent)
    calls = HookCalls(pm)
    for totals in ({"a": 5}, {"a": 1}):
        direct = calls.tonk_knock_outcome("a", totals, None)  # type: ignore[attr-defined]
        assert direct == pm.hook.tonk_knock_outcome(knocker="a", totals=totals, ruleset=None)
    assert calls.tonk_knock_outcome("a", {"a": 5}, None) == "knocker_caught"  # type: ignore[attr-defined]
    assert calls.tonk_knock_outcome("a", {"a": 1}, None) == "knocker_won"  # type: ignore[attr-defined]


def test_one_implementation_taking_every_argument_is_called_with_nothing_between():
    def outcome(knocker, totals, ruleset):
        return "knocker_won"

    calls = HookCalls(_pm(_plugin(tonk_knock_outcome=outcome)))
    assert calls.tonk_knock_outcome is outcome  # type: ignore[attr-defined]


def test_a_collected_hook_gathers_every_answer_but_none_last_registered_first():
    pm = _pm(_plugin(tonk_check_options=lambda options: "first"), _plugin(tonk_check_options=lambda variants: None), _plugin(tonk_check_options=lambda options, variants: "third"))
    calls = HookCalls(pm)
    assert calls.collected["tonk_check_options"]({}, []) == ["third", "first"] == pm.hook.tonk_check_options(options={}, variants=[])
    assert not hasattr(calls, "tonk_check_options")  # its spec types one answer: no attribute of its name


@pytest.mark.parametrize("answer", ["refused", None])
def test_a_collected_hook_of_one_implementation_answers_a_list_as_pluggy_does(answer):
    """(tonk_veto under one house rule: asked of every candidate action, called directly)"""
    pm = _pm(_plugin(tonk_veto=lambda command: answer if command == "knock" else None))
    calls = HookCalls(pm)
    for command in ("knock", "draw"):
        direct = calls.collected["tonk_veto"](None, command, None)
        assert direct == pm.hook.tonk_veto(state=None, command=command, ruleset=None)
        assert direct == ([answer] if command == "knock" and answer is not None else [])


def test_a_wrapper_or_a_trace_goes_through_pluggy_so_its_monitoring_sees_every_call():
    def deck(ruleset):
        return ["AS"]

    @hookimpl(wrapper=True)
    def wrapped(ruleset):
        cards = yield
        return cards + ["KS"]

    wrapper = SimpleNamespace(tonk_deck=wrapped)
    for pm, trace in ((_pm(_plugin(tonk_deck=deck), wrapper), False), (_pm(_plugin(tonk_deck=deck)), True)):
        seen: list[str] = []
        undo = pm.add_hookcall_monitoring(lambda name, impls, kwargs: seen.append(name), lambda *args: None)
        answer = HookCalls(pm, trace=trace).tonk_deck(None)  # type: ignore[attr-defined]
        undo()
        assert answer == pm.hook.tonk_deck(ruleset=None)
        assert seen == ["tonk_deck"]


def test_every_hook_has_a_call():
    calls = HookCalls(_pm())
    assert all(callable(getattr(calls, name, None) or calls.collected[name]) for name in HOOK_NAMES)
    assert set(calls.collected) == {"tonk_wild_cards", "tonk_veto", "tonk_check_options"}
    assert len(HOOK_NAMES) == len([n for n in vars(TonkHooks) if n.startswith("tonk_")]) >= 17


def _taking(seen: list[tuple]) -> dict[str, object]:
    """Implementations of tonk_knock_outcome taking none, one, two (out of order) and all
    three arguments (in another order), each recording what it was given."""
    return {
        "none": lambda: seen.append(()) or "knocker_won",
        "knocker": lambda knocker: seen.append((knocker,)) or "knocker_won",
        "totals knocker": lambda totals, knocker: seen.append((totals, knocker)) or "knocker_won",
        "ruleset knocker totals": lambda ruleset, knocker, totals: seen.append((ruleset, knocker, totals)) or "knocker_won",
    }


@pytest.mark.parametrize("taken", ["none", "knocker", "totals knocker", "ruleset knocker totals"])
def test_one_implementation_taking_some_arguments_gets_those(taken):
    seen: list[tuple] = []
    args = {"none": (), "knocker": ("a",), "totals knocker": ({"a": 1}, "a"), "ruleset knocker totals": ("rs", "a", {"a": 1})}
    calls = HookCalls(_pm(_plugin(tonk_knock_outcome=_taking(seen)[taken])))
    assert calls.tonk_knock_outcome("a", {"a": 1}, "rs") == "knocker_won"  # type: ignore[attr-defined]
    assert seen == [args[taken]]
