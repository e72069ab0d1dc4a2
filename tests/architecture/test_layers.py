"""Layers point one way (design.md, issue 11): a test of the import graph.

Every module of every layer is parsed (its AST, so imports inside functions and
under ``TYPE_CHECKING`` count too) and each import of one of our packages is
checked against what its layer may import.  An import is an ``import`` statement
or a call of ``importlib.import_module`` / ``import_module`` / ``__import__`` with
the module's name written in the call: a string (absolute, or relative with
leading dots), or an f-string whose text up to its first placeholder names the
package, or one that starts from ``{__name__}`` or ``{__package__}`` (the
module's own package).  A name computed elsewhere cannot be read from the source
and is not counted.

* ``core`` imports nothing of ours;
* ``variants`` and ``storage`` import only ``core``;
* ``web`` (the pages' static files) imports nothing of ours, and only ``application``,
  ``cli`` and ``service`` import it;
* ``application`` imports ``core``, ``variants``, ``storage`` and ``web``;
* ``cli`` and ``service`` import anything below them (not each other);
* ``bench`` imports no CLI module;
* the one exception: ``cli/serve_cmd.py`` (``tonk serve``) starts the service, so it
  may import ``service``, and only inside a function (lazily: ``tonk --help`` and the
  other commands never load the service or its extra); nothing else imports ``service``.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: layer -> the layers of ours it may import (itself always allowed)
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "variants": {"core"},
    "storage": {"core"},
    "web": set(),
    "application": {"core", "variants", "storage", "web"},
    "cli": {"core", "variants", "storage", "application", "web"},
    "service": {"core", "variants", "storage", "application", "web"},
    "bench": {"core", "variants", "storage", "application"},
}
LAYERS = set(ALLOWED)
#: module -> the upper layer it may import, lazily (inside a function) only
LAZY_EXCEPTIONS: dict[str, str] = {"cli/serve_cmd.py": "service"}
#: the functions that import the module their first argument names
IMPORT_FUNCTIONS = {"import_module", "__import__"}  # importlib.import_module, or imported by name


class Import(NamedTuple):
    line: int
    layer: str  # the layer of ours imported
    lazy: bool  # made inside a function


def _dotted_name(arg: ast.expr, package: list[str]) -> str | None:
    """The module name an import function's argument spells out in the source, as far as it does
    (``"tonk.cli."`` for ``f"tonk.cli.{name}"``), or ``None``."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if not isinstance(arg, ast.JoinedStr) or not arg.values:
        return None
    head = arg.values[0]
    if isinstance(head, ast.Constant) and isinstance(head.value, str):
        # the whole text, or up to the last dot before the first placeholder
        return head.value if len(arg.values) == 1 else head.value[: head.value.rfind(".") + 1]
    if isinstance(head, ast.FormattedValue) and isinstance(head.value, ast.Name) and head.value.id in ("__name__", "__package__"):
        return ".".join(["tonk", *package]) + "."  # the module's own package
    return None


def _called_import(node: ast.Call, package: list[str]) -> tuple[list[str], int] | None:
    """``(module, level)`` of a call of an import function whose module name can be read."""
    f = node.func
    called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    if called not in IMPORT_FUNCTIONS or not node.args:
        return None
    name = _dotted_name(node.args[0], package)
    if name is None:
        return None
    if called == "__import__":  # __import__(name, globals, locals, fromlist, level)
        arg = node.args[4] if len(node.args) > 4 else next((k.value for k in node.keywords if k.arg == "level"), None)
        level = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, int) else 0
    else:  # import_module(".x", __package__): the leading dots are the level
        level = len(name) - len(name.lstrip("."))
    return [part for part in name.split(".") if part], level


def _under_tonk(module: list[str], level: int, package: list[str]) -> list[str] | None:
    """The path under ``tonk`` of the module an import at ``level`` from ``package`` names
    (``[]``: the package ``tonk`` itself), or ``None`` for a module not of ours."""
    if level:  # relative: resolve against the module's package
        return package[: len(package) - (level - 1)] + module
    if module and module[0] == "tonk":
        return module[1:]
    return None


def imports_in_source(source: str, package: list[str], filename: str = "<source>") -> list[Import]:
    """Every import of one of our layers in a module's source; ``package``: the module's package
    under ``tonk`` (``["core"]`` for ``core/x.py``)."""
    tree = ast.parse(source, filename=filename)
    functions = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    in_function = {id(n) for f in functions for n in ast.walk(f) if n is not f}
    out = []
    for node in ast.walk(tree):
        layers: list[str] = []
        if isinstance(node, ast.Import):
            for alias in node.names:
                full = _under_tonk(alias.name.split("."), 0, package)
                layers += full[:1] if full else []
        elif isinstance(node, ast.ImportFrom):
            full = _under_tonk(node.module.split(".") if node.module else [], node.level, package)
            if full is not None:  # from .. import x / from tonk import x: each name is a package of ours
                layers = full[:1] or [a.name for a in node.names]
        elif isinstance(node, ast.Call) and (called := _called_import(node, package)) is not None:
            full = _under_tonk(*called, package)
            layers = full[:1] if full else []
        out += [Import(node.lineno, layer, id(node) in in_function) for layer in layers]
    return [i for i in out if i.layer in LAYERS]


