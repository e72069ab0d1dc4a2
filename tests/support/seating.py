"""Sitting down at a served table (the fair deal, docs/fair-deal.md): a table deals hand 1 only
once every person's seat has sat with ``POST /tables/{id}/sit`` and its client seed, so every
test that creates a table over HTTP and plays at once sits each person's seat here first."""

from __future__ import annotations

import secrets
from typing import Any, Callable

#: ``post(path, token, body) -> answer JSON`` (asserting success), as each test's client makes it
Post = Callable[[str, str, dict[str, Any]], dict[str, Any]]


def client_seed() -> str:
    """A client seed as a page draws one: 32 random bytes in lowercase hex."""
    return secrets.token_hex(32)


def sit_everyone(post: Post, created: dict[str, Any], tokens: dict[str, str] | None = None) -> dict[str, Any]:
    """Sit every seat of ``tokens`` (default: the created table's people) with a fresh seed;
    ``created`` is updated with the table's version, status and commitment after the last sit,
    and ``client_seeds`` (seat -> the seed sent).  Returns ``created``."""
    seeds: dict[str, str] = {}
    for seat, token in (tokens if tokens is not None else created["tokens"]).items():
        seeds[seat] = client_seed()
        answer = post(f"/tables/{created['table']}/sit", token, {"client_seed": seeds[seat]})
        created.update(version=answer["version"], status=answer["status"], commitment=answer.get("commitment"))
    created["client_seeds"] = seeds
    return created


def httpx_post(http: Any) -> Post:
    """:data:`Post` over an ``httpx.Client`` (a served table's tests)."""

    def post(path: str, token: str, body: dict[str, Any]) -> dict[str, Any]:
        r = http.post(path, json=body, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        return dict(r.json())

    return post


def sit_at(tables: Any, created: Any) -> Any:
    """Every person's seat of a table made by ``Tables.create`` (the application, no HTTP)
    sits down with a fresh seed: hand 1 is dealt.  Returns ``created``."""
    for seat in created.tokens:
        tables.sit(created.table, seat, client_seed())
    return created
