"""tonk.core loads its modules on first use; the names it exports stay importable from it."""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys

import pytest

import tonk.core


def _modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_exported_names_are_the_submodules_objects():
    from tonk.core import Game, IllegalAction, Ruleset, decide, evolve, legal_actions  # noqa: F401

    import tonk.core.turn as turn

    assert decide is turn.decide and callable(decide)
    for name, module in tonk.core._EXPORTS.items():
        assert getattr(tonk.core, name) is getattr(importlib.import_module(f"tonk.core.{module}"), name), name
    assert sorted(tonk.core.__all__) == sorted(tonk.core._EXPORTS)
    assert set(tonk.core.__all__) <= set(dir(tonk.core))


def test_importing_a_submodule_does_not_rebind_an_exported_name():
    import tonk.core.turn  # noqa: F401

    assert callable(tonk.core.decide)
    # no exported name is also a submodule's name
    assert not any(importlib.util.find_spec(f"tonk.core.{name}") for name in tonk.core.__all__ if name.islower())


def test_star_import_gives_every_exported_name():
    ns: dict = {}
    exec("from tonk.core import *", ns)
    assert {n for n in ns if not n.startswith("__")} == set(tonk.core.__all__)
    assert ns["decide"] is tonk.core.decide


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        tonk.core.no_such_name  # noqa: B018
    with pytest.raises(ImportError):
        exec("from tonk.core import no_such_name", {})


def test_importing_the_package_loads_no_engine_module():
    loaded = _modules_after("import tonk.core")
    assert not {m for m in loaded if m.startswith("tonk.core.")}


def test_from_import_in_a_fresh_process():
    loaded = _modules_after(
        "from tonk.core import Game, decide\nimport tonk.core.turn\nassert decide is tonk.core.turn.decide is tonk.core.decide\n"
        "from tonk.variants import load_ruleset; g = Game.new(['a', 'b'], seed=1, ruleset=load_ruleset()); g.deal(seed=2); assert g.in_hand"
    )
    assert "tonk.core.turn" in loaded


def test_the_cli_app_starts_without_the_engine():
    """``tonk --help`` needs the command modules, not the rules engine, the variants or the store."""
    loaded = _modules_after("import tonk.cli.app")
    engine = {m for m in loaded if m.startswith(("tonk.core.", "tonk.variants", "tonk.storage"))}
    assert engine <= {"tonk.core.errors", "tonk.core.cards"}, sorted(engine)
    assert not {"pluggy", "msgspec", "sqlite3", "sqlite_utils"} & loaded
