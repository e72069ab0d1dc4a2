"""A store that fails under a running ``tonk serve`` (its PostgreSQL tables gone from under
it) is the server's trouble, not the request's: ``503 unavailable`` with ``Retry-After``, a
body that names no part of the store's URL (user, host, database, schema), the reason in
the server's log; and once the store is back, the same request is answered as before."""

from __future__ import annotations

import random
from urllib.parse import urlsplit

import pytest

from .conftest import Client, play_until_over

pytest.importorskip("litestar")

pytestmark = pytest.mark.postgres


def test_a_store_that_fails_is_a_503_naming_nothing_of_the_store_and_the_log_says_why(start_server, pg_url):
    import psycopg

    server = start_server(db=pg_url)
    client = Client(server.url)
    created = client.create(seats=["ann", "bob"], bots={"bob": "greedy"}, hand_limit=1)
    play_until_over(client, created, random.Random(4))
    gid = created["table"]
    before = client.http.get(f"/games/{gid}/replay")
    assert before.status_code == 200, before.text

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE events RENAME TO events_away")  # the store's events, gone from under the server
    try:
        r = client.http.get(f"/games/{gid}/replay")
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "unavailable" and r.headers["retry-after"]
        parts = urlsplit(pg_url)
        for secret in (parts.hostname, parts.username, parts.path.strip("/"), "postgresql", "events"):
            assert not secret or secret not in r.text, secret
        assert "cannot read the store" in server.log() and "events" in server.log()
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("ALTER TABLE events_away RENAME TO events")
    after = client.http.get(f"/games/{gid}/replay")
    assert after.status_code == 200 and after.json() == before.json()  # nothing stored was lost or changed
