"""The per-seat event stream and the spectators' stream (Server-Sent Events)."""

from __future__ import annotations

import json
import random

import msgspec
import pytest

from seating import sit_at  # tests/support
from tonk.storage import EventStore

from .conftest import Client, auth, command_body, create_in_play, play_until_over
from .sse import SSE


@pytest.fixture(scope="module")
def server(start_module_server):
    return start_module_server("--keepalive", "0.3", "--public-rate", "0", "--max-tables-per-client", "0")


def records(server, gid):
    with EventStore.open(server.db) as store:
        return list(store.records(gid))


def play_some(client: Client, created: dict, n: int, rng: random.Random) -> None:
    for _ in range(n):
        for seat, tok in created["tokens"].items():
            v = client.view(created["table"], tok).json()
            if v["legal"]:
                r = client.act(created["table"], tok, command_body(rng.choice(v["legal"]), v["version"]))
                assert r.status_code == 200, r.text
                break


def test_a_seat_stream_starts_with_a_snapshot_then_every_event_with_its_chain_hash(server, client: Client):
    # in play once seated: the deck can end both hands before a person acts (an initial tonk,
    # cy's knock), and a stream opened then has no hand's end to send
    created = create_in_play(client, seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=2)
    gid = created["table"]
    s = SSE(f"{server.url}/tables/{gid}/events", auth(created["tokens"]["ann"]))
    assert s.status == 200
    s.wait_for(lambda s: s.messages)
    snap = s.messages[0]
    assert snap["event"] == "snapshot" and snap["data"]["seat"] == "ann"
    start = snap["data"]["version"]
    assert snap["id"] == str(start)
    play_until_over(client, created, random.Random(11))
    stored = records(server, gid)
    s.wait_for(lambda s: s.ended or (s.events() and s.events()[-1]["data"]["seq"] == len(stored)))
    evs = s.events()
    assert [m["data"]["seq"] for m in evs] == list(range(start + 1, len(stored) + 1))
    for m in evs:
        rec = stored[m["data"]["seq"] - 1]
        assert m["id"] == str(rec.seq) and m["event"] == rec.type and m["data"]["hash"] == rec.hash
    ended = [m for m in evs if m["event"] == "hand_ended"]
    assert ended and all(m["data"]["deal"]["salt"] and m["data"]["deal"]["deck"] for m in ended)
    s.close()


def test_last_event_id_resumes_without_gap_or_duplicate(server, client: Client):
    created = client.create(seats=["ann", "bob"])  # no hand limit: the game goes on
    gid = created["table"]
    rng = random.Random(2)
    play_some(client, created, 6, rng)
    first = SSE(f"{server.url}/tables/{gid}/events", {**auth(created["tokens"]["bob"]), "Last-Event-ID": "1"})
    total = len(records(server, gid))
    first.wait_for(lambda s: s.messages and s.messages[-1]["data"]["seq"] == total)
    assert [m["data"]["seq"] for m in first.messages] == list(range(2, total + 1))  # no snapshot on resume
    first.close()
    last_seen = int(first.messages[-1]["id"])
    play_some(client, created, 6, rng)
    resumed = SSE(f"{server.url}/tables/{gid}/events", {**auth(created["tokens"]["bob"]), "Last-Event-ID": str(last_seen)})
    total = len(records(server, gid))
    resumed.wait_for(lambda s: s.messages and s.messages[-1]["data"]["seq"] == total)
    seqs = [m["data"]["seq"] for m in first.messages + resumed.messages]
    assert seqs == list(range(2, total + 1))
    resumed.close()


def test_a_quiet_stream_gets_keep_alive_comments(server, client: Client):
    created = client.create(seats=["ann", "bob"])
    s = SSE(f"{server.url}/tables/{created['table']}/events", auth(created["tokens"]["ann"]))
    s.wait_for(lambda s: len(s.comments) >= 3, timeout=10)
    assert all(c == ": keep-alive" for _, c in s.comments)
    s.close()


