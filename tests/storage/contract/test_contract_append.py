"""The append contract, on every back end: expected version, command ids, what may be appended, the import."""

from __future__ import annotations

import io

import pytest

from tonk.core.events import Knocked
from tonk.storage import ConcurrencyError, StoreError, UnknownGame
from tonk.storage.errors import ImportRefused
from tonk.storage.jsonl import export_games, import_file
from tonk.storage.open import open_store
from tonk.storage.seats import SeatStore


def test_appended_events_read_back_equal_and_versions_count_them(backend, games):
    backend.record(games)
    with backend.open(create=False) as store:
        for g in games:
            assert store.read(g.game_id) == g.events
            assert [e for _, e in store.iter_events(g.game_id)] == g.events
            assert store.version(g.game_id) == len(g.events)
        assert store.game_ids() == sorted(g.game_id for g in games)
        assert store.game_count() == len(games)
        assert dict(store.iter_games()) == {g.game_id: g.events for g in games}
        with pytest.raises(UnknownGame):
            store.read("nope")
        assert store.version("nope") == 0


def test_an_append_in_two_parts_continues_the_game(backend, games):
    g = games[0]
    with backend.open() as store:
        assert store.append(g.game_id, g.events[:10], 0) == 10
        assert store.append(g.game_id, g.events[10:], 10) == len(g.events)
        assert store.read(g.game_id) == g.events
        assert store.verify() == []


def test_a_stale_expected_version_raises_and_writes_nothing(backend, games):
    g = games[0]
    with backend.open() as store:
        store.append(g.game_id, g.events[:10], 0)
        before = store.last_position()
        with pytest.raises(ConcurrencyError) as err:
            store.append(g.game_id, g.events[10:], 9)
        assert (err.value.expected, err.value.actual) == (9, 10)
        with pytest.raises(ConcurrencyError):
            store.append(g.game_id, g.events[10:], 11)
        assert store.version(g.game_id) == 10
        assert store.last_position() == before
        assert store.games()[0]["events"] == 10


def test_a_retried_command_id_is_recorded_once(backend, games):
    g = games[0]
    with backend.open() as store:
        store.append(g.game_id, g.events[:10], 0)
        knock = Knocked(player=g.events[0].players[0])
        assert store.append(g.game_id, g.events[10:12], 10, command_id="cmd-1") == 12
        # the retry, with the version the client saw before: the same answer, nothing written
        assert store.append(g.game_id, g.events[10:12], 10, command_id="cmd-1") == 12
        assert store.append(g.game_id, [knock], 10, command_id="cmd-1") == 12
        assert store.version(g.game_id) == 12
        assert [r.command_id for r in store.records(g.game_id)][10:] == ["cmd-1", "cmd-1"]


def test_a_game_must_start_with_its_own_game_started(backend, games):
    a, b = games[0], games[1]
    with backend.open() as store:
        with pytest.raises(StoreError, match="first event must be game_started"):
            store.append(a.game_id, a.events[1:], 0)
        with pytest.raises(StoreError, match="cannot be appended to game"):
            store.append(b.game_id, a.events, 0)
        store.append(a.game_id, a.events, 0)
        with pytest.raises(StoreError, match="a second game_started"):
            store.append(a.game_id, a.events[:1], len(a.events))
        with pytest.raises(StoreError, match="not an event"):
            store.append(b.game_id, [b.events[0], "knock"], 0)
        assert store.game_ids() == [a.game_id]


def test_update_and_delete_are_refused_by_the_database(sql_backend, games):
    backend = sql_backend
    backend.record(games[:1])
    with pytest.raises(backend.refusal, match="append-only: UPDATE"):
        backend.raw("UPDATE events SET payload = '{}' WHERE seq = 2")
    with pytest.raises(backend.refusal, match="append-only: DELETE"):
        backend.raw("DELETE FROM events")
    with backend.open(create=False) as store:
        assert store.read(games[0].game_id) == games[0].events


def test_reopening_applies_no_migration_twice_and_keeps_the_events(backend, games):
    backend.record(games[:1])
    backend.record([])
    with backend.open(create=False) as store:
        assert store.read(games[0].game_id) == games[0].events


