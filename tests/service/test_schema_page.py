"""The page at ``/schema`` is built from the OpenAPI document on the server: every text of
the document is data (escaped), every route and schema is shown, and it links each answer's
schema to its section."""

from __future__ import annotations

import pytest

pytest.importorskip("litestar")

from tonk.service.schema_page import schema_page  # noqa: E402

HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'


def document() -> dict:
    return {
        "openapi": "3.1.0",
        "info": {"title": f"t {HOSTILE}", "version": "1"},
        "paths": {
            "/things/{id}": {
                "get": {
                    "summary": f"a thing {HOSTILE}",
                    "operationId": f"op{HOSTILE}",
                    "parameters": [{"name": f"id{HOSTILE}", "in": "path", "required": True, "schema": {"type": "string"}, "description": HOSTILE}],
                    "responses": {
                        "200": {"description": "the thing", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
                        "404": {"description": HOSTILE, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{HOSTILE}"}}}},
                    },
                },
                "post": {"summary": "make one", "requestBody": {"content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Thing"}}}}}, "responses": {"201": {"description": "made"}}},
            }
        },
        "components": {"schemas": {f"Thing{HOSTILE}": {"type": "object", "description": HOSTILE}, "Thing": {"type": "object"}}},
    }


def test_every_text_of_the_document_is_shown_as_text_never_markup():
    page = schema_page(document())
    assert "<script" not in page and "<img" not in page and "onerror=alert" not in page.replace("onerror=alert(2)&gt;", "")
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 7  # title twice, summary, operation id, parameter name and text, answer, schema


def test_each_route_and_schema_is_shown_and_an_answers_schema_is_linked():
    page = schema_page(document())
    assert '<span class="method">get</span> <code>/things/{id}</code>' in page
    assert '<span class="method">post</span> <code>/things/{id}</code>' in page
    assert "body: application/json: <code>array of Thing</code>" in page
    assert 'id="schema-Thing"' in page
    assert '<code><a href="#schema-Thing">Thing</a></code>' in page
    assert '<a href="#schema-script&gt;&quot;&gt;&lt;img' in page  # a $ref's last part, escaped inside the link too