def test_the_stream_checks_the_token_and_takes_the_session_cookie(server, client: Client):
    created = client.create(seats=["ann", "bob"])
    gid = created["table"]
    for headers in ({}, auth("wrong"), auth(created["host_token"])):
        s = SSE(f"{server.url}/tables/{gid}/events", headers)
        assert s.status in (401, 403), s.status
        assert b'"error"' in s.body
    r = client.http.post(f"/tables/{gid}/session", headers=auth(created["tokens"]["bob"]))
    assert r.status_code == 200
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and f"Path=/tables/{gid}" in cookie and "samesite=strict" in cookie.lower()
    name_value = cookie.split(";")[0]
    s = SSE(f"{server.url}/tables/{gid}/events", {"Cookie": name_value})
    s.wait_for(lambda s: s.messages)
    assert s.messages[0]["data"]["seat"] == "bob"
    s.close()
    bad = SSE(f"{server.url}/tables/{gid}/events", {"Last-Event-ID": "x", **auth(created["tokens"]["bob"])})
    assert bad.status == 400 and b"Last-Event-ID" in bad.body


def test_spectators_see_no_hidden_card_and_only_hands_that_have_ended(server, client: Client):
    for _ in range(20):  # the fair deal's deck can end the first hand at the deal (an initial tonk)
        created = client.create(seats=["ann", "bob"], hand_limit=2)
        # hand 1 itself in play: after an initial tonk hand 2 is, but hand 1 has ended and its
        # events are the spectators' at once (the snapshot is followed by them)
        if client.view(created["table"], created["tokens"]["ann"]).json()["view"]["hand_no"] == 1 and created["status"] == "playing":
            break
    else:
        raise AssertionError("20 tables in a row ended their first hand at the deal")
    gid = created["table"]
    s = SSE(f"{server.url}/tables/{gid}/spectate")
    s.wait_for(lambda s: s.messages)
    assert s.messages[0]["event"] == "snapshot"
    assert all(m["event"] in ("snapshot", "game_started") for m in s.messages)  # the first hand is in play
    rng = random.Random(9)
    with EventStore.open(server.db) as store:
        while store.read(gid)[-1].__class__.__name__ != "GameEnded":
            play_some(client, created, 1, rng)
            seen_before = list(s.messages)  # taken before the store is read: nothing later is in it
            if not any(type(e).__name__ == "HandEnded" for e in store.read(gid)):
                assert all(m["event"] in ("snapshot", "game_started") for m in seen_before)
        events = store.read(gid)
    s.wait_for(lambda s: s.ended)
    seen = s.events()
    assert [m["data"]["seq"] for m in seen] == list(range(1, len(events) + 1))
    for m in seen:
        ev = m["data"]["event"]
        if ev["type"] == "hand_dealt":
            assert ev["deck"] == [] and "salt" not in ev
            assert all(set(h) == {"??"} for h in ev["hands"].values())
            assert set(ev["stock"]) == {"??"}
        if ev["type"] == "card_drawn" and ev["source"] == "stock":
            assert ev["card"] == "??"



def test_a_stream_whose_writes_stall_is_dropped_and_unsubscribed(tmp_path):
    """The server side of a client that stopped reading: a write that does not complete in
    ``write_timeout`` ends the stream and its subscription.  (End to end over loopback the
    kernel buffers several MB before a write stalls; here the ASGI ``send`` stalls at once.)"""
    import asyncio

    from tonk.application.table_types import TableSettings
    from tonk.application.tables import Tables
    from tonk.service.app import ServiceConfig
    from tonk.service.streams import stream_app

    async def scenario():
        with EventStore.open(tmp_path / "s.db") as store:
            tables = Tables(store)
            created = sit_at(tables, tables.create(TableSettings(seats=["ann", "bob"])))
            table = tables.table(created.table)
            sent: list[dict] = []

            async def stalled_send(message):
                sent.append(message)
                if message.get("type") == "http.response.body":
                    await asyncio.sleep(3600)  # the client never takes the bytes

            async def receive():
                await asyncio.sleep(3600)
                return {"type": "http.disconnect"}

            app = stream_app(tables, ServiceConfig(write_timeout=0.3), asyncio.Event(), created.table, "ann", None)
            # the stream must end by its own write timeout: the client never reads and never
            # disconnects (the 120 s bound is only a safety net against a hang, not a speed test)
            await asyncio.wait_for(app({}, receive, stalled_send), 120)
            return table.listeners, sent

    listeners, sent = asyncio.run(scenario())
    assert not listeners
    assert sent[0]["status"] == 200 and not any(m.get("more_body") is False for m in sent)  # left unfinished: the server closes it


def _parse_sse(body: bytes) -> list[dict]:
    """The messages of a stream's bytes (comments skipped), ``data`` decoded."""
    import json

    out = []
    for block in body.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if line and not line.startswith(":"))
        if fields:
            fields["data"] = json.loads(fields["data"]) if "data" in fields else None
            out.append(fields)
    return out


