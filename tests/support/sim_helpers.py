"""Helpers of the simulation tests (tests/support is on the path through pyproject's
``pythonpath``, since the suite runs with --import-mode=importlib)."""

from __future__ import annotations

from tonk.variants.registry import default_registry


#: values for options a variant requires (no default), where the general rule below will not do
REQUIRED_VALUES = {"cards_per_player": 7, "joker_value": 0, "initial_tonk_totals": [49, 50, 11]}


def required_options(name: str) -> dict:
    """A value for every option variant ``name`` requires (its last choice, or its minimum)."""
    out = {}
    for spec in default_registry().get(name).info.options:
        if getattr(spec, "required", False):
            if spec.name in REQUIRED_VALUES:
                out[spec.name] = REQUIRED_VALUES[spec.name]
            elif spec.choices:
                out[spec.name] = spec.choices[-1]
            else:
                out[spec.name] = spec.minimum if spec.minimum is not None else 1
    return out
