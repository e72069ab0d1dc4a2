"""From names to a ruleset: the variants' discovery meets the engine's :class:`Ruleset`.

:func:`load_ruleset` takes variant names (or a game's pinned spec) and typed
options; :func:`build_ruleset` takes what a person types (``--variant``,
``--option K=V``), as every command that builds a ruleset does.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..core.errors import RulesetError
from ..core.events import RulesetSpec
from ..core.names import quoted
from ..core.plugin import Registered
from ..core.ruleset import Ruleset, declared_options, parse_option_text, unknown_option
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


def parse_option_pairs(texts: Iterable[str]) -> list[tuple[str, str]]:
    """``["K=V", ...]`` -> ``[(K, V), ...]``; a text without ``=`` is an error."""
    pairs = []
    for text in texts:
        key, sep, value = text.partition("=")
        key = key.strip()
        if not sep or not key:
            raise RulesetError(f"an option is written NAME=VALUE, e.g. base_stake=2, not {quoted(text)}")
        pairs.append((key, value.strip()))
    return pairs


def build_ruleset(
    variants: Sequence[str] = (),
    option_texts: Iterable[str] = (),
    *,
    options: dict[str, Any] | None = None,
    carry_from: RulesetSpec | None = None,
    registry: Registry | None = None,
) -> Ruleset:
    """A ruleset from variant names and ``K=V`` option texts (typed by each option's spec).

    ``options`` are already-typed values (e.g. from ``--stake``); naming the same
    option twice is an error.  With ``carry_from`` (a recorded ruleset), options
    not given keep their recorded values when this ruleset declares them through
    the base game or a variant the recording used too.
    """
    plugins = resolve_plugins(variants, registry=registry)
    specs, owner = declared_options(plugins)
    names = [p.info.name for p in plugins[1:]]
    given: dict[str, Any] = dict(options or {})
    for key, text in parse_option_pairs(option_texts):
        spec = specs.get(key)
        if spec is None:
            raise unknown_option(key, names, specs)
        if key in given:
            raise RulesetError(f"option {key} is given twice")
        given[key] = parse_option_text(spec, text)
    if carry_from is not None:
        shared = {"classic", *carry_from.variants}
        for key, value in carry_from.options.items():
            if key not in given and key in specs and owner[key] in shared:
                given[key] = value
    return load_ruleset(variants, given, registry=registry)


def _check_pins(spec: RulesetSpec, registry: Registry, strict_versions: bool) -> None:
    for name in spec.variants:
        if name not in registry:
            pin = spec.plugins.get(name)
            where = f" (recorded from {pin.dist} {pin.version})" if pin else ""
            hint = "; it was a one-off file: give it with --variant-file FILE" if pin and pin.dist == "file" else ""
            raise RulesetError(f"the game was recorded with variant {name!r}{where}, which is not installed{hint}")
    if strict_versions:
        for name, pin in spec.plugins.items():
            if name not in registry:
                raise RulesetError(f"the game was recorded with variant {name!r} ({pin.dist} {pin.version}), which is not installed")
            reg = registry.get(name)
            if reg.version != pin.version or reg.dist != pin.dist:
                raise RulesetError(
                    f"variant {name!r} was recorded as {pin.dist} {pin.version} but {reg.dist} {reg.version} is installed"
                )
