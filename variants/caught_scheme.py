"""``caught-scheme`` (rules.md C6.29, B-02): how a caught knocker pays, as a named house rule.

An option preset: the base game already reads ``caught_scheme`` (default
``pagat``).  Naming this variant says the table plays another scheme, so
the option must be given (one of ``pagat``, ``double_to_catchers_only``,
``double_to_low_only``, ``double_to_low_plus_others_base``,
``dropper_pays_all_stakes``, ``double_flat``, ``pagat_without_knocker_base``;
their payments are in :mod:`tonk.core.settlement`).

Decisions:

* The option is required rather than defaulted: naming the variant without
  a scheme is refused instead of silently playing the base scheme.
* ``double_to_low_only`` (catchemtonk does not say whether others pay): the
  knocker pays 2 to each lowest player and nobody else pays.
"""

from __future__ import annotations

from ..core.settlement import CAUGHT_SCHEMES
from . import OptionSpec, VariantInfo

VARIANT = VariantInfo(
    name="caught-scheme",
    summary="Choose how a caught knocker pays (option caught_scheme, required).",
    options=(
        OptionSpec("caught_scheme", "str", "pagat", "how a caught knocker pays (C6.29); must be given", choices=CAUGHT_SCHEMES, required=True),
    ),
    doc=__doc__,
)
