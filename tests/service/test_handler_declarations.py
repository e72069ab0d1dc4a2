"""Every route handler declares its parameters as Litestar 3 will read them (``FromPath``,
``FromQuery``, ``JSONBody``, ``QueryParameter``): building the app warns of no parameter
declared in a style Litestar deprecates (each test server printed 26 such warnings)."""

from __future__ import annotations

import warnings

from litestar.exceptions import LitestarDeprecationWarning

from tonk.service.app import ServiceConfig, create_app


def test_the_app_builds_without_a_deprecated_parameter_declaration(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        app = create_app(ServiceConfig(db=str(tmp_path / "t.db")))
    assert app.route_handler_method_map  # the routes were registered
    deprecated = [str(w.message) for w in caught if issubclass(w.category, (LitestarDeprecationWarning, DeprecationWarning))]
    ours = [m for m in deprecated if "handler=" in m or "Parameter(" in m]  # a handler's, or a parameter's declaration
    assert ours == []
