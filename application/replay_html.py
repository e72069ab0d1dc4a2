"""The replay viewer as one self-contained HTML file (``tonk replay GAME --html FILE``).

The page is the viewer's own static files (``tonk.web``: ``replay.html``, its CSS
and its JavaScript modules) with the CSS and the modules inlined and the replay
document (:func:`tonk.application.replay_document.replay_document`) embedded as
JSON in a ``<script type="application/json">``.  A Content-Security-Policy in the
page allows nothing but its own inline style and script (by their hashes), so the
file works from disk with no network and cannot fetch anything.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

import msgspec

from .. import web

#: the viewer's modules in dependency order (each imports only modules before it)
MODULES = ("dom.js", "cards.js", "describe.js", "fair_deal.js", "replay.js")

_IMPORT = re.compile(r'^import \{[^}]*\} from "\./[a-z_-]+\.js";\n', re.MULTILINE)
_EXPORT = re.compile(r"^export (?=(const|function|async function|class|let) )", re.MULTILINE)


def bundle_modules() -> str:
    """The viewer's modules as one module's text: their relative imports dropped (every name
    is in the one scope) and ``export`` removed."""
    parts = []
    for name in MODULES:
        text = web.asset(name)
        text = _IMPORT.sub("", text)
        text = _EXPORT.sub("", text)
        if re.search(r"^\s*(import|export)\b", text, re.MULTILINE):
            raise ValueError(f"{name}: an import or export the inliner does not handle")
        parts.append(f"// --- {name}\n{text}")
    return "\n".join(parts)


def embedded_json(document: dict[str, Any]) -> str:
    """The document as JSON safe inside a ``<script>`` element: every ``<``, ``>`` and ``&``
    (only ever inside JSON strings) written as a ``\\u`` escape."""
    text = msgspec.json.encode(document).decode()
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def replay_html(document: dict[str, Any]) -> str:
    """The self-contained HTML page of a replay document."""
    page = web.asset("replay.html")
    css = "\n" + web.asset("replay.css")
    script = "\n" + bundle_modules()
    for text, what in ((css, "</style"), (script, "</script")):
        if what in text.lower():
            raise ValueError(f"an asset holds {what!r} and cannot be inlined")
    policy = (
        "default-src 'none'; "
        f"style-src {_sha256(css)}; script-src {_sha256(script)}; "
        "img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'"
    )
    head = (
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        f"<style>{css}</style>\n"
        f'<script type="application/json" id="replay-data">{embedded_json(document)}</script>\n'
        f'<script type="module">{script}</script>'
    )
    link = '<link rel="stylesheet" href="replay.css">\n<script type="module" src="replay.js"></script>'
    if link not in page:
        raise ValueError("replay.html no longer links replay.css and replay.js as the inliner expects")
    page = page.replace(link, head)
    return page.replace(' data-replay-src="replay.json"', "")


__all__ = ["MODULES", "bundle_modules", "embedded_json", "replay_html"]
