"""House rules as pluggy plugins, and their discovery.

A variant is a module (or any object) with a ``VARIANT`` attribute, a
:class:`VariantInfo` naming it and declaring its options, and functions marked
with :data:`hookimpl` implementing hooks of :mod:`tonk.core.hookspecs`.
The base game itself is such a plugin, :mod:`tonk.variants.classic`, always
registered first (pluggy calls the last registered first, so every variant
can override it).

Variants are found through the entry-point group ``tonk.variants``
(:mod:`tonk.variants.registry`); a single file can be loaded by path.
:func:`load_ruleset` turns variant names (or a game's pinned
:class:`~tonk.core.events.RulesetSpec`) into a :class:`~tonk.core.ruleset.Ruleset`;
:func:`build_ruleset` does it from command-line text (``--option K=V``).

The marker and the declarations live in :mod:`tonk.core.plugin` (the engine's
contract); they are re-exported here for plugin authors.
"""

from __future__ import annotations

from typing import Any

from ..core.plugin import PROJECT, OptionSpec, Registered, VariantInfo, hookimpl, hookspec, variant_info


def __getattr__(name: str) -> Any:
    # the loaders import the registry, which imports the built-in variants: loaded on first use
    if name in ("load_ruleset", "build_ruleset"):
        from . import loading

        return getattr(loading, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["hookimpl", "hookspec", "OptionSpec", "VariantInfo", "Registered", "variant_info", "PROJECT", "load_ruleset", "build_ruleset"]
