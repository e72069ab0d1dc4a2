"""The hooks a house rule can implement: defined in :mod:`tonk.core.hookspecs` (the engine's
contract), re-exported here for plugin authors."""

from ..core.hookspecs import *  # noqa: F401,F403
from ..core.hookspecs import __doc__ as _spec_doc  # noqa: F401
