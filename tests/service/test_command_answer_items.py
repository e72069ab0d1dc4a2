"""A command's answer lists its events as the seat's stream gives them: each is what
``msgspec.to_builtins`` makes of :meth:`Tables.item` for that seat (hidden cards hidden, a
``hand_ended`` with its deal revealed), whichever seat asks."""

from __future__ import annotations

import random

import msgspec

from seating import sit_at  # tests/support
from tonk.application.table_types import TableSettings
from tonk.application.tables import Tables
from tonk.core.events import HandDealt, HandEnded
from tonk.storage.open import open_store


def test_a_commands_events_are_the_seats_stream_items(tmp_path):
    with open_store(tmp_path / "t.db") as store:
        tables = Tables(store)
        for _ in range(20):  # the deck can end all three hands before a person acts: no command then
            created = sit_at(tables, tables.create(TableSettings(seats=("ann", "bob", "cy"), bots={"cy": "random"}, hand_limit=3)))
            if tables.table(created.table).status == "playing":
                break
        else:
            raise AssertionError("20 tables in a row ended their game before any person acted")
        rng = random.Random(7)
        kinds: set[type] = set()
        while tables.table(created.table).status != "ended":
            seat = tables.table(created.table).game.state.to_act
            v = tables.view(created.table, seat)
            cmd = rng.choice(v.legal)
            fields = {k: val for k, val in cmd.items() if k not in ("action", "player")}
            answer = tables.act(created.table, seat, cmd["action"], fields, v.version, f"c{v.version}")
            table = tables.table(created.table)
            seqs = range(v.version + 1, answer.version + 1)
            for viewer in ("ann", "bob"):
                expected = [msgspec.to_builtins(tables.item(table, s, viewer)) for s in seqs]
                assert tables._result(table, viewer, answer.command_id, (seqs[0], seqs[-1])).events == expected
            assert answer.events == [msgspec.to_builtins(tables.item(table, s, seat)) for s in seqs]
            kinds.update(type(table.game.events[s - 1]) for s in seqs)
        assert {HandDealt, HandEnded} <= kinds  # hidden cards and revealed deals were among them
