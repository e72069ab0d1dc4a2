"""The expert bot against greedy: strength (net per hand, seats swapped) and cost per decision.

    .venv/bin/python -m bench.bench_bots                          # 2 x 2,000 hands, 2 workers
    .venv/bin/python -m bench.bench_bots --hands 300 --workers 1  # a quick look
    .venv/bin/python -m bench.bench_bots --rollouts 96            # another playout budget
    .venv/bin/python -m bench.bench_bots --own-policy 5000        # the bot's own policy alone
    .venv/bin/python -m bench.bench_bots --paired 500 --seed 11 --set MIN_GAIN=0.1  # a change, hand by hand

What is measured, exactly:

* **Strength.**  Two heads-up simulations of ``--hands`` hands each, on the same seed
  (the same decks and first dealers, 50 hands a game): the expert in seat P1 against
  greedy in P2, then the seats swapped.  Every hand goes through the engine's legal
  actions and ``decide``; each bot sees only its view.  Reported: the expert's mean net
  per hand (stake units) over all ``2 x hands`` hands with its 95 % interval (normal
  approximation; the hands are independent samples: the expert's net in a hand is the
  negative of greedy's), and the same per seating.
* **Cost per decision.**  One process plays ``--cost-hands`` hands per seating against
  greedy (the same seeds), timing every call of the expert's ``choose`` (every decision,
  also the ones with one legal action or decided without playouts) with
  ``time.process_time`` (CPU time of this process: the machine is shared, and wall time
  counts the other processes' turns too) and ``time.perf_counter`` (wall).  Reported:
  the mean per decision, the mean per decision that ran playouts, the 95th percentile,
  and playouts per decision.
* **Own policy** (``--own-policy HANDS``, instead of the rest).  The expert's baseline and
  its own play in playouts (``BolderGreedy``) alone against greedy, on the cost loop's
  decks, with the bot's ``KEEP_LOW`` and with 0 (greedy's discard): each one's net per hand
  and the paired difference hand by hand, with 95 % intervals.
* **Paired** (``--paired HANDS --set NAME=VALUE ...``, instead of the rest).  The expert as
  it is and the expert with module constants of ``tonk.core.expert_bot`` set otherwise,
  each against greedy on the cost loop's decks (the same decks and random sources, seats
  swapped): each one's net per hand, the paired difference hand by hand with its 95 %
  interval, and the share of hands that played out alike.  A change's gain shows here on
  far fewer hands than in two unpaired strength runs.
* **Endings.**  Per bot over both seatings: its knocks (won, caught), tonk-outs and
  outs by discard, from the simulation's per-seat counts.

Results go to stdout and ``bench/results/bots.json`` (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
Z95 = 1.959963984540054
#: per bot, over both seatings: how its hands ended (the simulation's per-seat counts)
ENDING_FIELDS = ("knocks", "knocks_won", "knocks_caught", "tonk_outs", "went_out")


def _set_rollouts(rollouts: int) -> None:
    import tonk.core.expert_bot as expert_bot

    expert_bot.DEFAULT_ROLLOUTS = rollouts


def _chunk(config: Any, indices: list[int], rollouts: int) -> dict[str, Any]:
    _set_rollouts(rollouts)
    from tonk.application.simulate import run_games

    return run_games(config, indices).to_dict()


def strength(hands: int, seed: int, workers: int, rollouts: int) -> dict[str, Any]:
    """The expert's net per hand against greedy, both seatings (see the module's doc)."""
    from tonk.application.simulate import SimConfig

    out: dict[str, Any] = {"seatings": []}
    net = net_sq = n = 0
    ends = {b: dict.fromkeys(ENDING_FIELDS, 0) for b in ("expert", "greedy")}
    ctx = multiprocessing.get_context("spawn")
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        for bots in (("expert", "greedy"), ("greedy", "expert")):
            config = SimConfig(hands=hands, players=2, bots=bots, seed=seed, hands_per_game=50)
            config.check()
            seat = bots.index("expert")
            seat_bot = dict(enumerate(bots))
            chunks = [list(range(i, min(config.games, i + 2))) for i in range(0, config.games, 2)]
            futures = [pool.submit(_chunk, config, c, rollouts) for c in chunks]
            s_net = s_sq = s_n = 0
            for f in futures:
                d = f.result()
                s_net += d["seat"][seat]["net"]
                s_sq += d["seat"][seat]["net_sq"]
                s_n += d["hands"]
                for i, row in enumerate(d["seat"]):
                    for k in ENDING_FIELDS:
                        ends[seat_bot[i]][k] += row[k]
            out["seatings"].append({"bots": list(bots), "hands": s_n, **_mean_ci(s_net, s_sq, s_n)})
            net, net_sq, n = net + s_net, net_sq + s_sq, n + s_n
    out.update(_mean_ci(net, net_sq, n))
    out["hands"] = n
    out["endings"] = ends
    out["wall_seconds"] = time.perf_counter() - t0
    return out


def _mean_ci(total: int, total_sq: int, n: int) -> dict[str, Any]:
    mean = total / n
    var = (total_sq - n * mean * mean) / (n - 1)
    se = math.sqrt(var / n)
    return {"mean_net": mean, "se": se, "ci": [mean - Z95 * se, mean + Z95 * se]}


def _dealt_hands(ruleset: Any, seats: tuple[str, ...], hands: int, seed: int, swap: int) -> Iterator[Any]:
    """One heads-up game of ``hands`` hands for the seating ``swap`` (the cost loop's decks):
    the game, each time a hand has been dealt (the caller plays it out)."""
    from tonk.application.simulate import shuffle_deck
    from tonk.core import Game
    from tonk.core.commands import DealHand

    game = Game.new(list(seats), ruleset=ruleset, seed=seed + swap)
    deck_rng = random.Random(seed * 7 + swap)
    for _ in range(hands):
        game.play(DealHand(deck=shuffle_deck(ruleset.deck, deck_rng)))
        yield game


def cost(hands: int, seed: int, rollouts: int) -> dict[str, Any]:
    """CPU and wall time of each expert decision (see the module's doc)."""
    _set_rollouts(rollouts)
    from tonk.core.bots import make_bot
    from tonk.core.views import player_view
    from tonk.variants import load_ruleset

    ruleset = load_ruleset()
    cpu: list[float] = []
    wall: list[float] = []
    mc_cpu: list[float] = []
    playouts = 0
    for swap in (0, 1):
        seats = ("P1", "P2")
        kinds = ("expert", "greedy") if not swap else ("greedy", "expert")
        bots = {p: make_bot(k, ruleset=ruleset) for p, k in zip(seats, kinds)}
        me = seats[kinds.index("expert")]
        rng = random.Random(seed)
        for game in _dealt_hands(ruleset, seats, hands, seed, swap):
            while game.in_hand:
                p = game.to_act
                view = player_view(game.state, p)
                legal = game.legal_actions()
                if p != me:
                    game.play(bots[p].choose(view, legal, rng))
                    continue
                bot: Any = bots[p]
                before = bot.decisions
                c0, w0 = time.process_time(), time.perf_counter()
                cmd = bot.choose(view, legal, rng)
                c1, w1 = time.process_time(), time.perf_counter()
                cpu.append(c1 - c0)
                wall.append(w1 - w0)
                if bot.decisions > before:
                    mc_cpu.append(c1 - c0)
                game.play(cmd)
        playouts += bots[me].playouts  # type: ignore[attr-defined]
    cpu_sorted = sorted(cpu)
    return {
        "hands": 2 * hands,
        "decisions": len(cpu),
        "decisions_with_playouts": len(mc_cpu),
        "playouts": playouts,
        "playouts_per_decision": playouts / len(cpu),
        "cpu_ms_per_decision": 1000 * sum(cpu) / len(cpu),
        "wall_ms_per_decision": 1000 * sum(wall) / len(wall),
        "cpu_ms_per_playout_decision": 1000 * sum(mc_cpu) / max(1, len(mc_cpu)),
        "cpu_ms_p95": 1000 * cpu_sorted[int(0.95 * (len(cpu_sorted) - 1))],
    }


def _heads_up_nets(make_own: Any, hands: int, seed: int) -> list[int]:
    """The net per hand of the bot ``make_own(points)`` against greedy, ``hands`` hands per
    seating on the cost loop's decks (seats swapped): per-hand nets, in deck order."""
    from tonk.core.bots import GreedyBot
    from tonk.core.views import player_view
    from tonk.variants import load_ruleset

    ruleset = load_ruleset()
    nets: list[int] = []
    for swap in (0, 1):
        seats = ("P1", "P2")
        me, other = seats[swap], seats[1 - swap]
        bots = {me: make_own(ruleset.points), other: GreedyBot(ruleset.points)}
        rng = random.Random(seed)
        for game in _dealt_hands(ruleset, seats, hands, seed, swap):
            while game.in_hand:
                p = game.to_act
                game.play(bots[p].choose(player_view(game.state, p), game.legal_actions(), rng))
            ended = game.state.last_ending
            assert ended is not None
            nets.append(sum(x.amount for x in ended.ledger if x.to == me) - sum(x.amount for x in ended.ledger if x.from_ == me))
    return nets


def own_policy(hands: int, seed: int) -> dict[str, Any]:
    """The expert's own policy (its baseline and its play in playouts, ``BolderGreedy``) alone
    against greedy, with and without keeping low cards (``KEEP_LOW``), on the same decks:
    each one's net per hand and the paired difference, with 95 % intervals."""
    import tonk.core.expert_bot as expert_bot

    keep = expert_bot.KEEP_LOW
    try:
        with_keep = _heads_up_nets(expert_bot.BolderGreedy, hands, seed)
        expert_bot.KEEP_LOW = 0
        without = _heads_up_nets(expert_bot.BolderGreedy, hands, seed)
    finally:
        expert_bot.KEEP_LOW = keep
    diffs = [a - b for a, b in zip(with_keep, without)]
    row = lambda xs: _mean_ci(sum(xs), sum(x * x for x in xs), len(xs))  # noqa: E731
    return {"hands": len(diffs), "keep_low": keep, "with": row(with_keep), "without": row(without), "difference": row(diffs)}


def paired(hands: int, seed: int, settings: list[str]) -> dict[str, Any]:
    """The expert as it is and with ``settings`` (``NAME=VALUE``: module constants of
    ``tonk.core.expert_bot``), hand by hand on the same decks (see the module's doc)."""
    import tonk.core.expert_bot as expert_bot

    changed: dict[str, Any] = {}
    for s in settings:
        name, _, text = s.partition("=")
        old = getattr(expert_bot, name, None)
        if not name.isupper() or not isinstance(old, (int, float)):
            raise SystemExit(f"--set {s}: not a numeric constant of tonk.core.expert_bot")
        try:
            value = float(text)
        except ValueError:
            raise SystemExit(f"--set {s}: {text!r} is not a number (NAME=VALUE)") from None
        changed[name] = type(old)(value)
    make = lambda points: expert_bot.ExpertBot(points=points, ruleset=_default_ruleset())  # noqa: E731
    current = _heads_up_nets(make, hands, seed)
    saved = {name: getattr(expert_bot, name) for name in changed}
    try:
        for name, value in changed.items():
            setattr(expert_bot, name, value)
        other = _heads_up_nets(make, hands, seed)
    finally:
        for name, value in saved.items():
            setattr(expert_bot, name, value)
    diffs = [b - a for a, b in zip(current, other)]
    row = lambda xs: _mean_ci(sum(xs), sum(x * x for x in xs), len(xs))  # noqa: E731
    alike = sum(1 for d in diffs if d == 0) / len(diffs)
    return {"hands": len(diffs), "settings": changed, "current": row(current), "changed": row(other), "difference": row(diffs), "alike": alike}


def _default_ruleset() -> Any:
    from tonk.variants import load_ruleset

    return load_ruleset()


def main(argv: list[str] | None = None) -> None:
    from tonk.core.expert_bot import DEFAULT_ROLLOUTS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2000, help="hands per seating for the strength (default 2000)")
    ap.add_argument("--cost-hands", type=int, default=100, help="hands per seating for the cost per decision (default 100)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rollouts", type=int, default=DEFAULT_ROLLOUTS, help=f"playouts per decision (default {DEFAULT_ROLLOUTS}, the bot's default)")
    ap.add_argument("--skip-strength", action="store_true")
    ap.add_argument(
        "--own-policy",
        type=int,
        default=0,
        metavar="HANDS",
        help="only measure the expert's own policy (BolderGreedy) against greedy, HANDS hands per seating, with and without KEEP_LOW",
    )
    ap.add_argument("--paired", type=int, default=0, metavar="HANDS", help="only compare the expert with and without --set, HANDS hands per seating")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="with --paired: a constant of tonk.core.expert_bot to change")
    args = ap.parse_args(argv)
    result: dict[str, Any] = {"seed": args.seed, "rollouts": args.rollouts}
    f = lambda r: f"{r['mean_net']:+.3f} ({r['ci'][0]:+.3f} to {r['ci'][1]:+.3f})"  # noqa: E731
    if args.paired:
        _set_rollouts(args.rollouts)
        p = paired(args.paired, args.seed, args.set)
        print(
            f"paired, {p['hands']} hands, seats swapped: the expert {f(p['current'])}, with {' '.join(args.set)} {f(p['changed'])}; "
            f"paired difference {f(p['difference'])}, {p['alike']:.0%} of hands alike"
        )
        return
    if args.own_policy:
        o = own_policy(args.own_policy, args.seed)
        print(
            f"own policy against greedy, {o['hands']} hands, seats swapped: KEEP_LOW {o['keep_low']} {f(o['with'])}, "
            f"KEEP_LOW 0 {f(o['without'])}; paired difference {f(o['difference'])}"
        )
        return
    result["cost"] = cost(args.cost_hands, args.seed, args.rollouts)
    c = result["cost"]
    print(
        f"cost: {c['decisions']} decisions in {c['hands']} hands ({c['decisions_with_playouts']} with playouts, "
        f"{c['playouts_per_decision']:.1f} playouts each on average): {c['cpu_ms_per_decision']:.1f} ms CPU per decision "
        f"({c['wall_ms_per_decision']:.1f} ms wall), {c['cpu_ms_per_playout_decision']:.1f} ms CPU per decision with playouts, "
        f"95th percentile {c['cpu_ms_p95']:.1f} ms",
        flush=True,
    )
    if not args.skip_strength:
        result["strength"] = s = strength(args.hands, args.seed, args.workers, args.rollouts)
        for row in s["seatings"]:
            print(f"  {' vs '.join(row['bots'])}: {row['hands']} hands, expert {row['mean_net']:+.3f} per hand ({row['ci'][0]:+.3f} to {row['ci'][1]:+.3f})")
        for b, e in s["endings"].items():
            print(
                f"  {b}: {e['knocks']} knocks ({e['knocks_won']} won, {e['knocks_caught']} caught), {e['tonk_outs']} tonk-outs, {e['went_out']} out by discard"
            )
        print(
            f"strength: expert against greedy, {s['hands']} hands, seats swapped: {s['mean_net']:+.3f} stake per hand, 95% interval {s['ci'][0]:+.3f} to {s['ci'][1]:+.3f} ({s['wall_seconds']:.0f} s wall, {args.workers} workers)"
        )
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "bots.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