def imported_layers(path: Path, layer: str, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, layer) for every import of one of our layers in the module at ``path``."""
    return [(i.line, i.layer) for i in _imports_of(path, layer, root)]


def _imports_of(path: Path, layer: str, root: Path) -> list[Import]:
    package = [layer] + list(path.relative_to(root / layer).parts[:-1])  # the module's package under tonk
    return imports_in_source(path.read_text(), package, str(path))


def violations(layer: str, rel: str, imports: list[Import]) -> list[str]:
    """The imports of the module ``rel`` (of ``layer``) that point up."""
    lazy_ok = LAZY_EXCEPTIONS.get(rel)
    return [
        f"{rel}:{i.line} imports tonk.{i.layer}"
        for i in imports
        if i.layer != layer and i.layer not in ALLOWED[layer] and not (i.layer == lazy_ok and i.lazy)
    ]


def modules(root: Path = ROOT) -> list[tuple[str, Path]]:
    out = []
    for layer in sorted(LAYERS):
        folder = root / layer
        if folder.is_dir():
            out += [(layer, p) for p in sorted(folder.rglob("*.py"))]
    return out


def tree_violations(root: Path) -> list[str]:
    """Every import that points up in the tree at ``root``."""
    return [v for layer, p in modules(root) for v in violations(layer, str(p.relative_to(root)), _imports_of(p, layer, root))]


def test_every_layer_is_found():
    found = {layer for layer, _ in modules()}
    assert {"core", "variants", "storage", "web", "application", "cli", "service", "bench"} <= found


@pytest.mark.parametrize("layer,path", modules(), ids=lambda v: str(v.relative_to(ROOT)) if isinstance(v, Path) else v)
def test_no_import_points_up(layer, path):
    rel = str(path.relative_to(ROOT))
    bad = violations(layer, rel, _imports_of(path, layer, ROOT))
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
    assert imported_layers(mod, "core", tmp_path) == [(2, "variants"), (3, "storage"), (4, "core")]


def test_the_checker_reads_the_names_given_to_import_functions():
    """``importlib.import_module``, ``import_module`` and ``__import__`` with a name written in the
    call count as imports, inside functions too; a name computed elsewhere does not."""
    source = (
        "import importlib\n"
        "from importlib import import_module\n"
        "def f(name):\n"
        "    importlib.import_module('tonk.cli.app')\n"
        "    import_module('..application.audit', __package__)\n"
        "    __import__('tonk.service.app')\n"
        "    __import__('web', globals(), None, [], 2)\n"
        "    import_module(f'tonk.storage.{name}')\n"
        "    import_module(f'{__name__}.cards')\n"
        "    import_module(name)\n"
        "    import_module(f'tonk.{name}')\n"
        "importlib.import_module('tonk.variants.classic')\n"
    )
    found = sorted(imports_in_source(source, ["core"]))
    assert found == [
        Import(4, "cli", True),
        Import(5, "application", True),
        Import(6, "service", True),
        Import(7, "web", True),
        Import(8, "storage", True),
        Import(9, "core", True),
        Import(12, "variants", False),
    ]


def _planted_tree(tmp_path: Path, plants: dict[str, str]) -> Path:
    """A copy of the layers' modules with ``plants`` (path -> source) added."""
    for layer in LAYERS:
        if (ROOT / layer).is_dir():
            shutil.copytree(ROOT / layer, tmp_path / layer, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "static", "results"))
    for rel, source in plants.items():
        (tmp_path / rel).write_text(source)
    return tmp_path


def test_planted_upward_imports_are_caught_and_nothing_else(tmp_path):
    """A copy of the tree with upward imports planted: an ``import_module`` string in ``core``,
    ``web`` imported from ``storage``, ``application`` imported from ``web`` and a lazy
    ``__import__`` of the service from another CLI module.  Exactly those are found."""
    root = _planted_tree(
        tmp_path,
        {
            "core/planted_dynamic.py": "import importlib\n\nCLI = importlib.import_module('tonk.cli.app')\n",
            "storage/planted_web.py": "from ..web import asset\n",
            "web/planted_up.py": "def page():\n    from tonk.application import replay_html\n    return replay_html\n",
            "cli/planted_lazy.py": "def serve():\n    return __import__('tonk.service.app')\n",
        },
    )
    assert sorted(tree_violations(root)) == [
        "cli/planted_lazy.py:2 imports tonk.service",
        "core/planted_dynamic.py:3 imports tonk.cli",
        "storage/planted_web.py:1 imports tonk.web",
        "web/planted_up.py:2 imports tonk.application",
    ]


def test_the_web_layer_is_imported_only_from_above():
    """``web`` is imported where its pages are used (the replay file, the service) and may be from
    the CLI; from a lower layer it is an upward import."""
    web = "from .. import web\n"
    assert violations("application", "application/x.py", imports_in_source(web, ["application"])) == []
    assert violations("service", "service/x.py", imports_in_source(web, ["service"])) == []
    assert violations("cli", "cli/x.py", imports_in_source("import tonk.web\n", ["cli"])) == []
    for lower in ("core", "variants", "storage"):
        assert violations(lower, f"{lower}/x.py", imports_in_source(web, [lower])) == [f"{lower}/x.py:1 imports tonk.web"]


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
