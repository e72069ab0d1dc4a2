"""House rules as pluggy plugins.

A variant is a module (or any object) with a ``VARIANT`` attribute, a
:class:`VariantInfo` naming it and declaring its options, and functions marked
with :data:`hookimpl` implementing hooks of :mod:`tonk.variants.hookspecs`.
The base game itself is such a plugin, :mod:`tonk.variants.classic`, always
registered first (pluggy calls the last registered first, so every variant
can override it).

Variants are found through the entry-point group ``tonk.variants``
(:mod:`tonk.variants.registry`); a single file can be loaded by path.
"""

from __future__ import annotations

from typing import Any, Callable

import msgspec
import pluggy

PROJECT = "tonk"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class OptionSpec(msgspec.Struct, frozen=True):
    """One option a variant accepts.

    ``type`` is one of ``int``, ``bool``, ``str``, ``int_list`` (a list of
    integers) or ``int_map`` (an object mapping player counts, as strings, to
    integers).  ``choices`` restricts a ``str``; ``minimum``/``maximum``
    bound an ``int`` (and every integer of a list or map).
    """

    name: str
    type: str
    default: Any
    help: str = ""
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None


class VariantInfo(msgspec.Struct, frozen=True):
    """What a variant is: its id, a one-line summary, its options and aliases.

    ``rule`` is the rule id its violations cite (``V:<name>`` by default).
    """

    name: str
    summary: str
    options: tuple[OptionSpec, ...] = ()
    aliases: tuple[str, ...] = ()
    doc: str = ""

    @property
    def rule(self) -> str:
        return f"V:{self.name}"


def variant_info(plugin: Any) -> VariantInfo:
    """The :class:`VariantInfo` of a plugin object (module or instance)."""
    info = getattr(plugin, "VARIANT", None)
    if not isinstance(info, VariantInfo):
        name = getattr(plugin, "__name__", repr(plugin))
        raise TypeError(f"{name} has no VARIANT = VariantInfo(...) attribute, so it is not a tonk variant")
    return info


__all__ = ["hookimpl", "hookspec", "OptionSpec", "VariantInfo", "variant_info", "PROJECT", "Callable"]
