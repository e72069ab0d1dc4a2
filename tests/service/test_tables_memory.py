"""What a server keeps in memory is bounded: the folded tables are a cache of at most
``cache_limit`` (tables with a running turn timer aside), and listing the tables folds none."""

from __future__ import annotations

import random

from seating import sit_at  # tests/support
from tonk.application.table_types import TableSettings
from tonk.application.tables import Tables
from tonk.storage.open import open_store


def play_some(tables: Tables, table_id: str, seat_of: dict[str, str], rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        for seat in seat_of.values():
            v = tables.view(table_id, seat)
            if v.legal:
                cmd = rng.choice(v.legal)
                fields = {k: val for k, val in cmd.items() if k not in ("action", "player")}
                tables.act(table_id, seat, cmd["action"], fields, v.version, f"{table_id}-{v.version}")
                break
        else:
            return


def test_the_table_cache_keeps_at_most_its_limit_and_a_dropped_table_comes_back_whole(tmp_path):
    with open_store(tmp_path / "t.db") as store:
        tables = Tables(store)
        tables.cache_limit = 3
        rng = random.Random(5)
        created = [sit_at(tables, tables.create(TableSettings(seats=("ann", "bob"), hand_limit=3))) for _ in range(6)]
        # no hand limit: its game is in play whatever the deck (three hands could all end at the deal)
        timed = sit_at(tables, tables.create(TableSettings(seats=("ann", "bob"), turn_timer=60)))
        for c in created:
            play_some(tables, c.table, {s: s for s in ("ann", "bob")}, rng, 5)
            assert len(tables._cache) <= tables.cache_limit + 1  # + the timed table in play
        assert timed.table in tables._cache  # its timer walks the cache: never dropped while in play
        before = {c.table: tables.view(c.table, "ann") for c in created}
        fresh = Tables(store)  # every table folded again from the store
        assert {c.table: fresh.view(c.table, "ann") for c in created} == before
        assert len(tables._cache) <= tables.cache_limit + 1


def test_listing_the_tables_folds_none_and_says_what_their_views_say(tmp_path):
    with open_store(tmp_path / "t.db") as store:
        tables = Tables(store)
        rng = random.Random(8)
        made = [sit_at(tables, tables.create(TableSettings(seats=("ann", "bob", "cy"), bots={"cy": "greedy"}, hand_limit=2))) for _ in range(3)]
        for c in made:
            play_some(tables, c.table, {"ann": "ann", "bob": "bob"}, rng, 8)
        tables.close(made[0].table, "@host")
        fresh = Tables(store)
        listed = fresh.listing()
        assert fresh._cache == {}  # nothing folded to list them
        assert [t["table"] for t in listed] == [c.table for c in made]
        for t in listed:
            v = fresh.view(t["table"], "ann")
            state = fresh.table(t["table"]).game.state
            assert (t["players"], t["bots"], t["status"], t["version"], t["hand_no"]) == (["ann", "bob", "cy"], {"cy": "greedy"}, v.status, v.version, state.hand_no)
