"""Two writer processes racing on one game, and writers killed with SIGKILL mid-transaction.

Workers are forked (no connection is open in the parent when it forks) and report
through queues; nothing here asserts on time.  The waits have generous timeouts
only so that a broken worker fails the test instead of hanging it.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from pathlib import Path

import pytest

from tonk.core.events import Knocked
from tonk.storage import ConcurrencyError, EventStore
from tonk.storage.schema import STEPS


def rules_check(events):
    """The strict import's rules check, as the CLI passes it: the first audit finding."""
    from tonk.application.audit import first_rules_finding

    return first_rules_finding(events)


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork and SIGKILL")

ctx = multiprocessing.get_context("fork")
WAIT = 120  # seconds; a guard against a hung worker, not a measurement


def _lockstep_worker(path: str, game_id: str, name: str, rounds: int, barrier, results, command_ids: bool) -> None:
    try:
        with EventStore.open(path, create=False) as store:
            for r in range(rounds):
                expected = 1 + r
                event = Knocked(player=f"{name}-{r}")
                cmd = f"round-{r}" if command_ids else None
                barrier.wait(WAIT)
                try:
                    version = store.append(game_id, [event], expected, command_id=cmd)
                    results.put((name, r, "ok", version))
                except ConcurrencyError as exc:
                    results.put((name, r, "conflict", (exc.game_id, exc.expected, exc.actual)))
    except BaseException as exc:  # report, so the parent fails with the reason
        results.put((name, -1, "crash", repr(exc)))


def _run_lockstep(db: Path, start, rounds: int, command_ids: bool) -> list[tuple]:
    with EventStore.open(db) as store:
        store.append(start.game_id, [start], 0)
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [
        ctx.Process(target=_lockstep_worker, args=(str(db), start.game_id, name, rounds, barrier, results, command_ids))
        for name in ("w1", "w2")
    ]
    for p in procs:
        p.start()
    out = [results.get(timeout=WAIT) for _ in range(2 * rounds)]
    for p in procs:
        p.join(WAIT)
        assert p.exitcode == 0
    assert not [o for o in out if o[2] == "crash"], out
    return out


def test_two_processes_exactly_one_wins_each_version(db, games):
    start = games[0].events[0]
    rounds = 25
    out = _run_lockstep(db, start, rounds, command_ids=False)
    winners = {}
    for name, r, status, detail in out:
        if status == "ok":
            assert r not in winners, f"round {r} won twice"
            winners[r] = name
            assert detail == 2 + r
        else:
            assert detail == (start.game_id, 1 + r, 2 + r)
    assert sorted(winners) == list(range(rounds))
    with EventStore.open(db) as store:
        events = store.read(start.game_id)
        assert events[0] == start
        # every version holds exactly the winner's event of that round: nothing lost or doubled
        assert [e.player for e in events[1:]] == [f"{winners[r]}-{r}" for r in range(rounds)]
        assert store.verify() == []
        assert store.games()[0]["events"] == rounds + 1


def test_two_processes_retrying_the_same_command_record_it_once(db, games):
    start = games[0].events[0]
    rounds = 15
    out = _run_lockstep(db, start, rounds, command_ids=True)
    # the loser's retry of the same command is a no-op returning the version, not a conflict
    assert all(status == "ok" for _, _, status, _ in out)
    assert sorted(v for _, _, _, v in out) == sorted([2 + r for r in range(rounds)] * 2)
    with EventStore.open(db) as store:
        assert store.version(start.game_id) == rounds + 1
        assert store.verify() == []


def _free_worker(path: str, game_id: str, name: str, count: int, results) -> None:
    try:
        with EventStore.open(path, create=False) as store:
            version = store.version(game_id)
            done = conflicts = 0
            while done < count:
                try:
                    version = store.append(game_id, [Knocked(player=f"{name}-{done}")], version)
                    done += 1
                except ConcurrencyError as exc:
                    conflicts += 1
                    version = exc.actual
        results.put((name, conflicts, None))
    except BaseException as exc:
        results.put((name, -1, repr(exc)))


def test_two_processes_free_running_lose_and_duplicate_nothing(db, games):
    start = games[0].events[0]
    with EventStore.open(db) as store:
        store.append(start.game_id, [start], 0)
    count = 60
    results = ctx.Queue()
    procs = [ctx.Process(target=_free_worker, args=(str(db), start.game_id, n, count, results)) for n in ("w1", "w2")]
    for p in procs:
        p.start()
    out = [results.get(timeout=WAIT) for _ in procs]
    for p in procs:
        p.join(WAIT)
    assert all(err is None for _, _, err in out), out
    with EventStore.open(db) as store:
        players = [e.player for e in store.read(start.game_id)[1:]]
        assert store.verify() == []
    assert len(players) == 2 * count
    for name in ("w1", "w2"):
        # each writer's events are all there, once each, in its own order
        assert [p for p in players if p.startswith(name)] == [f"{name}-{i}" for i in range(count)]


