"""The PostgreSQL store's appends in one round trip (``storage/postgres_append.py``) and its
follower's read-ahead: the same rows, the same answers and the same refusals as the usual
way, whatever another writer did in between."""

from __future__ import annotations

import pytest

from tonk.storage import postgres
from tonk.storage.errors import ConcurrencyError, StoreError
from tonk.storage.open import open_store

pytestmark = pytest.mark.postgres


@pytest.fixture
def trips(monkeypatch):
    """How many appends ``tonk_append`` stored (``one_trip`` answering rows)."""
    done = []
    real = postgres.one_trip

    def counted(*args, **kw):
        got = real(*args, **kw)
        done.append(got is not None)
        return got

    monkeypatch.setattr(postgres, "one_trip", counted)
    return done


def test_appends_after_the_stores_own_take_one_statement_and_store_what_the_usual_way_stores(pg_url, games, trips):
    g = games[0]
    with open_store(pg_url) as store:
        cut = [0, 1, 4, 9, 10, len(g.events)]
        for lo, hi in zip(cut, cut[1:]):
            assert store.append(g.game_id, g.events[lo:hi], lo, command_id=f"c{lo}") == hi
        assert trips == [True] * 5  # a new game, then this store's own last row each time
        assert store.read(g.game_id) == g.events
        assert store.verify() == [] and store.projection_findings() == []
        assert [p for p, _, _ in store.appended_after(0)] == list(range(1, len(g.events) + 1))
        records = list(store.records(g.game_id))
        assert [r.command_id for r in records] == [f"c{lo}" for lo, hi in zip(cut, cut[1:]) for _ in range(lo, hi)]
        assert len({r.recorded_at for r in records}) == 5


def test_another_writer_in_between_sends_the_append_the_usual_way_with_its_answers(pg_url, games, trips):
    g = games[0]
    with open_store(pg_url) as a, open_store(pg_url) as b:
        a.append(g.game_id, g.events[:3], 0)
        b.append(g.game_id, g.events[3:5], 3)
        with pytest.raises(ConcurrencyError):  # a's last row is not the game's any more
            a.append(g.game_id, g.events[3:5], 3)
        assert a.append(g.game_id, g.events[5:8], 5) == 8  # read under the lock, the usual way
        assert a.append(g.game_id, g.events[8:10], 8, command_id="x") == 10  # its own again: one trip
        assert a.appended(g.game_id, 10)
        assert b.append(g.game_id, g.events[8:10], 8, command_id="x") == 10  # a retried command id: nothing written
        assert not b.appended(g.game_id, 10)
        b.append(g.game_id, g.events[10:12], 10, command_id="y")
        assert a.append(g.game_id, g.events[10:12], 10, command_id="y") == 12  # b's retry reaching a: nothing written
        assert not a.appended(g.game_id, 12)
        assert trips == [True, False, True, False]
        assert a.read(g.game_id) == g.events[:12] and a.verify() == [] and a.projection_findings() == []
        assert [p for p, _, _ in a.appended_after(0)] == list(range(1, 13))


def test_the_rules_refuse_the_same_on_the_one_trip(pg_url, games):
    ended, live = games[0], games[3]
    with open_store(pg_url) as store:
        store.append(ended.game_id, ended.events, 0)
        with pytest.raises(StoreError, match="has ended"):
            store.append(ended.game_id, live.events[1:2], len(ended.events))
        store.append(live.game_id, live.events[:2], 0)
        with pytest.raises(StoreError, match="second game_started"):
            store.append(live.game_id, live.events[:1], 2)
        assert store.version(ended.game_id) == len(ended.events) and store.version(live.game_id) == 2


def test_the_follower_reads_ahead_while_it_waits_and_its_next_reads_need_no_round_trip(pg_url, games, monkeypatch):
    a_game, b_game = games[0], games[1]
    with open_store(pg_url) as follower, open_store(pg_url) as writer:
        assert follower.appended_after(follower.last_position()) == []  # where the follower is
        assert follower.wait_for_append(0.01) is False  # listening now
        writer.append(a_game.game_id, a_game.events, 0)
        writer.append(b_game.game_id, b_game.events, 0)
        assert follower.wait_for_append(60) is True
        truth = writer.appended_after(0)

        def no_read(*args, **kw):
            raise AssertionError("a round trip")

        with monkeypatch.context() as m:
            m.setattr(follower, "_all", no_read)
            got = follower.appended_after(0, limit=7)
            got += follower.appended_after(got[-1][0])
            assert follower.appended_after(got[-1][0]) == []  # all there was when it read ahead
        assert got == truth
        writer.append(games[2].game_id, games[2].events, 0)
        assert follower.appended_after(got[-1][0]) == writer.appended_after(got[-1][0]) != []  # read now
        assert follower.appended_after(3, limit=7) == truth[3:10]  # asked elsewhere: read now


def test_a_side_table_write_goes_out_whole_with_commit_and_a_read_inside_it_takes_the_lock_first(pg_url):
    """The writes of ``statements_write`` wait for its next read or its end (one round trip
    then, the append lock held only while the server runs it); a read inside sees the writes
    before it and holds the lock from then on; a failure stores nothing."""
    import psycopg

    with open_store(pg_url) as store, psycopg.connect(pg_url, autocommit=True) as other:
        store.seat_tables()  # the side tables exist

        def locked_elsewhere() -> bool:
            try:
                with other.transaction():
                    other.execute("SELECT last FROM event_position FOR UPDATE NOWAIT")
                return False
            except psycopg.errors.LockNotAvailable:
                return True

        with store.statements_write() as sql:
            sql.execute("INSERT INTO served_tables (game_id, settings) VALUES (?, ?)", ("t1", "{}"))
            assert not locked_elsewhere()  # nothing sent yet
        assert other.execute("SELECT settings FROM served_tables WHERE game_id = 't1'").fetchone() == ("{}",)
        with store.statements_write() as sql:
            sql.executemany("INSERT INTO seat_tokens (game_id, seat, token_hash) VALUES (?, ?, ?)", [("t1", "ann", "a" * 64), ("t1", "bob", "b" * 64)])
            assert sql.execute("SELECT count(*) FROM seat_tokens WHERE game_id = ?", ("t1",)).fetchone() == (2,)
            assert locked_elsewhere()
        with pytest.raises(StoreError, match="nothing of this write is stored"):
            with store.statements_write() as sql:
                sql.execute("UPDATE served_tables SET settings = ? WHERE game_id = ?", ('{"a": 1}', "t1"))
                sql.execute("INSERT INTO served_tables (game_id, settings) VALUES (?, ?)", ("t1", "{}"))  # a second t1
        assert other.execute("SELECT settings FROM served_tables WHERE game_id = 't1'").fetchone() == ("{}",)
        assert not locked_elsewhere()
        with store.statements_write() as sql:  # the pooled connection came back clean
            sql.execute("UPDATE served_tables SET settings = ? WHERE game_id = ?", ('{"b": 2}', "t1"))
        assert other.execute("SELECT settings FROM served_tables WHERE game_id = 't1'").fetchone() == ('{"b": 2}',)
