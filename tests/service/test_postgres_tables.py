"""Two nodes' ``Tables`` on one PostgreSQL store, or two processes' on one SQLite file,
without a server: a node decides a command on its cached fold without asking the store first
(PostgreSQL has no cheap mark of other nodes' commits; SQLite's costs a read transaction), so
each way that fold can be behind the store must still give the answer the store's state gives."""

from __future__ import annotations

import secrets

import msgspec
import pytest

from tonk.application.table_types import StaleVersion, TableSettings
from tonk.application.tables import Tables
from tonk.core.commands import Discard, DrawStock
from tonk.storage.open import open_store



class Picks:
    """A bot that draws from the stock, then discards the first (or the last) card it may."""

    uses_view = False

    def __init__(self, last: bool):
        self.last = last

    def choose(self, view, legal, rng):
        draws = [c for c in legal if isinstance(c, DrawStock)]
        if draws:
            return draws[0]
        discards = [c for c in legal if isinstance(c, Discard)]
        return discards[-1] if self.last else discards[0]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def nodes(request, tmp_path):
    """Two ``Tables`` on one store, each with its own connection (two nodes, or two processes)."""
    target = str(tmp_path / "tonk.db") if request.param == "sqlite" else request.getfixturevalue("pg_url")
    with open_store(target, durable=False) as a, open_store(target, durable=False) as b:
        yield Tables(a), Tables(b)


def test_a_sqlite_node_decides_a_command_without_asking_for_other_processes_commits(tmp_path, monkeypatch):
    """The command is decided on the cached fold: no ``PRAGMA data_version`` (a read
    transaction) before it; the view that follows it asks, as every read does."""
    with open_store(str(tmp_path / "tonk.db"), durable=False) as store:
        node = Tables(store)
        table = _table(node)
        asked: list[int] = []
        mark = node._others
        assert mark is not None
        monkeypatch.setattr(node, "_others", lambda: asked.append(1) or mark())
        drew = _act(node, table, DrawStock("ann"), node.table(table).version, "d1")
        assert asked == [] and drew.version > 0
        node.view(table, "ann")
        assert asked == [1]


def _table(a: Tables) -> str:
    """A table of ann and a bot (bob), dealt, with ann to start a turn."""
    for _ in range(50):  # a deal whose first turn ends the hand (a tonk) is dealt again
        created = a.create(TableSettings(seats=["ann", "bob"], bots={"bob": "random"}, hand_limit=5))
        a.sit(created.table, "ann", secrets.token_hex(32))
        state = a.table(created.table).game.state
        if state.in_hand and state.to_act == "ann" and state.drew is None:
            return created.table
    raise AssertionError("no deal left ann to act")


def _act(node: Tables, table: str, command, version: int, command_id: str):
    fields = {k: v for k, v in msgspec.to_builtins(command).items() if k not in ("action", "player")}
    return node.act(table, "ann", msgspec.to_builtins(command)["action"], fields, version, command_id)


def test_a_command_id_another_node_recorded_is_answered_as_that_nodes_even_when_this_nodes_events_differ(nodes):
    """Node b's fold is behind: node a applied ann's discard (and its bot's turn after it) with
    command id x.  The retry of x reaching b is answered with a's events, never with b's own
    decision of the bot's turn (same count of events, other cards), and b's fold is the store's."""
    a, b = nodes
    table = _table(a)
    drew = _act(a, table, DrawStock("ann"), a.table(table).version, "d1")
    b.table(table)  # b folds the table now: current
    a.table(table).bots["bob"] = Picks(last=False)
    b.table(table).bots["bob"] = Picks(last=True)
    card = next(c for c in a.view(table, "ann").legal if c["action"] == "discard")["card"]
    first = _act(a, table, Discard("ann", card), drew.version, "x")
    again = _act(b, table, Discard("ann", card), drew.version, "x")
    assert again == first
    assert b.view(table, "ann") == a.view(table, "ann")


def test_a_node_behind_the_store_takes_the_command_of_a_client_that_saw_the_newer_version(nodes):
    a, b = nodes
    table = _table(a)
    b.table(table)
    drew = _act(a, table, DrawStock("ann"), a.table(table).version, "d1")  # b's fold is behind now
    card = next(c for c in a.view(table, "ann").legal if c["action"] == "discard")["card"]
    done = _act(b, table, Discard("ann", card), drew.version, "d2")
    assert done.version > drew.version
    assert a.view(table, "ann") == b.view(table, "ann")


def test_a_node_behind_the_store_refuses_a_stale_version_with_the_current_one(nodes):
    """The client and node b saw the same old version: a 409 naming the store's version, not
    an answer decided on b's old fold (nor a 422 for a command the old fold would refuse)."""
    a, b = nodes
    table = _table(a)
    before = b.table(table).version
    drew = _act(a, table, DrawStock("ann"), before, "d1")
    with pytest.raises(StaleVersion) as stale:
        _act(b, table, DrawStock("ann"), before, "d2")
    assert stale.value.extra["current_version"] == drew.version
    card = next(c for c in a.view(table, "ann").legal if c["action"] == "discard")["card"]
    b2 = Tables(b.store)
    b2.table(table)
    a.act(table, "ann", "discard", {"card": card}, drew.version, "d3")  # b2's fold is behind, ann to draw again
    with pytest.raises(StaleVersion) as stale:  # a discard before drawing: illegal on b2's old fold too
        b2.act(table, "ann", "discard", {"card": card}, drew.version, "d4")
    assert stale.value.extra["current_version"] == a.table(table).version


@pytest.mark.parametrize("command_id", ["a\x00b", "line\nbreak", "tab\there", "\x1b[31m"], ids=["nul", "newline", "tab", "escape"])
def test_a_command_id_with_a_control_character_is_refused_and_changes_nothing(nodes, command_id):
    """docs/http-api.md: a ``command_id`` is text chosen by the client and stored with the events.
    One with a control character (a NUL cannot even be stored in PostgreSQL's text) is a clear
    error naming the field (a 400 over HTTP), on every store, and applies nothing."""
    from tonk.application.table_types import TableError

    a, _ = nodes
    table = _table(a)
    version = a.table(table).version
    with pytest.raises(TableError, match="command_id must be printable text"):
        _act(a, table, DrawStock("ann"), version, command_id)
    assert a.fresh(table).version == version
    assert _act(a, table, DrawStock("ann"), version, "ok-1").version > version


def test_a_version_ahead_of_the_table_is_named_as_ahead_not_stale(nodes):
    """The 409 of a version the table has not reached says so (a client that counted wrong),
    and one it has passed says it is stale; both give the table's version."""
    a, _ = nodes
    table = _table(a)
    version = a.table(table).version
    with pytest.raises(StaleVersion, match=f"version {version + 3} is ahead of the table: the table is at version {version}"):
        _act(a, table, DrawStock("ann"), version + 3, "ahead")
    with pytest.raises(StaleVersion, match=f"version {version - 1} is stale: the table is at version {version}"):
        _act(a, table, DrawStock("ann"), version - 1, "behind")