def _create_and_append(path: str, events: list, barrier, results) -> None:
    try:
        barrier.wait(WAIT)
        with EventStore.open(path) as store:
            results.put(store.append(events[0].game_id, events, 0))
    except BaseException as exc:
        results.put(repr(exc))


def test_two_processes_creating_the_same_new_store(db, games):
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_create_and_append, args=(str(db), list(g.events), barrier, results)) for g in games[:2]]
    for p in procs:
        p.start()
    out = sorted(str(results.get(timeout=WAIT)) for _ in procs)
    for p in procs:
        p.join(WAIT)
    assert out == sorted(str(len(g.events)) for g in games[:2])
    with EventStore.open(db, create=False) as store:
        assert sorted(store.game_ids()) == sorted(g.game_id for g in games[:2])
        assert store.verify() == []
        conn = store.db.conn
        assert conn.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0] == len(STEPS)


# --- SIGKILL mid-transaction ---------------------------------------------------------------
def _append_then_hang(path: str, games_events: list, hang_at: int, progress) -> None:
    """Append whole games; inside the transaction of game ``hang_at`` (after its rows are
    inserted, before the commit) tell the parent and wait to be killed."""
    from tonk.storage.sqlite import LeanTransaction as SqliteTransaction  # the transaction of a new store

    real_insert = SqliteTransaction.insert

    def insert(self, rows, game_row):
        real_insert(self, rows, game_row)
        if game_row[0] == games_events[hang_at][0]:
            progress.put(("inside", self._conn.in_transaction))
            signal.pause()

    SqliteTransaction.insert = insert
    with EventStore.open(path) as store:
        for gid, events in games_events:
            store.append(gid, events, 0)
            progress.put(("committed", gid))


def _kill_when_inside(target, args, progress) -> list:
    proc = ctx.Process(target=target, args=args)
    proc.start()
    seen = []
    while True:
        msg = progress.get(timeout=WAIT)
        seen.append(msg)
        if msg[0] == "inside":
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(WAIT)
    assert proc.exitcode == -signal.SIGKILL
    return seen


def test_writer_killed_mid_append_leaves_only_whole_games(db, play):
    recorded = [play(100 + k, hands=2) for k in range(6)]
    games_events = [(g.game_id, list(g.events)) for g in recorded]
    progress = ctx.Queue()
    seen = _kill_when_inside(_append_then_hang, (str(db), games_events, 4, progress), progress)
    assert seen[-1] == ("inside", True)
    committed = [gid for kind, gid in seen if kind == "committed"]
    assert committed == [gid for gid, _ in games_events[:4]]
    assert Path(str(db) + "-wal").stat().st_size > 0  # the killed writer's frames are there
    with EventStore.open(db, create=False) as store:
        assert store.verify() == []
        assert sorted(store.game_ids()) == sorted(committed)
        for gid, events in games_events[:4]:
            assert store.read(gid) == events
        assert store.version(games_events[4][0]) == 0
        assert {r["game_id"] for r in store.games()} == set(committed)
        # and the store takes the interrupted game again
        gid, events = games_events[4]
        assert store.append(gid, events, 0) == len(events)
        assert store.verify() == []


def _import_then_hang(path: str, file: str, hang_at: int, progress) -> None:
    """Import a file; inside its one transaction, after ``hang_at`` games are written,
    tell the parent and wait to be killed."""
    from tonk.storage.jsonl import import_file

    from tonk.storage.sqlite import LeanTransaction as SqliteTransaction  # the transaction of a new store

    real = SqliteTransaction.insert
    written = []

    def insert(self, rows, game_row):
        real(self, rows, game_row)
        written.append(game_row[0])
        if len(written) == hang_at:
            progress.put(("inside", self._conn.in_transaction))
            signal.pause()

    SqliteTransaction.insert = insert
    with EventStore.open(path) as store:
        import_file(store, file, rules_check=rules_check)


def test_import_killed_mid_transaction_leaves_none_of_its_games(tmp_path, db, play, record):
    import io

    from tonk.storage.jsonl import export_games

    before = [play(200), play(201)]
    incoming = [play(300 + k, hands=1) for k in range(5)]
    source = tmp_path / "source.db"
    record(source, incoming)
    out = io.BytesIO()
    with EventStore.open(source) as store:
        export_games(store, None, out)
    f = tmp_path / "incoming.jsonl"
    f.write_bytes(out.getvalue())
    record(db, before)

    progress = ctx.Queue()
    seen = _kill_when_inside(_import_then_hang, (str(db), str(f), 3, progress), progress)
    assert seen == [("inside", True)]
    with EventStore.open(db, create=False) as store:
        assert store.verify() == []
        assert sorted(store.game_ids()) == sorted(g.game_id for g in before)
        # the same import, uninterrupted, then goes through whole
        from tonk.storage.jsonl import import_file

        assert len(import_file(store, f, rules_check=rules_check).imported) == 5
        assert store.verify() == []
