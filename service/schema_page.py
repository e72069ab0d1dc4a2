"""The page that browses the OpenAPI document at ``/schema``: one self-contained HTML page.

Litestar's own pages (Swagger UI, ReDoc, Elements, RapiDoc, Scalar) load their scripts
and fonts from public CDNs.  On this origin the table pages keep each device's seat
tokens (``localStorage``), so a script from elsewhere running here could read them; and
a server with no way out to the internet showed a blank page.  This page is built on the
server from the document itself (every route: its summary, parameters, body and
answers; every schema of ``components``), runs no script and loads nothing, and every
text of the document is escaped as data.  The document stays at ``/schema/openapi.json``
(and ``.yaml``).
"""

from __future__ import annotations

import html
import json
from typing import Any

from litestar import Request
from litestar.openapi.plugins import OpenAPIRenderPlugin

#: nothing runs and nothing is fetched: the page's one inline style sheet only
POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

_METHODS = ("get", "post", "put", "patch", "delete", "options", "head")

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem; color: #1b1b1b; }
h2 { margin-top: 2rem; border-bottom: 1px solid #ccc; }
section.route { border: 1px solid #ddd; border-radius: 6px; padding: .5rem .8rem; margin: .8rem 0; }
.method { font-weight: 700; text-transform: uppercase; display: inline-block; min-width: 4.5rem; }
code, pre { font-family: ui-monospace, monospace; font-size: 13px; }
pre { background: #f6f6f6; padding: .5rem; overflow-x: auto; }
table { border-collapse: collapse; } td, th { text-align: left; padding: .15rem .6rem .15rem 0; vertical-align: top; }
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _schema_name(schema: dict[str, Any] | None) -> str:
    """A schema as a short name: its ``$ref``'s last part, or its type."""
    if not schema:
        return ""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return ref.rsplit("/", 1)[-1]
    if "oneOf" in schema or "anyOf" in schema:
        return " | ".join(_schema_name(s) for s in schema.get("oneOf") or schema.get("anyOf") or [])
    if schema.get("type") == "array":
        return f"array of {_schema_name(schema.get('items'))}"
    return str(schema.get("type", "object"))


def _body_schema(content: dict[str, Any] | None) -> str:
    """The first media type of a body or an answer and its schema, linked to the schema's
    section when it is one of ``components``."""
    for media, spec in (content or {}).items():
        schema = spec.get("schema") or {}
        name = _e(_schema_name(schema))
        shown = f'<a href="#schema-{name}">{name}</a>' if isinstance(schema.get("$ref"), str) else name
        return f"{_e(media)}: <code>{shown}</code>"
    return ""


def _route(path: str, method: str, op: dict[str, Any]) -> str:
    parts = [f'<section class="route" id="{_e(op.get("operationId", method + path))}">']
    parts.append(f'<h3><span class="method">{_e(method)}</span> <code>{_e(path)}</code></h3>')
    if op.get("summary"):
        parts.append(f"<p>{_e(op['summary'])}</p>")
    params = op.get("parameters") or []
    if params:
        rows = "".join(
            f"<tr><td><code>{_e(p.get('name'))}</code></td><td>{_e(p.get('in'))}</td>"
            f"<td>{'required' if p.get('required') else 'optional'}</td><td><code>{_e(_schema_name(p.get('schema')))}</code></td>"
            f"<td>{_e(p.get('description', ''))}</td></tr>"
            for p in params
        )
        parts.append(f"<table><tr><th>parameter</th><th>in</th><th></th><th>type</th><th></th></tr>{rows}</table>")
    body = op.get("requestBody")
    if body:
        parts.append(f"<p>body: {_body_schema(body.get('content'))}</p>")
    answers = "".join(
        f"<tr><td><code>{_e(code)}</code></td><td>{_e(spec.get('description', ''))}</td><td>{_body_schema(spec.get('content'))}</td></tr>"
        for code, spec in (op.get("responses") or {}).items()
    )
    parts.append(f"<table><tr><th>answer</th><th></th><th></th></tr>{answers}</table></section>")
    return "".join(parts)


def schema_page(document: dict[str, Any]) -> str:
    """The whole page for an OpenAPI ``document`` (a dict as Litestar renders it)."""
    info = document.get("info", {})
    title = f"{info.get('title', 'API')} {info.get('version', '')}".strip()
    routes = [
        _route(path, method, op)
        for path, item in (document.get("paths") or {}).items()
        for method in _METHODS
        if isinstance(op := item.get(method), dict)
    ]
    schemas = "".join(
        f'<section class="route" id="schema-{_e(name)}"><h3><code>{_e(name)}</code></h3>'
        f"<pre>{_e(json.dumps(spec, indent=2, sort_keys=True))}</pre></section>"
        for name, spec in sorted(((document.get("components") or {}).get("schemas") or {}).items())
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{_e(title)}</h1><p>The OpenAPI {_e(document.get('openapi', ''))} document of this service, "
        'as JSON at <a href="/schema/openapi.json">/schema/openapi.json</a> and as YAML at '
        '<a href="/schema/openapi.yaml">/schema/openapi.yaml</a>; the routes are explained in '
        "<code>docs/http-api.md</code>.</p>"
        f"<h2>Routes</h2>{''.join(routes)}<h2>Schemas</h2>{schemas}</body></html>"
    )


#: where Litestar's own pages were (links and bookmarks made to them still open a page)
FORMER_PAGES = ("/swagger", "/redoc", "/elements", "/rapidoc", "/scalar")


class SchemaPage(OpenAPIRenderPlugin):
    """Serves :func:`schema_page` at ``/schema`` and at :data:`FORMER_PAGES` under it."""

    def __init__(self) -> None:
        super().__init__(path=["/", *FORMER_PAGES], favicon="", style="")

    def render(self, request: Request, openapi_schema: dict[str, Any]) -> bytes:
        return schema_page(openapi_schema).encode()
