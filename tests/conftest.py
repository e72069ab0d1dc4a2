"""Fixtures shared by every test folder."""

from __future__ import annotations

import pytest


def assert_clean_failure(result, code: int, text: str) -> None:
    """An expected failure: exit ``code``, one ``error:`` line naming ``text``, no traceback."""
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    err = result.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), result.stderr
    assert text in err[0], err[0]
    assert "Traceback" not in result.stdout + result.stderr


@pytest.fixture(name="random_game")
def random_game_fixture():
    """``random_game(seed, players=..., hands=..., variants=..., options=...)``: a game of random
    legal play (tests/support/random_games.py, the one copy of the suite)."""
    from random_games import random_game

    return random_game


@pytest.fixture(name="clean_failure")
def clean_failure_fixture():
    """``clean_failure(result, code, text)``: a CLI result is one ``error:`` line, exit ``code``, no traceback."""
    return assert_clean_failure


def _snapshot(value):
    """A comparable copy of a hook argument (the state, the ruleset's options, plain data)."""
    import copy

    from types import MappingProxyType

    from tonk.core.ruleset import Ruleset, RulesetDraft
    from tonk.core.state import State

    if isinstance(value, State):
        return value.snapshot()
    if isinstance(value, (Ruleset, RulesetDraft)):
        return copy.deepcopy(dict(value.options))
    if isinstance(value, MappingProxyType):
        return copy.deepcopy(dict(value))
    if isinstance(value, (list, dict, set, tuple)):
        return copy.deepcopy(value)
    return None


@pytest.fixture(name="pure_hooks")
def pure_hooks_fixture():
    """``pure_hooks(ruleset)``: watch every hook call of a ruleset built with ``trace=True``
    (pluggy's ``add_hookcall_monitoring``); returns the list of hooks that changed the state,
    the options or another argument they were given."""
    undo = []
    changed: list[str] = []

    def watch(ruleset):
        assert ruleset.trace, "build the ruleset with trace=True: compiled calls bypass monitoring"
        before: list[dict] = []

        def on_before(hook_name, hook_impls, kwargs):
            before.append({k: _snapshot(v) for k, v in kwargs.items()})

        def on_after(outcome, hook_name, hook_impls, kwargs):
            snap = before.pop()
            for k, v in kwargs.items():
                if snap[k] is not None and _snapshot(v) != snap[k]:
                    changed.append(f"{hook_name} changed its argument {k}")

        undo.append(ruleset.pm.add_hookcall_monitoring(on_before, on_after))
        return changed

    yield watch
    for u in undo:
        u()
