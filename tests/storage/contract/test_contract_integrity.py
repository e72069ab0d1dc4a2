"""The hash chain, the one-pass verified scan and the games projection, on every back end."""

from __future__ import annotations

import pytest

from tonk.storage import StoreError, UnknownGame

#: changes made outside the engine to one game: (seq, column, new value from the old) or (seq, None: the row deleted)
TAMPERINGS = {
    "payload": (5, "payload", lambda p: p.replace('"card":"', '"card":"X')),
    "prev_hash": (4, "prev_hash", lambda _: "1" * 64),
    "hash": (3, "hash", lambda _: "2" * 64),
    "deleted": (6, None, None),
    "type": (7, "type", lambda _: "knocked"),
    "not json": (8, "payload", lambda _: "not json"),
    "first not json": (1, "payload", lambda _: "not json"),
}


def tamper(backend, game_id: str, how: str) -> None:
    seq, column, change = TAMPERINGS[how]
    if column is None:
        backend.delete_events(game_id, lambda s: s == seq)
    else:
        backend.edit_event(game_id, seq, column, change)


def reference(store, gid: str):
    """What the two reference paths (verify, iter_events) say of one game."""
    events, error = [], None
    try:
        for _, e in store.iter_events(gid):
            events.append(e)
    except StoreError as exc:
        error = str(exc)
    return store.verify(gid), events, error, store.version(gid)


def scanned_as_reference(store) -> list:
    scanned = list(store.iter_verified_games())
    assert [g.game_id for g in scanned] == store.game_ids()
    for g in scanned:
        chain, events, error, version = reference(store, g.game_id)
        assert (g.chain, g.events, str(g.decode_error) if g.decode_error else None, g.version) == (chain, events, error, version)
    named = list(store.iter_verified_games([g.game_id for g in reversed(scanned)]))
    assert [(g.game_id, g.events, g.chain) for g in named] == [(g.game_id, g.events, g.chain) for g in reversed(scanned)]
    return scanned


def test_an_untampered_store_verifies_and_scans_whole(backend, games):
    backend.record(games)
    with backend.open(create=False) as store:
        assert store.verify() == []
        scanned = scanned_as_reference(store)
        assert all(g.intact for g in scanned)
        assert {g.game_id: g.events for g in scanned} == {g.game_id: g.events for g in games}
        with pytest.raises(UnknownGame):
            list(store.iter_verified_games(["nope"]))


@pytest.mark.parametrize("how", TAMPERINGS)
def test_tampering_is_found_at_its_seq_the_same_way(backend, games, how):
    backend.record(games)
    victim = games[1].game_id
    tamper(backend, victim, how)
    with backend.open(create=False) as store:
        assert {f.game_id for f in store.verify()} <= {victim}
        scanned = scanned_as_reference(store)
        assert [g.game_id for g in scanned if not g.intact] == [victim]


@pytest.mark.parametrize("other", [pytest.param("postgres_backend", marks=pytest.mark.postgres), "memory_backend"])
def test_the_same_tampering_gives_the_same_findings_on_every_back_end(sqlite_backend, other, games, request):
    out = []
    for b in (sqlite_backend, request.getfixturevalue(other)):
        b.record(games)
        tamper(b, games[1].game_id, "payload")
        with b.open(create=False) as store:
            # the hashes themselves differ: each back end recorded the games at its own time
            findings = [(f.game_id, f.seq, f.message) for f in store.verify()]
            out.append((findings, [(g.game_id, [(c.seq, c.message) for c in g.chain], len(g.events)) for g in store.iter_verified_games()]))
    assert out[0] == out[1]
    assert out[0][0][0][1] == 5


def test_the_games_projection_follows_the_appends_and_rebuilds_equal(backend, games):
    g = games[0]
    with backend.open() as store:
        store.append(g.game_id, g.events[:1], 0)
        row = store.games()[0]
        assert (row["game_id"], row["status"], row["hands"], row["events"]) == (g.game_id, "open", 0, 1)
        store.append(g.game_id, g.events[1:], 1)
        for other in games[1:]:
            store.append(other.game_id, other.events, 0)
        incremental = store.games()
        assert {r["game_id"]: r["events"] for r in incremental} == {x.game_id: len(x.events) for x in games}
        assert store.games(player="ann") == incremental
        assert store.games(player="nobody") == []
        assert [r["game_id"] for r in store.games(variant="hit-penalty")] == [games[2].game_id]
        store.rebuild_projection()
        assert store.games() == incremental


@pytest.mark.parametrize("other", [pytest.param("postgres_backend", marks=pytest.mark.postgres), "memory_backend"])
def test_the_projection_is_the_same_on_every_back_end(sqlite_backend, other, games, request):
    rows = []
    for b in (sqlite_backend, request.getfixturevalue(other)):
        b.record(games)
        with b.open(create=False) as store:
            rows.append([{k: v for k, v in r.items() if k not in ("started_at", "ended_at")} for r in store.games()])
    assert rows[0] == rows[1]


def test_a_games_row_the_events_do_not_support_is_found(backend, games):
    backend.record(games)
    with backend.open(create=False) as store:
        assert store.projection_findings() == [] and store.trigger_problems() == []
    backend.edit_game(games[1].game_id, "hands", 99)
    with backend.open(create=False) as store:
        found = store.projection_findings()
        assert [(f.game_id, f.column, f.stored) for f in found] == [(games[1].game_id, "hands", 99)]
        rows, disagree = store.checked_games()
        assert disagree == [games[1].game_id]
        assert {r["game_id"]: r["hands"] for r in rows}[games[1].game_id] == 3


def test_a_dropped_append_only_trigger_is_reported(sql_backend, games):
    backend = sql_backend
    backend.record(games[:1])
    backend.drop_triggers()
    with backend.open(create=False) as store:
        assert any("events_no_update is missing" in p for p in store.trigger_problems())


def test_hashes_after_a_seq_are_the_stored_chain_hashes_from_there(backend, games):
    backend.record(games)
    with backend.open(create=False) as store:
        for g in games:
            stored = [r.hash for r in store.records(g.game_id)]
            for seq in (0, 1, len(stored) // 2, len(stored)):
                assert store.hashes_after(g.game_id, seq) == stored[seq:]
        assert store.hashes_after("no-such-game", 0) == []
