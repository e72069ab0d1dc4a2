"""Every event reaches every open stream exactly once, through the game's end (issue 18,
finding 5), under load: many tables played at once by random legal commands against a real
``tonk serve``, every seat's stream and two spectators' streams open at each (some from the
start, some joining late), each cut by its client at random points and resumed with
``Last-Event-ID``, some after the game has ended.  At the end each stream's events are
counted against the store: each seq once, in order, with its type and chain hash, through
``game_ended``, and the server ended each stream only after ``game_ended``.

Bounded: a fixed number of tables, commands per table and cuts per stream (a seeded RNG
chooses them); a cut stream waits for a number of commands at its table, not for a time.
The timeouts are safety nets only: nothing here depends on how fast the machine is."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

import httpx

from seating import client_seed  # tests/support
from tonk.storage import EventStore

from .conftest import auth, command_body, run_cli

TABLES = 16
MAX_COMMANDS = 2000  # per table: far more than a game of a few short hands takes
MAX_CUTS = 3  # per stream, by its client
MAX_CONNECTIONS = 20  # per stream: more means the server keeps ending it early
SAFETY_NET = 600  # seconds: the whole run; expected to take a small part of it


class Progress:
    """How many commands have been played at one table, and whether its game has ended."""

    def __init__(self) -> None:
        self.commands = 0
        self.ended = False
        self._changed = asyncio.Condition()

    async def advance(self, ended: bool = False) -> None:
        async with self._changed:
            self.commands += 0 if ended else 1
            self.ended = self.ended or ended
            self._changed.notify_all()

    async def wait_for(self, commands: int) -> None:
        """Until ``commands`` commands have been played or the game has ended."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.ended or self.commands >= commands)


async def sse_messages(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    current: dict[str, Any] = {}
    async for line in response.aiter_lines():
        if line.startswith(":"):
            continue
        if line == "":
            if current:
                current["data"] = json.loads(current.get("data", "null"))
                yield current
                current = {}
            continue
        name, _, value = line.partition(": ")
        current[name] = value


@dataclass
class Watcher:
    """One client's stream (a seat's or a spectator's) over as many connections as it takes."""

    table: str
    who: str  # a seat, or "spectator-N"
    url: str
    headers: dict[str, str]
    rng: random.Random
    snapshot: int | None = None  # the version of the first connection's snapshot
    snapshot_status: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)  # every event message, as received
    early_ends: list[str | None] = field(default_factory=list)  # the server ended it before game_ended
    connections: int = 0
    resumed_after_the_end: int = 0
    done: bool = False

    async def run(self, http: httpx.AsyncClient, progress: Progress) -> None:
        last_id: str | None = None
        cuts = 0
        while self.connections < MAX_CONNECTIONS:
            self.connections += 1
            headers = dict(self.headers)
            if last_id is not None:
                headers["Last-Event-ID"] = last_id
                self.resumed_after_the_end += progress.ended
            cut_after = self.rng.randint(0, 12) if cuts < MAX_CUTS and self.rng.random() < 0.7 else None
            cut = False
            async with http.stream("GET", self.url, headers=headers) as r:
                assert r.status_code == 200, (self.who, r.status_code, await r.aread())
                received = 0
                async for message in sse_messages(r):
                    if message.get("event") == "snapshot":
                        assert last_id is None, f"{self.who}: a snapshot on a resumed stream"
                        self.snapshot = message["data"]["version"]
                        self.snapshot_status = message["data"]["status"]
                    else:
                        self.events.append(message)
                    last_id = message.get("id", last_id)
                    received += 1
                    if cut_after is not None and received > cut_after:
                        cut = True  # the client goes (the rest of the response is never read)
                        break
            if cut:
                cuts += 1
                await progress.wait_for(progress.commands + self.rng.randint(0, 4))
                continue
            if self.events and self.events[-1].get("event") == "game_ended":
                self.done = True
                return
            if self.snapshot_status == "ended" and not self.events:
                self.done = True  # a seat's fresh stream to a game that had ended: its snapshot, then the end
                return
            self.early_ends.append(last_id)  # the server ended the stream before the game's end


async def play(http: httpx.AsyncClient, created: dict[str, Any], rng: random.Random, progress: Progress) -> None:
    """The table's people play random legal commands until the game has ended."""
    table, tokens = created["table"], created["tokens"]
    try:
        for _ in range(MAX_COMMANDS):
            views = []
            for tok in tokens.values():
                r = await http.get(f"/tables/{table}/view", headers=auth(tok))
                assert r.status_code == 200, r.text
                views.append(r.json())
            if views[0]["status"] == "ended":
                return
            v = next(v for v in views if v["legal"])
            moves = [c for c in v["legal"] if c["action"] != "knock"] if rng.random() < 0.9 else []  # knocks now and then: longer hands
            r = await http.post(f"/tables/{table}/commands", headers=auth(tokens[v["seat"]]), json=command_body(rng.choice(moves or v["legal"]), v["version"]))
            assert r.status_code == 200, r.text
            await progress.advance()
        raise AssertionError(f"table {table}: the game did not end in {MAX_COMMANDS} commands")
    finally:
        await progress.advance(ended=True)