def _play_one(tables, table_id: str, seats: list[str], rng: random.Random, knock: bool = True) -> bool:
    """One random legal command by the seat to act (``knock=False``: not a knock, when
    another is legal); False when the game has ended."""
    for seat in seats:
        view = tables.view(table_id, seat)
        if view.status == "ended":
            return False
        if view.legal:
            legal = dict(rng.choice([c for c in view.legal if knock or c["action"] != "knock"] or view.legal))
            action = legal.pop("action")
            legal.pop("player", None)
            fields = {k: v for k, v in legal.items() if v not in (None, {})}
            tables.act(table_id, seat, action, fields, view.version, f"c{view.version}")
            return True
    raise AssertionError("no seat may act and the game has not ended")


def _table_with_a_turn(tables, **settings):
    from tonk.application.table_types import TableSettings

    for _ in range(20):  # a secure shuffle can end the first hand at the deal (an initial tonk)
        created = sit_at(tables, tables.create(TableSettings(**settings)))
        if any(tables.view(created.table, s).legal for s in created.tokens):
            return created
    raise AssertionError("20 tables in a row ended their first hand at the deal")


def test_events_stored_while_a_write_is_under_way_reach_the_stream_up_to_the_games_end(tmp_path):
    """Finding 5 of issue 18: the last events of a game were stored while the stream was
    writing the events before them; once the write was done the game was over, and the
    stream ended without sending them.  Here the game is played on, to its end, inside the
    stream's second write."""
    import asyncio

    from tonk.application.tables import Tables
    from tonk.service.app import ServiceConfig
    from tonk.service.streams import stream_app

    async def scenario():
        with EventStore.open(tmp_path / "s.db") as store:
            tables = Tables(store)
            created = _table_with_a_turn(tables, seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=1)
            seats, rng = list(created.tokens), random.Random(3)
            body = bytearray()
            writes = 0
            ended = asyncio.Event()

            async def send(message):
                nonlocal writes
                if message["type"] != "http.response.body":
                    return
                body.extend(message.get("body", b""))
                if not message.get("more_body"):
                    ended.set()
                    return
                writes += 1
                if writes == 1:  # the snapshot: one command (a draw: the game goes on) is stored while it is written
                    assert _play_one(tables, created.table, seats, rng, knock=False)
                elif writes == 2:  # that command's events: the rest of the game while they are written
                    while _play_one(tables, created.table, seats, rng):
                        pass
                await asyncio.sleep(0)

            async def receive():
                await ended.wait()
                return {"type": "http.disconnect"}

            app = stream_app(tables, ServiceConfig(keepalive=0.2), asyncio.Event(), created.table, "ann", None)
            await asyncio.wait_for(app({}, receive, send), 30)  # a safety net: the stream ends by itself
            return _parse_sse(bytes(body)), list(store.records(created.table)), ended.is_set()

    messages, stored, ended = asyncio.run(scenario())
    assert ended and messages[0]["event"] == "snapshot"
    start = messages[0]["data"]["version"]
    seqs = [m["data"]["seq"] for m in messages[1:]]
    assert seqs == list(range(start + 1, len(stored) + 1))
    assert messages[-1]["event"] == "game_ended" == stored[-1].type


def test_a_stream_opened_or_resumed_after_the_game_ended_sends_the_rest_and_ends(server, client: Client):
    """A stream to an ended game (EventSource reconnects after the server ends a stream) sends
    what the viewer has not seen and ends, instead of staying open on a game that is over."""
    created = client.create(seats=["ann", "bob"], hand_limit=1)
    gid, ann = created["table"], created["tokens"]["ann"]
    play_until_over(client, created, random.Random(4))
    total = len(records(server, gid))
    opened = {
        "fresh": SSE(f"{server.url}/tables/{gid}/events", auth(ann)),
        "resumed": SSE(f"{server.url}/tables/{gid}/events", {**auth(ann), "Last-Event-ID": "1"}),
        "caught up": SSE(f"{server.url}/tables/{gid}/events", {**auth(ann), "Last-Event-ID": str(total)}),
        "spectator": SSE(f"{server.url}/tables/{gid}/spectate"),
        "spectator resumed": SSE(f"{server.url}/tables/{gid}/spectate", {"Last-Event-ID": "2"}),
    }
    for s in opened.values():
        s.wait_for(lambda s: s.ended, timeout=60)  # a safety net: the stream ends by itself
    assert [m["event"] for m in opened["fresh"].messages] == ["snapshot"]
    assert opened["fresh"].messages[0]["data"]["status"] == "ended"
    assert [m["data"]["seq"] for m in opened["resumed"].messages] == list(range(2, total + 1))
    assert opened["caught up"].messages == []
    assert [m["data"]["seq"] for m in opened["spectator"].events()] == list(range(1, total + 1))
    assert [m["data"]["seq"] for m in opened["spectator resumed"].messages] == list(range(3, total + 1))
    for s in opened.values():
        s.close()