def test_a_missing_store_is_not_created_when_asked_not_to(backend):
    with pytest.raises(StoreError, match="no tonk store"):
        backend.open(create=False)


def test_an_ended_game_takes_no_more_events(backend, games):
    g = games[0]  # ended
    with backend.open() as store:
        store.append(g.game_id, g.events, 0)
        with pytest.raises(StoreError, match="has ended"):
            store.append(g.game_id, [Knocked(player=g.events[0].players[0])], len(g.events))
        assert store.version(g.game_id) == len(g.events)


def test_a_read_only_store_reads_and_writes_nothing(backend, games):
    backend.record(games[:1])
    with backend.open(create=False, read_only=True) as store:
        assert store.read(games[0].game_id) == games[0].events
        before = store.last_position()
        with pytest.raises(StoreError):
            store.append(games[1].game_id, games[1].events, 0)
        assert store.game_ids() == [games[0].game_id] and store.last_position() == before


def test_an_import_refused_midway_writes_none_of_its_games(backend, games):
    """The import's one transaction: the second game is refused (it got events meanwhile),
    so the first, already written inside the transaction, is gone too."""
    a, b = games[0], games[1]
    with open_store(":memory:") as source:  # any store gives the records to import
        for g in (a, b):
            source.append(g.game_id, g.events, 0)
        batch = [(g.game_id, list(source.records(g.game_id)), g.events) for g in (a, b)]
    with backend.open() as store:
        store.append(b.game_id, b.events[:3], 0)
        before = (store.last_position(), store.games(), store.game_ids())
        with pytest.raises(StoreError, match="stored by another writer"):
            store.import_games(batch)
        assert (store.last_position(), store.games(), store.game_ids()) == before
        store.import_games(batch[:1])
        assert [r.hash for r in store.records(a.game_id)] == [r.hash for r in batch[0][1]]
        assert store.read(a.game_id) == a.events and store.verify() == [] and store.projection_findings() == []


def test_a_nul_in_a_command_id_or_game_id_is_refused_alike_and_names_no_game(backend, games):
    """PostgreSQL's text holds no NUL: every back end refuses an id holding one on append (the
    same error), and asked for such an id, answers that there is no such game (PostgreSQL
    refused to be asked: 'cannot read the store')."""
    g = games[0]
    with backend.open() as store:
        with pytest.raises(StoreError, match=r"a command id must be text \(UTF-8\) without NUL \(U\+0000\), not 'a\\x00b'"):
            store.append(g.game_id, g.events, 0, "a\x00b")
        with pytest.raises(StoreError, match=r"a game id must be text without NUL \(U\+0000\)"):
            store.append(g.game_id + "\x00", g.events, 0)
        assert store.game_ids() == [] and store.last_position() == 0
        store.append(g.game_id, g.events, 0, "c1")
        ghost = g.game_id + "\x00"
        assert store.version(ghost) == 0 and store.hash_rows(ghost) == [] and store.last_hash(ghost) is None
        for read in (store.read, store.verify, lambda gid: list(store.iter_events(gid)), lambda gid: list(store.records(gid))):
            with pytest.raises(UnknownGame):
                read(ghost)
        with pytest.raises(UnknownGame):
            list(store.iter_verified_games([ghost]))
        assert store.games(player="ann\x00") == [] and store.games(variant="x\x00") == []
        assert SeatStore(store).settings(ghost) is None and SeatStore(store).seat_for(ghost, "token") is None


def test_an_import_of_a_command_id_holding_nul_is_refused_naming_the_line(backend, games, tmp_path):
    """The same refusal on every back end, before anything is written (PostgreSQL alone
    refused it, at the write, naming no line; SQLite and memory stored it)."""
    g = games[0]
    with open_store(":memory:") as source:
        source.append(g.game_id, g.events, 0, "c1")
        out = io.BytesIO()
        export_games(source, None, out)
    f = tmp_path / "nul.jsonl"
    f.write_bytes(out.getvalue().replace(b'"command_id":"c1"', b'"command_id":"c\\u00001"'))
    with backend.open() as store:
        with pytest.raises(ImportRefused, match=r"nul.jsonl:2: command_id 'c\\x001' holds NUL \(U\+0000\), which no store keeps"):
            import_file(store, f)
        assert store.game_ids() == []
