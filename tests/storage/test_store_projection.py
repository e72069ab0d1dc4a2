"""The games projection: maintained on append, equal to its rebuild from the events alone."""

from __future__ import annotations

from tonk.storage import EventStore


def append_command_by_command(store, game) -> None:
    version = 0
    for e in game.events:
        version = store.append(game.game_id, [e], version)


def test_rows_say_what_each_game_is(db, games, record):
    record(db, games)
    with EventStore.open(db) as store:
        rows = {r["game_id"]: r for r in store.games()}
    assert set(rows) == {g.game_id for g in games}
    for g in games:
        r = rows[g.game_id]
        start = g.events[0]
        assert r["players"] == list(start.players)
        assert r["variants"] == list(start.ruleset.variants)
        assert r["options"] == dict(start.ruleset.options)
        assert r["hands"] == sum(type(e).__name__ == "HandDealt" for e in g.events)
        assert r["net"] == g.net
        assert sum(r["net"].values()) == 0
        assert r["events"] == len(g.events)
        assert r["started_at"]
        ended = type(g.events[-1]).__name__ == "GameEnded"
        assert r["status"] == ("ended" if ended else "open")
        assert (r["ended_at"] is not None) == ended
    assert rows[games[2].game_id]["variants"] == ["hit-penalty"]


def test_filters_by_player_and_variant(db, games, record, play):
    other = play(21, hands=1, players=("dee", "ann"))
    record(db, games + [other])
    with EventStore.open(db) as store:
        assert {r["game_id"] for r in store.games(player="dee")} == {other.game_id}
        assert len(store.games(player="ann")) == len(games) + 1
        assert store.games(player="nobody") == []
        assert [r["game_id"] for r in store.games(variant="hit-penalty")] == [games[2].game_id]
        assert store.games(variant="hit-penalty", player="dee") == []


def test_rebuild_equals_incremental_whole_and_command_by_command(db, games):
    with EventStore.open(db) as store:
        store.append(games[0].game_id, games[0].events, 0)
        append_command_by_command(store, games[1])
        # one game in several batches, the last still open
        g = games[3]
        cut = len(g.events) // 2
        store.append(g.game_id, g.events[:cut], 0)
        store.append(g.game_id, g.events[cut:], cut)
        incremental = store.games()
        store.rebuild_projection()
        assert store.games() == incremental
        assert len(incremental) == 3


def test_rebuild_restores_a_damaged_projection(db, games, record, raw_conn):
    record(db, games)
    with EventStore.open(db) as store:
        good = store.games()
    conn = raw_conn(db)
    conn.execute("DELETE FROM games WHERE game_id = ?", (games[0].game_id,))
    conn.execute("UPDATE games SET net = '{}', hands = 99")
    conn.execute(
        "INSERT INTO games VALUES ('ghost', '2020-01-01T00:00:00Z', NULL, '[]', '[]', '{}', 0, '{}', 'open', 0)"
    )
    conn.close()
    with EventStore.open(db) as store:
        assert store.games() != good
        store.rebuild_projection()
        assert store.games() == good


def test_rebuild_of_an_empty_store(db):
    with EventStore.open(db) as store:
        store.rebuild_projection()
        assert store.games() == []