def test_events_another_node_stored_reach_this_nodes_streams_also_when_a_read_folded_them_first(tmp_path):
    """Two nodes on one store: node b's streams learn of node a's appends from ``catch_up``.
    A read on node b (a view, a command) that folds the table again before ``catch_up`` runs
    must not make ``catch_up`` take those events for b's own, told already."""
    from tonk.application.tables import Tables

    with EventStore.open(tmp_path / "s.db", create=True) as store_a, EventStore.open(tmp_path / "s.db") as store_b:
        a, b = Tables(store_a), Tables(store_b)
        created = _table_with_a_turn(a, seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=1)
        gid, seats, rng = created.table, list(created.tokens), random.Random(8)
        told: list[int] = []
        b.table(gid).listeners.add(lambda table, first, events: told.append(first + len(events) - 1))
        b.catch_up()
        while _play_one(a, gid, seats, rng):  # node a plays the game to its end
            b.view(gid, "ann")  # a read on node b sees a's events first
            b.catch_up()
            assert told and told[-1] == a.table(gid).version
        assert told[-1] == len(store_a.read(gid))


def test_a_stream_resumes_on_a_node_whose_fold_is_behind_the_store(tmp_path):
    """A client resuming on node b with the id of an event node a stored, before b's
    ``catch_up`` has read it: the Last-Event-ID is checked against the store, not against
    b's cached fold (which would refuse it as beyond the table's version: a 400 on which
    EventSource gives up for good)."""
    from tonk.application.table_types import SPECTATOR
    from tonk.application.tables import Tables
    from tonk.service.streams import resume_after

    with EventStore.open(tmp_path / "s.db", create=True) as store_a, EventStore.open(tmp_path / "s.db") as store_b:
        a, b = Tables(store_a), Tables(store_b)
        created = _table_with_a_turn(a, seats=["ann", "bob"], hand_limit=1)
        gid, rng = created.table, random.Random(6)
        b.table(gid)  # node b has the table folded
        while _play_one(a, gid, list(created.tokens), rng):
            pass
        last = a.table(gid).version
        assert resume_after(b, gid, "ann", {"last-event-id": str(last)}) == last
        assert resume_after(b, gid, SPECTATOR, {"last-event-id": str(last)}) == last
        assert resume_after(b, gid, "ann", {}) is None


def test_a_spectator_who_leaves_after_the_snapshot_resumes_without_missing_the_game(server, client: Client):
    """A spectator's snapshot is no state, only the table's players and status: the game's
    events up to the horizon follow it.  A client that leaves after the snapshot and comes
    back as EventSource does (``Last-Event-ID``: the last id it got, if any) gets all of them."""
    import httpx

    created = client.create(seats=["ann", "bob"], hand_limit=1)
    gid = created["table"]
    play_until_over(client, created, random.Random(12))
    total = len(records(server, gid))
    with httpx.Client(timeout=30) as http:
        with http.stream("GET", f"{server.url}/tables/{gid}/spectate") as r:
            head = []
            for line in r.iter_lines():
                if not line:
                    break
                head.append(line)
    assert "event: snapshot" in head
    last_ids = [line[4:] for line in head if line.startswith("id: ")]
    again = SSE(f"{server.url}/tables/{gid}/spectate", {"Last-Event-ID": last_ids[-1]} if last_ids else {})
    again.wait_for(lambda s: s.ended, timeout=60)
    assert [m["data"]["seq"] for m in again.events()] == list(range(1, total + 1))
    again.close()


