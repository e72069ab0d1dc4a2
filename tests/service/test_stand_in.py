"""The turn timer's stand-in: greedy unless the host names another bot (``stand_in``); the
server plays any bot, the expert included, in a seat or as the stand-in."""

from __future__ import annotations

import pytest
from seating import sit_at

from tonk.application.table_types import TableSettings
from tonk.application.tables import Tables
from tonk.core import bots as core_bots
from tonk.core.bots import GreedyBot
from tonk.core.errors import SetupError
from tonk.storage.open import open_store


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class SpyBot(GreedyBot):
    """Plays greedy and notes each seat it played for."""

    name = "spy"
    played: list[str] = []

    def choose(self, view, legal, rng):
        SpyBot.played.append(view.viewer)
        return super().choose(view, legal, rng)


def _timed_out_turn(tables: Tables, clock: Clock, **settings) -> str | None:
    """A table with a turn timer whose seat to act lets its time run out; the seat, or None
    when the deal ended the only hand."""
    created = sit_at(tables, tables.create(TableSettings(seats=["ann", "bob"], hand_limit=1, turn_timer=5, **settings)))
    state = tables.table(created.table).game.state
    if not state.in_hand:
        return None
    seat = state.to_act
    clock.now += 6
    assert tables.expire_turns() == 1
    return seat


@pytest.mark.parametrize("stand_in", [None, "spy"])
def test_the_stand_in_is_greedy_unless_the_host_names_a_bot(tmp_path, monkeypatch, stand_in):
    monkeypatch.setitem(core_bots.BOTS, "spy", SpyBot)
    SpyBot.played = []
    clock = Clock()
    with open_store(tmp_path / "t.db") as store:
        tables = Tables(store, clock=clock)
        extra = {"stand_in": stand_in} if stand_in else {}
        for _ in range(10):
            seat = _timed_out_turn(tables, clock, **extra)
            if seat is not None:
                break
        else:
            raise AssertionError("ten deals in a row ended the hand")
    if stand_in is None:
        assert SpyBot.played == []
    else:
        assert SpyBot.played and set(SpyBot.played) == {seat}


def test_an_unknown_stand_in_is_refused(tmp_path):
    with open_store(tmp_path / "t.db") as store:
        with pytest.raises(SetupError, match="stand_in: 'nobody'"):
            Tables(store).create(TableSettings(seats=["ann", "bob"], turn_timer=5, stand_in="nobody"))


def test_the_expert_plays_a_seat_and_stands_in(tmp_path):
    clock = Clock()
    with open_store(tmp_path / "t.db") as store:
        tables = Tables(store, clock=clock)
        for _ in range(10):  # the deal can end the only hand (an initial tonk, cy's knock): another
            created = sit_at(tables, tables.create(TableSettings(seats=["ann", "bob", "cy"], bots={"cy": "expert"}, hand_limit=1, turn_timer=5, stand_in="expert")))
            table = tables.table(created.table)
            if table.game.state.in_hand:
                break
        else:
            raise AssertionError("ten deals in a row ended the hand")
        state = table.game.state
        # the timer plays every turn of ann and bob, the expert cy's; how many turns the hand
        # lasts is the deck's (the bound is only a net against a hand that never ends)
        for _ in range(1000):
            if not state.in_hand:
                break
            clock.now += 6
            tables.expire_turns()
        assert not state.in_hand


def test_a_rematch_keeps_the_hosts_stand_in(tmp_path):
    """The rematch is the same table again (docs/http-api.md, Rematch): its turn timer's
    stand-in is the one the host named, not greedy again."""
    import msgspec

    from tonk.application.tables import HOST
    from tonk.core.events import GameEnded
    from tonk.core.legal import legal_actions

    with open_store(tmp_path / "t.db") as store:
        tables = Tables(store)
        created = sit_at(tables, tables.create(TableSettings(seats=["ann", "bob"], hand_limit=1, turn_timer=5, stand_in="expert")))
        ended = tables.table(created.table)
        if type(ended.game.events[-1]) is not GameEnded:  # (the deal may have ended the only hand)
            tables.close(created.table, HOST)
        while ended.game.state.in_hand:  # the hand in play ends first: the seat to act knocks
            state = ended.game.state
            legal = legal_actions(state, ended.game.ruleset)
            moves = [msgspec.to_builtins(a) for a in legal]  # as the view's legal entries are
            move = next((m for m in moves if m["action"] == "knock"), moves[0])
            fields = {k: v for k, v in move.items() if k not in ("action", "player") and v not in (None, {})}
            version = len(ended.game.events)
            tables.act(created.table, state.to_act, move["action"], fields, version, f"c{version}")
        again = tables.rematch(created.table, HOST)
        assert tables.table(again.table).settings.stand_in == "expert"
