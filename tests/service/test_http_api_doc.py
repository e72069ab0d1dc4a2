"""``docs/http-api.md`` is what a real ``tonk serve`` does: every route it serves is in the
routes table and every route there is served, the statuses are the ones the routes answer,
and the commitment's worked example is the bytes the engine hashes."""

from __future__ import annotations

from .conftest import Client, auth


def error_of(r, status: int, code: str, *words: str) -> dict:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json"), r.headers["content-type"]
    err = r.json()["error"]
    assert err["code"] == code, err
    for w in words:
        assert w in err["message"], err
    return err


def test_the_host_token_opening_a_stream_session_is_403(client: Client):
    created = client.create(seats=["ann", "bob"])
    tid = created["table"]
    r = client.http.post(f"/tables/{tid}/session", headers=auth(created["host_token"]))
    error_of(r, 403, "forbidden", "seat's token")
    assert "set-cookie" not in r.headers
    error_of(client.http.post(f"/tables/{tid}/session", headers=auth("nope")), 401, "unauthorized")
    r = client.http.post(f"/tables/{tid}/session", headers=auth(created["tokens"]["ann"]))
    assert r.status_code == 200 and r.json() == {"table": tid, "seat": "ann"}


def test_an_unknown_path_under_schema_is_the_json_404_of_every_other_route(client: Client):
    for path in ("/schema/nothing", "/schema/openapi.txt", "/schema/openapi.json.bak"):
        error_of(client.http.get(path), 404, "not_found", path)
    r = client.http.get("/schema/openapi.json")
    assert r.status_code == 200 and "/tables" in r.json()["paths"]
    for path in ("/schema", "/schema/swagger"):
        r = client.http.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), path
