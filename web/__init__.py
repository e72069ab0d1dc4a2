"""The web pages' static files (HTML, CSS, JavaScript modules; no build step), shipped in the package.

``static/`` holds them; :func:`asset` reads one.  This package imports nothing of
tonk's: the service serves these files and the application layer inlines them
into the self-contained replay file.
"""

from __future__ import annotations

from importlib.resources import files

STATIC = files(__name__) / "static"


def asset(name: str) -> str:
    """The text of the static file ``name`` (e.g. ``"replay.js"``)."""
    return (STATIC / name).read_text(encoding="utf-8")
