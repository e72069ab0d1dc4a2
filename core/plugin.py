"""The contract between the engine and its plugins: the hookimpl marker, what a variant
declares about itself (:class:`VariantInfo`, :class:`OptionSpec`) and a plugin as the
engine is given it (:class:`Registered`).  Discovery (entry points, files) is
:mod:`tonk.variants`' business; a :class:`~tonk.core.ruleset.Ruleset` is built from
the plugin objects it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
import pluggy

from .errors import IllegalAction

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
        return IllegalAction(code, self.rule, message)


def variant_info(plugin: Any) -> VariantInfo:
    """The :class:`VariantInfo` of a plugin object (module or instance)."""
    info = getattr(plugin, "VARIANT", None)
    if not isinstance(info, VariantInfo):
        name = getattr(plugin, "__name__", repr(plugin))
        raise TypeError(f"{name} has no VARIANT = VariantInfo(...) attribute, so it is not a tonk variant")
    return info




@dataclass(frozen=True)
class Registered:
    """A variant that can be used: its plugin object, info, and where it came from."""

    plugin: Any
    info: VariantInfo
    dist: str
    version: str
    source: str  # "entry-point", "builtin" or "file:<path>"
