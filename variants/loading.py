"""From names to a ruleset: the variants' discovery meets the engine's :class:`Ruleset`."""

from __future__ import annotations

from typing import Any, Iterable

from ..core.errors import RulesetError
from ..core.events import RulesetSpec
from ..core.plugin import Registered
from ..core.ruleset import Ruleset
from .registry import Registry, default_registry


def load_ruleset(
    spec: RulesetSpec | Iterable[str] = (),
    options: dict[str, Any] | None = None,
    *,
    registry: Registry | None = None,
    extra: Iterable[Registered] = (),
    strict_versions: bool = True,
    trace: bool = False,
) -> Ruleset:
    """The ruleset of the base game plus the variants named (names or aliases, in order),
    with ``options``; or, given a game's pinned :class:`RulesetSpec`, the ruleset it
    pinned, refusing a variant that is not installed or is installed in another version
    (audit never judges a game under rules other than its own).

    ``extra``: one-off plugins (``--variant-file``) usable by name beside the registry's.
    """
    registry = registry or default_registry()
    if isinstance(spec, RulesetSpec):
        _check_pins(spec, registry, strict_versions)
        names: Iterable[str] = spec.variants
        options = dict(spec.options)
    else:
        names = spec
    return Ruleset(resolve_plugins(names, registry=registry, extra=extra), options, trace=trace)


def resolve_plugins(names: Iterable[str], *, registry: Registry | None = None, extra: Iterable[Registered] = ()) -> list[Registered]:
    """The base game's plugin, then the plugin of each variant named (names or aliases, in
    order; ``classic`` itself is the base game)."""
    registry = registry or default_registry()
    extra_by_name = {r.info.name: r for r in extra}
    plugins = [registry.get("classic")]
    for raw in names:
        reg = extra_by_name[raw] if raw in extra_by_name else registry.get(raw)
        if reg.info.name != "classic":
            plugins.append(reg)
    return plugins


def _check_pins(spec: RulesetSpec, registry: Registry, strict_versions: bool) -> None:
    for name in spec.variants:
        if name not in registry:
            pin = spec.plugins.get(name)
            where = f" (recorded from {pin.dist} {pin.version})" if pin else ""
            raise RulesetError(f"the game was recorded with variant {name!r}{where}, which is not installed")
    if strict_versions:
        for name, pin in spec.plugins.items():
            if name not in registry:
                raise RulesetError(f"the game was recorded with variant {name!r} ({pin.dist} {pin.version}), which is not installed")
            reg = registry.get(name)
            if reg.version != pin.version or reg.dist != pin.dist:
                raise RulesetError(
                    f"variant {name!r} was recorded as {pin.dist} {pin.version} but {reg.dist} {reg.version} is installed"
                )
