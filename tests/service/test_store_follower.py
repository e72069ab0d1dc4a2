"""The store follower on SQLite reads back only what another connection committed: a node's own
appends are in its folds already (its listeners were told at the append), so ``catch_up`` has
nothing to read for them; another node's appends it reads and tells."""

from __future__ import annotations

import random

from tonk.storage import EventStore

from .test_streams import _play_one, _table_with_a_turn


def test_catch_up_skips_this_nodes_own_appends_and_reads_another_nodes(tmp_path):
    from tonk.application.tables import Tables

    with EventStore.open(tmp_path / "s.db", create=True) as store_a, EventStore.open(tmp_path / "s.db") as store_b:
        a, b = Tables(store_a), Tables(store_b)
        a.catch_up()
        created = _table_with_a_turn(a, seats=["ann", "bob"], hand_limit=3)
        gid, rng = created.table, random.Random(4)
        assert a.catch_up() == 0  # only a's own appends: nothing to read
        assert a.position == store_a.last_position()
        told: list[int] = []
        a.table(gid).listeners.add(lambda table, first, events: told.append(first + len(events) - 1))
        b.catch_up()
        assert _play_one(b, gid, list(created.tokens), rng)  # node b plays a command
        assert b.catch_up() == 0  # b's own
        assert a.catch_up() > 0  # a reads b's append, folds the table again, tells its listeners
        assert told == [store_a.version(gid)] and a.table(gid).version == store_a.version(gid)
        assert a.view(gid, "ann").version == b.view(gid, "ann").version
