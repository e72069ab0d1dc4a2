"""The served tables' rematch operations on every back end: a table's settings replaced (the
link to its rematch), and a seat's token hash recorded only when the seat has none."""

from __future__ import annotations

from tonk.storage.seats import SeatStore, token_hash


def test_a_rematch_link_and_a_seats_token_recorded_once(backend):
    with backend.open() as store:
        seats = SeatStore(store)
        seats.register("old", {"bots": {}}, {"@host": "h1", "ann": "a1"})
        seats.register("new", {"bots": {}, "rematch_of": "old"}, {"@host": "h2"})
        seats.link_rematch("old", "new")
        assert seats.settings("old") == {"bots": {}, "rematch": "new"}
        assert seats.seat_for("new", "a2") is None
        seats.add_token("new", "ann", "a2")
        seats.add_token("new", "ann", "someone-else")  # the first recorded stays
        assert seats.seat_for("new", "a2") == "ann" and seats.seat_for("new", "someone-else") is None
        assert seats.token_hash_of("new", "ann") == token_hash("a2")
        assert seats.seat_for("old", "a1") == "ann" and seats.seat_for("old", "a2") is None
