"""Layers point one way (design.md, issue 11): a test of the import graph.

Every module of every layer is parsed (its AST, so imports inside functions and
under ``TYPE_CHECKING`` count too) and each import of one of our packages is
checked against what its layer may import:

* ``core`` imports nothing of ours;
* ``variants`` and ``storage`` import only ``core``;
* ``application`` imports ``core``, ``variants`` and ``storage``;
* ``cli`` and ``service`` import anything below them (not each other);
* ``bench`` imports no CLI module;
* the one exception: ``cli/serve_cmd.py`` (``tonk serve``) starts the service, so it
  may import ``service``, and only inside a function (lazily: ``tonk --help`` and the
  other commands never load the service or its extra); nothing else imports ``service``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: layer -> the layers of ours it may import (itself always allowed)
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "variants": {"core"},
    "storage": {"core"},
    "application": {"core", "variants", "storage"},
    "cli": {"core", "variants", "storage", "application"},
    "service": {"core", "variants", "storage", "application"},
    "bench": {"core", "variants", "storage", "application"},
}
LAYERS = set(ALLOWED)
#: module -> the upper layer it may import, lazily (inside a function) only
LAZY_EXCEPTIONS: dict[str, str] = {"cli/serve_cmd.py": "service"}


def imported_layers(path: Path, layer: str) -> list[tuple[int, str]]:
    """(line, layer) for every import of one of our layers in the module at ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = [layer] + list(path.relative_to(ROOT / layer).parts[:-1])  # the module's package under tonk
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "tonk" and len(parts) > 1:
                    out.append((node.lineno, parts[1]))
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the module's package
                base = package[: len(package) - (node.level - 1)]
            else:
                base = []
            mod = node.module.split(".") if node.module else []
            full = (base + mod) if node.level else mod
            if node.level == 0 and (not full or full[0] != "tonk"):
                continue
            if node.level == 0:
                full = full[1:]
            if full:
                out.append((node.lineno, full[0]))
            else:  # from .. import x / from tonk import x: each name is a package of ours
                out += [(node.lineno, a.name) for a in node.names]
    return [(line, t) for line, t in out if t in LAYERS]


def modules() -> list[tuple[str, Path]]:
    out = []
    for layer in sorted(LAYERS):
        folder = ROOT / layer
        if folder.is_dir():
            out += [(layer, p) for p in sorted(folder.rglob("*.py"))]
    return out


def test_every_layer_is_found():
    found = {layer for layer, _ in modules()}
    assert {"core", "variants", "storage", "application", "cli", "service", "bench"} <= found


def lazy_import_lines(path: Path) -> set[int]:
    """The lines of the imports made inside a function of the module at ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    functions = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return {n.lineno for f in functions for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}


@pytest.mark.parametrize("layer,path", modules(), ids=lambda v: str(v.relative_to(ROOT)) if isinstance(v, Path) else v)
def test_no_import_points_up(layer, path):
    rel = str(path.relative_to(ROOT))
    lazy_ok = LAZY_EXCEPTIONS.get(rel)
    lazy = lazy_import_lines(path) if lazy_ok else set()
    bad = [
        f"{rel}:{line} imports tonk.{target}"
        for line, target in imported_layers(path, layer)
        if target != layer and target not in ALLOWED[layer] and not (target == lazy_ok and line in lazy)
    ]
    assert not bad, "imports that point up: " + "; ".join(bad)


def test_tonk_serve_imports_the_service_and_nothing_else_does():
    """The exception is used where it is meant (``tonk serve`` starts the service) and only there."""
    importers = sorted(str(p.relative_to(ROOT)) for layer, p in modules() if layer != "service" and any(t == "service" for _, t in imported_layers(p, layer)))
    assert importers == ["cli/serve_cmd.py"]


def test_the_checker_sees_imports_inside_functions_and_relative_ones(tmp_path):
    """The checker itself: a lazy relative import of an upper layer is found."""
    (tmp_path / "core").mkdir()
    mod = tmp_path / "core" / "x.py"
    mod.write_text("def f():\n    from ..variants import classic\n    import tonk.storage.store\n    from .cards import Card\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = imported_layers(mod, "core")
    finally:
        ROOT = saved
    assert found == [(2, "variants"), (3, "storage"), (4, "core")]


def test_no_private_pluggy_name_is_used():
    """Only pluggy's public API (issue 11): no ``pluggy._*`` import or attribute anywhere."""
    bad = []
    files = modules() + [("tests", p) for p in (ROOT / "tests").rglob("*.py")]
    trees = [(path, ast.parse(path.read_text())) for _, path in files]
    # a name tonk defines itself (a method ``_result``, an attribute ``self._cache``) is tonk's
    own = {n.name for _, t in trees for n in ast.walk(t) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    own |= {n.attr for _, t in trees for n in ast.walk(t) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
    private = PLUGGY_PRIVATE - own
    for path, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pluggy._"):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            elif isinstance(node, ast.Import) and any(a.name.startswith("pluggy._") for a in node.names):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            elif isinstance(node, ast.Attribute) and node.attr in private:
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert not bad, bad


def _pluggy_private_names() -> frozenset[str]:
    """Every private attribute name of pluggy's classes (``_hookimpls``, ``_call_history``,
    ``_hookexec``, ...), read from the installed pluggy itself, so a new one is covered too."""
    import inspect

    import pluggy

    names: set[str] = {"_multicall", "_inner_hookexec", "_decide_shortcuts"}
    for _, cls in inspect.getmembers(pluggy, inspect.isclass):
        if not cls.__module__.startswith("pluggy"):
            continue
        names.update(n for n in vars(cls) if n.startswith("_") and not n.startswith("__"))
        names.update(n for n in getattr(cls, "__slots__", ()) if n.startswith("_") and not n.startswith("__"))
    return frozenset(names)


PLUGGY_PRIVATE = _pluggy_private_names()


def test_the_private_name_list_knows_pluggys_hook_internals():
    """The guard above is only as good as its list: it holds the names a shortcut would reach for."""
    assert {"_hookimpls", "_call_history", "_hookexec", "_multicall"} <= PLUGGY_PRIVATE
