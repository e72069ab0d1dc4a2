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
    bound an ``int`` (and every integer of a list or map).  A ``required``
    option has no usable default: a ruleset naming the variant must give it
    (``default`` is then only shown as an example).

    A variant may redeclare an option of the base game (``caught_scheme``,
    ``knock_timing``, ...) to change its default or make it required: that is
    how an option preset is written.
    """

    name: str
    type: str
    default: Any
    help: str = ""
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    required: bool = False


class VariantInfo(msgspec.Struct, frozen=True):
    """What a variant is: its id, a one-line summary, its options and aliases.

    ``rule`` is the rule id its violations cite (``V:<name>``).
    ``conflicts`` names variants whose rules contradict this one's: a ruleset
    naming both is refused unless its options say ``allow_conflicts: true``
    (the later variant named then wins, see :mod:`tonk.core.ruleset`).
    """

    name: str
    summary: str
    options: tuple[OptionSpec, ...] = ()
    aliases: tuple[str, ...] = ()
    doc: str = ""
    conflicts: tuple[str, ...] = ()

    @property
    def rule(self) -> str:
        return f"V:{self.name}"

    def illegal(self, code: str, message: str):
        """An :class:`~tonk.core.errors.IllegalAction` citing this variant's rule."""
        from ..core.errors import IllegalAction  # lazy: tonk.core imports this package

        return IllegalAction(code, self.rule, message)


def variant_info(plugin: Any) -> VariantInfo:
    """The :class:`VariantInfo` of a plugin object (module or instance)."""
    info = getattr(plugin, "VARIANT", None)
    if not isinstance(info, VariantInfo):
        name = getattr(plugin, "__name__", repr(plugin))
        raise TypeError(f"{name} has no VARIANT = VariantInfo(...) attribute, so it is not a tonk variant")
    return info


__all__ = ["hookimpl", "hookspec", "OptionSpec", "VariantInfo", "variant_info", "PROJECT", "Callable"]

# Load the engine now, so that importing any module of this package first (for
# instance ``tonk.variants.registry``) does not meet tonk.core half-initialised.
from .. import core as _core  # noqa: E402,F401