async def late(watcher: Watcher, http: httpx.AsyncClient, progress: Progress, after: int) -> None:
    await progress.wait_for(after)
    await watcher.run(http, progress)


async def run_tables(base: str, rng: random.Random) -> tuple[list[dict[str, Any]], list[Watcher]]:
    limits = httpx.Limits(max_connections=400, max_keepalive_connections=100)
    async with httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(60), limits=limits) as http:
        created, watchers, jobs = [], [], []
        for i in range(TABLES):
            settings = {
                "seats": ["ann", "bob", "cy"],
                "bots": {"cy": rng.choice(["greedy", "random"])},
                "hand_limit": rng.choice([1, 2, 3]),
                "options": {"max_turns_per_hand": rng.choice([10, 20, 40])},
            }
            r = await http.post("/tables", json=settings)
            assert r.status_code == 201, r.text
            c = r.json()
            for seat, token in c["tokens"].items():  # every person sits down: hand 1 is dealt (docs/fair-deal.md)
                sat = await http.post(f"/tables/{c['table']}/sit", json={"client_seed": client_seed()}, headers=auth(token))
                assert sat.status_code == 200, sat.text
            created.append(c)
            progress = Progress()
            table = c["table"]
            for n, (who, url, headers) in enumerate(
                [
                    ("ann", f"{base}/tables/{table}/events", auth(c["tokens"]["ann"])),
                    ("bob", f"{base}/tables/{table}/events", auth(c["tokens"]["bob"])),
                    ("spectator-1", f"{base}/tables/{table}/spectate", {}),
                    ("spectator-2", f"{base}/tables/{table}/spectate", {}),
                ]
            ):
                w = Watcher(table, who, url, headers, random.Random(rng.random()))
                watchers.append(w)
                joins_at = 0 if n % 2 == 0 else rng.randint(0, 12)  # ann and a spectator from the start; the others join later
                jobs.append(late(w, http, progress, joins_at))
            jobs.append(play(http, c, random.Random(rng.random()), progress))
        tasks = [asyncio.ensure_future(j) for j in jobs]
        done, pending = await asyncio.wait(tasks, timeout=SAFETY_NET)
        for t in pending:
            t.cancel()
        unfinished = [(w.table[:8], w.who, len(w.events), w.connections) for w in watchers if not w.done]
        assert not pending, f"still running after {SAFETY_NET} s (a stream that never ended?): {unfinished}"
        for t in done:
            t.result()  # an assertion inside a job fails the test here
        return created, watchers


def test_many_tables_every_stream_gets_every_event_once_through_the_games_end_across_cuts(start_server):
    server = start_server("--rate", "0", "--public-rate", "0", "--max-tables-per-client", "0", "--keepalive", "0.5", "--stream-timeout", "120")
    created, watchers = asyncio.run(run_tables(server.url, random.Random(18)))
    with EventStore.open(server.db) as store:
        stored = {c["table"]: [(r.seq, r.type, r.hash) for r in store.records(c["table"])] for c in created}
    for w in watchers:
        records = stored[w.table]
        assert records[-1][1] == "game_ended"
        assert w.done and not w.early_ends, (w.who, w.early_ends, w.connections)
        first = 0 if w.who.startswith("spectator") else w.snapshot
        assert w.snapshot is not None and first is not None
        got = [(m["data"]["seq"], m["event"], m["data"]["hash"]) for m in w.events]
        assert [s for s, _, _ in got] == list(range(first + 1, len(records) + 1)), (w.who, w.table)
        assert got == records[first:], (w.who, w.table)
        assert all(m["id"] == str(m["data"]["seq"]) for m in w.events)
    resumed = sum(w.connections - 1 for w in watchers)
    after_the_end = sum(w.resumed_after_the_end for w in watchers)
    print(f"{len(watchers)} streams, {resumed} resumed with Last-Event-ID ({after_the_end} after the game's end), {sum(len(r) for r in stored.values())} events")
    assert resumed >= TABLES  # the cuts happened: many streams were resumed
    p = run_cli("--db", str(server.db), "audit", "--all")
    assert p.returncode == 0, p.stdout + p.stderr
