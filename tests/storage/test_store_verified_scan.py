"""``EventStore.iter_verified_games``: one pass that checks the chain while decoding, with the
same findings as ``verify`` and the same events (and decode errors) as ``iter_events``."""

from __future__ import annotations

import pytest

from tonk.storage import EventStore, StoreError, UnknownGame


def reference(store: EventStore, gid: str):
    """What the two reference paths say of one game."""
    events, error = [], None
    try:
        for _, e in store.iter_events(gid):
            events.append(e)
    except StoreError as exc:
        error = str(exc)
    return store.verify(gid), events, error, store.version(gid)


def plain(g):
    return (g.game_id, g.events, g.version, g.chain, str(g.decode_error) if g.decode_error else None)


def check_same(db) -> list:
    with EventStore.open(db, create=False) as store:
        scanned = list(store.iter_verified_games())
        assert [g.game_id for g in scanned] == store.game_ids()
        assert store.game_count() == len(scanned)
        for g in scanned:
            chain, events, error, version = reference(store, g.game_id)
            assert g.chain == chain
            assert g.events == events
            assert (str(g.decode_error) if g.decode_error else None) == error
            assert g.version == version
            assert g.intact == (not chain and error is None)
        named = list(store.iter_verified_games([g.game_id for g in reversed(scanned)]))
        assert [plain(g) for g in named] == [plain(g) for g in scanned[::-1]]
        return scanned


def test_an_untampered_store_is_read_whole_and_intact(db, games, record):
    record(db, games)
    scanned = check_same(db)
    assert all(g.intact for g in scanned)
    assert [g.events for g in scanned] == [list(game.events) for game in sorted(games, key=lambda x: x.game_id)]


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE events SET payload = replace(payload, '\"card\":\"', '\"card\":\"X') WHERE game_id = ? AND seq = 5",
        "UPDATE events SET prev_hash = '" + "1" * 64 + "' WHERE game_id = ? AND seq = 4",
        "UPDATE events SET hash = '" + "2" * 64 + "' WHERE game_id = ? AND seq = 3",
        "DELETE FROM events WHERE game_id = ? AND seq = 6",
        "UPDATE events SET type = 'knocked' WHERE game_id = ? AND seq = 7",
        "UPDATE events SET payload = 'not json' WHERE game_id = ? AND seq = 8",
        "UPDATE events SET payload = '{\"type\":\"card_drawn\"}' WHERE game_id = ? AND seq = 9",
        "UPDATE events SET payload = 'not json' WHERE game_id = ? AND seq = 1",
        "DELETE FROM events WHERE game_id = ? AND seq = 1",
        "UPDATE events SET game_id = 'zzz' WHERE game_id = ? AND seq > 10",
    ],
)
def test_a_tampered_game_gets_the_reference_findings(db, games, record, sql, tamper):
    record(db, games)
    tamper(db, sql, games[1].game_id)
    scanned = check_same(db)
    assert not all(g.intact for g in scanned)
    # the other games are untouched
    assert sum(not g.intact for g in scanned) == 1


def test_an_unknown_game_is_refused(db, games, record):
    record(db, games[:1])
    with EventStore.open(db, create=False) as store:
        with pytest.raises(UnknownGame):
            list(store.iter_verified_games(["nope"]))
