"""Adjudicating hand records: the verdicts of :mod:`tonk.core.adjudication`, with each
record's ruleset loaded from the installed variants (or a registry given, e.g. with
``--variant-file`` plugins)."""

from __future__ import annotations

import json
from typing import Any, Iterable

from ..core.adjudication import adjudicate as _adjudicate
from ..core.adjudication import compare
from ..core.events import RulesetSpec
from ..core.ruleset import Ruleset, RulesetLoader
from ..variants import load_ruleset
from ..variants.registry import Registry


def ruleset_loader(registry: Registry | None = None, *, keep: int = 256) -> RulesetLoader:
    """A loader that builds each (variants, options) ruleset once and keeps up to ``keep``
    of them: the cases of one file mostly share a few rulesets, and building one costs
    more than judging a case."""
    cache: dict[str, Ruleset] = {}

    def load(spec: RulesetSpec | Iterable[str] = (), options: dict[str, Any] | None = None) -> Ruleset:
        key = json.dumps([spec, options], sort_keys=True, default=repr)
        ruleset = cache.get(key)
        if ruleset is None:
            if len(cache) >= keep:
                cache.clear()
            ruleset = cache[key] = load_ruleset(spec, options, registry=registry)
        return ruleset

    return load


def adjudicate(
    raw: Any,
    index: int = 0,
    *,
    registry: Registry | None = None,
    load_ruleset: RulesetLoader | None = None,
    format_version: int = 1,
) -> dict[str, Any]:
    """The verdict for one raw case object (see :func:`tonk.core.adjudication.adjudicate`);
    pass one ``load_ruleset`` from :func:`ruleset_loader` across the cases of a file, and
    the file's ``format_version``."""
    return _adjudicate(raw, index, load_ruleset=load_ruleset or ruleset_loader(registry), format_version=format_version)


__all__ = ["adjudicate", "compare", "ruleset_loader"]