def test_a_stalled_stream_ends_by_itself_soon_after_the_server_starts_to_stop(tmp_path):
    """A client that takes no write while the server stops: its stream gives up after half
    the shutdown timeout, however long the write timeout, so the server never has to cancel
    it (uvicorn would log the cancelled stream as an exception in the application)."""
    import asyncio

    from tonk.application.table_types import TableSettings
    from tonk.application.tables import Tables
    from tonk.service.app import ServiceConfig
    from tonk.service.streams import stream_app

    async def scenario():
        with EventStore.open(tmp_path / "s.db") as store:
            tables = Tables(store)
            created = sit_at(tables, tables.create(TableSettings(seats=["ann", "bob"])))
            stopping = asyncio.Event()
            writing = asyncio.Event()

            async def stalled_send(message):
                if message.get("type") == "http.response.body":
                    writing.set()
                    await asyncio.sleep(3600)  # the client never takes the bytes

            async def receive():
                await asyncio.sleep(3600)
                return {"type": "http.disconnect"}

            app = stream_app(tables, ServiceConfig(write_timeout=3600, shutdown_timeout=0.5), stopping, created.table, "ann", None)
            running = asyncio.ensure_future(app({}, receive, stalled_send))
            await writing.wait()
            stopping.set()
            await asyncio.wait_for(running, 60)  # a safety net: it ends within the shutdown timeout
            return tables.table(created.table).listeners

    assert not asyncio.run(scenario())


def test_with_view_turn_a_seat_stream_pushes_the_seats_view_when_its_turn_begins(server, client: Client):
    """``?view=turn``: after the events that begin a turn of the seat, a ``view`` message with
    the seat's view as it is after them (``id`` = that version), the legal actions the engine
    gives there, once per turn; nothing of another seat's hand."""
    from tonk.application.adjudicate import ruleset_loader
    from tonk.core.game import Game
    from tonk.core.legal import legal_actions

    # the deck decides whether a turn of ann's begins after the stream opened (the game can end
    # before: both hands at the deal, or knocks before her turn comes again): another table then
    for _ in range(10):
        created = create_in_play(client, seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=2)
        gid = created["table"]
        s = SSE(f"{server.url}/tables/{gid}/events?view=turn", auth(created["tokens"]["ann"]))
        s.wait_for(lambda s: s.messages)
        assert s.messages[0]["event"] == "snapshot"
        play_until_over(client, created, random.Random(5))
        s.wait_for(lambda s: s.ended)
        with EventStore.open(server.db) as store:
            events = store.read(gid)
        if _turns_begun_after(events, "ann", int(s.messages[0]["id"])):
            break
        s.close()
    else:
        raise AssertionError("at 10 tables in a row no turn of ann's began after her stream opened")
    views = [m for m in s.messages if m["event"] == "view"]
    assert views, "ann never had a turn that the stream showed"
    turns = []
    last_seq = int(s.messages[0]["id"])
    for m in s.messages[1:]:
        if m["event"] != "view":
            last_seq = m["data"]["seq"]
            continue
        v = m["data"]
        assert m["id"] == str(v["version"]) == str(last_seq)  # it follows the events it shows
        ruleset = ruleset_loader()(events[0].ruleset)  # type: ignore[attr-defined]
        state = Game.replay(events[: v["version"]], ruleset).state
        assert v["seat"] == "ann" and v["view"]["to_act"] == "ann" and state.to_act == "ann"
        assert v["view"]["hand"] == list(state.hands["ann"]) and v["view"]["hands"] is None
        assert v["legal"] == [msgspec.to_builtins(c) for c in legal_actions(state, ruleset)]
        turns.append((v["view"]["hand_no"], v["view"]["turn_no"]))
    assert turns == sorted(set(turns))  # once per turn
    s.close()


def _turns_begun_after(events: list, seat: str, version: int) -> set[tuple[int, int]]:
    """The turns of ``seat`` (hand, turn) that began after ``version`` events, by the record:
    those it acted in (a deal's first turn that an initial tonk ends at once is no turn), less
    the one it was to act in at ``version`` (the snapshot's)."""
    from tonk.core.events import TIMED_EVENTS
    from tonk.core.game import Game

    def state(k: int):
        return Game.replay(events[:k]).state

    acted = {(s.hand_no, s.turn_no) for s in (state(k) for k in range(version, len(events)) if type(events[k]) in TIMED_EVENTS and events[k].player == seat)}
    start = state(version)
    return acted - ({(start.hand_no, start.turn_no)} if start.in_hand and start.to_act == seat else set())


def test_the_stream_refuses_an_unknown_view_mode(server, client: Client):
    created = client.create(seats=["ann", "bob"])
    bad = SSE(f"{server.url}/tables/{created['table']}/events?view=all", auth(created["tokens"]["ann"]))
    assert bad.status == 400
    message = json.loads(bad.body)["error"]["message"]
    assert "'all'" in message and "(view)" in message  # the query's own name, not the handler's
