"""Adjudicating hand records: the verdicts of :mod:`tonk.core.adjudication`, with each
record's ruleset loaded from the installed variants (or a registry given, e.g. with
``--variant-file`` plugins)."""

from __future__ import annotations

from functools import partial
from typing import Any

from ..core.adjudication import adjudicate as _adjudicate
from ..core.adjudication import compare
from ..variants import load_ruleset
from ..variants.registry import Registry


def adjudicate(raw: Any, index: int = 0, *, registry: Registry | None = None) -> dict[str, Any]:
    """The verdict for one raw case object (see :func:`tonk.core.adjudication.adjudicate`)."""
    return _adjudicate(raw, index, load_ruleset=partial(load_ruleset, registry=registry))


__all__ = ["adjudicate", "compare"]
