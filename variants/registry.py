"""Finding variants: the entry-point group ``tonk.variants``, and single files by path.

Each entry point names a module (or object) with a ``VARIANT`` attribute.  The
built-in catalogue is declared in the project's own ``pyproject.toml`` under
the same group, so built-ins and third-party variants are found the same way.
:func:`builtin_modules` (the package's variant modules) is the fallback for a
checkout whose installed metadata predates a new built-in (an editable install
not yet re-installed).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import msgspec
import pluggy

from ..core.errors import RulesetError, UnknownVariant
from ..core.hookspecs import HOOK_NAMES, TonkHooks
from ..core.plugin import PROJECT, Registered, VariantInfo, variant_info
from ..core.plugin_guard import register
from ..core.ruleset import check_declaration

ENTRY_POINT_GROUP = "tonk.variants"

def builtin_modules() -> list[str]:
    """The modules of this package that are variants (a ``VARIANT`` attribute), by module
    name: the fallback for a checkout whose installed entry points predate a new built-in.
    The list of built-ins is written once, in ``pyproject.toml``'s entry points (a test
    keeps it equal to what this finds)."""
    package = sys.modules[__package__]
    names = [f"{__package__}.{m.name}" for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")]
    return [name for name in names if isinstance(getattr(importlib.import_module(name), "VARIANT", None), VariantInfo)]


class Registry:
    """Name (or alias) -> variant."""

    def __init__(self) -> None:
        self._by_name: dict[str, Registered] = {}
        self._alias: dict[str, str] = {}
        self.problems: list[str] = []

    def add(self, plugin: Any, dist: str, version: str, source: str) -> Registered:
        info = variant_info(plugin)
        reg = Registered(plugin, info, dist, version, source)
        existing = self._by_name.get(info.name)
        if existing is not None and existing.plugin is plugin and source == "builtin":
            return existing  # already found through its entry point
        if existing is not None and existing.plugin is not plugin:
            if existing.source == "builtin" and source != "builtin":
                pass  # the installed entry point supersedes the fallback
            elif source == "builtin":
                return existing
            else:
                raise RulesetError(
                    f"two plugins claim the variant name {info.name!r}: {existing.source} ({existing.dist}) and {source} ({dist})"
                )
        aliased = self._alias.get(info.name)
        if aliased is not None and aliased != info.name:
            raise RulesetError(f"variant {info.name!r} ({source}) takes a name that is already an alias of variant {aliased!r}")
        for a in info.aliases:
            owner = self._alias.get(a)
            if a in self._by_name or (owner is not None and owner != info.name):
                raise RulesetError(f"variant {info.name!r} ({source}) declares the alias {a!r}, which already names variant {owner or a!r}")
        self._by_name[info.name] = reg
        for a in info.aliases:
            self._alias[a] = info.name
        return reg

    def copy(self) -> "Registry":
        """A registry with the same variants, to add one-off files to without touching this one."""
        new = Registry()
        new._by_name = dict(self._by_name)
        new._alias = dict(self._alias)
        new.problems = list(self.problems)
        return new

    def with_files(self, paths) -> "Registry":
        """A copy of this registry with the variant files at ``paths`` loaded (``--variant-file``)."""
        new = self.copy()
        for p in paths:
            new.load_file(p)
        return new

    def canonical(self, name: str) -> str:
        if name in self._by_name:
            return name
        if name in self._alias:
            return self._alias[name]
        raise UnknownVariant(name, [n for n in self._by_name if n != "classic"])

    def get(self, name: str) -> Registered:
        return self._by_name[self.canonical(name)]

    def names(self) -> list[str]:
        return list(self._by_name)

    def __contains__(self, name: str) -> bool:
        return name in self._by_name or name in self._alias

    def all(self) -> list[Registered]:
        return list(self._by_name.values())

    def load_file(self, path: str | Path) -> Registered:
        """Load a one-off variant from a Python file (``--variant-file``)."""
        p = Path(path)
        if p.is_dir():
            raise RulesetError(f"variant file {str(p)!r} is a directory, not a Python file")
        if not p.is_file():
            raise RulesetError(f"variant file {str(p)!r} does not exist")
        mod_name = f"tonk_variant_file_{abs(hash(str(p.resolve())))}"
        spec = importlib.util.spec_from_file_location(mod_name, p)
        if spec is None or spec.loader is None:
            raise RulesetError(f"variant file {str(p)!r} cannot be imported: a variant file is Python source named *.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        try:
            spec.loader.exec_module(module)
        except (Exception, SystemExit) as exc:  # a user's file: report, do not crash (nor exit)
            raise RulesetError(f"variant file {str(p)!r} failed to import: {type(exc).__name__}: {exc}") from None
        info = getattr(module, "VARIANT", None)
        if not isinstance(info, VariantInfo):
            raise RulesetError(f"variant file {str(p)!r} has no VARIANT = VariantInfo(...) attribute, so it is not a tonk variant")
        try:
            check_declaration(info)
        except RulesetError as exc:
            raise RulesetError(f"variant file {str(p)!r}: {exc}") from None
        # its hooks are checked against the hookspecs now, not when a game first asks them
        pm = pluggy.PluginManager(PROJECT)
        pm.add_hookspecs(TonkHooks)
        register(pm, Registered(module, info, "file", _file_version(module), f"file:{p}"))
        return self.add(module, "file", _file_version(module), f"file:{p}")




def hooks_of(plugin: Any) -> list[str]:
    """The hooks a plugin implements, in hookspecs order."""
    marker = f"{PROJECT}_impl"
    return [n for n in HOOK_NAMES if hasattr(getattr(plugin, n, None), marker)]


def describe_variant(reg: Registered, *, doc: bool = False) -> dict[str, Any]:
    """A plain-data description of a variant (``tonk variants --json``)."""
    info = reg.info
    out: dict[str, Any] = {
        "name": info.name,
        "aliases": list(info.aliases),
        "summary": info.summary,
        "dist": reg.dist,
        "version": reg.version,
        "source": reg.source,
        "rule": info.rule,
        "options": [msgspec.to_builtins(o) for o in info.options],
        "hooks": hooks_of(reg.plugin),
        "conflicts": list(info.conflicts),
    }
    if doc:
        out["doc"] = (info.doc or getattr(reg.plugin, "__doc__", None) or "").strip()
    return out


def _file_version(module: Any) -> str:
    return str(getattr(module, "__version__", "0"))


def _dist_of(ep: metadata.EntryPoint, known: dict[int, tuple[str, str]] | None = None) -> tuple[str, str]:
    """``(name, version)`` of the distribution that declares ``ep``.  Each read of a
    distribution's name or version parses its metadata file (about 1.5 ms); ``known``
    keeps the answer per distribution object (the entry points of one distribution
    share it), so a distribution with many variants is parsed once."""
    dist = getattr(ep, "dist", None)
    if dist is None:
        return ("unknown", "0")
    if known is None:
        known = {}
    found = known.get(id(dist))
    if found is None:
        meta = dist.metadata
        found = known[id(dist)] = (meta["Name"], meta["Version"])
    return found


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    """Every installed variant (cached for the process)."""
    reg = Registry()
    known: dict[int, tuple[str, str]] = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist, version = _dist_of(ep, known)
        try:
            obj = ep.load()
            reg.add(obj, dist, version, "entry-point")
        except RulesetError:
            raise
        except Exception as exc:  # a broken third-party plugin must not break the engine
            reg.problems.append(f"entry point {ep.name!r} ({dist}) failed to load: {type(exc).__name__}: {exc}")
    try:
        own_version = metadata.version("tonk")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
        own_version = "0"
    for mod in builtin_modules():
        reg.add(importlib.import_module(mod), "tonk", own_version, "builtin")
    return reg
