"""Two writers racing on one game, on every back end (processes; threads for the in-memory
store): each version is won by exactly one, the loser gets ConcurrencyError, nothing is lost
or doubled; a retried command is recorded once."""

from __future__ import annotations

from tonk.core.events import Knocked
from tonk.storage import ConcurrencyError

WAIT = 120  # a guard against a hung worker, not a measurement


def _lockstep(open_store, game_id: str, name: str, rounds: int, barrier, results, command_ids: bool) -> None:
    try:
        with open_store(create=False) as store:
            for r in range(rounds):
                cmd = f"round-{r}" if command_ids else None
                barrier.wait(WAIT)
                try:
                    results.put((name, r, "ok", store.append(game_id, [Knocked(player=f"{name}-{r}")], 1 + r, command_id=cmd)))
                except ConcurrencyError as exc:
                    results.put((name, r, "conflict", (exc.expected, exc.actual)))
    except BaseException as exc:
        results.put((name, -1, "crash", repr(exc)))


def _race(backend, start, rounds: int, command_ids: bool) -> list[tuple]:
    with backend.open() as store:
        store.append(start.game_id, [start], 0)
    barrier, results = backend.barrier(2), backend.queue()
    procs = [backend.worker(target=_lockstep, args=(backend.open, start.game_id, n, rounds, barrier, results, command_ids)) for n in ("w1", "w2")]
    for p in procs:
        p.start()
    out = [results.get(timeout=WAIT) for _ in range(2 * rounds)]
    for p in procs:
        p.join(WAIT)
    assert not [o for o in out if o[2] == "crash"], out
    return out


def test_each_version_is_won_by_exactly_one_process(backend, games):
    start, rounds = games[0].events[0], 20
    out = _race(backend, start, rounds, command_ids=False)
    winners = {}
    for name, r, status, detail in out:
        if status == "ok":
            assert r not in winners, f"round {r} won twice"
            winners[r] = name
            assert detail == 2 + r
        else:
            assert detail == (1 + r, 2 + r)
    assert sorted(winners) == list(range(rounds))
    with backend.open(create=False) as store:
        events = store.read(start.game_id)
        assert [e.player for e in events[1:]] == [f"{winners[r]}-{r}" for r in range(rounds)]
        assert store.verify() == [] and store.projection_findings() == []
        assert [p.position for p in store.read_all()] == list(range(1, rounds + 2))


def test_a_command_retried_by_the_loser_is_recorded_once(backend, games):
    start, rounds = games[0].events[0], 12
    out = _race(backend, start, rounds, command_ids=True)
    assert all(status == "ok" for _, _, status, _ in out)
    assert sorted(v for _, _, _, v in out) == sorted([2 + r for r in range(rounds)] * 2)
    with backend.open(create=False) as store:
        assert store.version(start.game_id) == rounds + 1
