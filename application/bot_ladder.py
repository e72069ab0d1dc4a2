"""The bot ladder: every pair of bots plays, seats swapped, and each bot gets a rating.

For each pair ``(a, b)`` of the bots named, two simulations of ``hands`` hands are run
on the same seed (so the same decks and first dealers): one with the seats filled
``a, b, a, b, ...`` and one with ``b, a, b, a, ...``.  Heads-up (the default) that is
a round robin with the seats swapped; at a larger table each bot faces the other at
every seat position in turn.  A pairing's figures are ``a``'s over both runs:

* **mean net** per seat and hand (stake units), with its 95 % interval (seat-hands
  taken as independent, exact heads-up);
* **score**: the share of the pairing's hands (both runs) that ``a``'s side won (a seat
  with the hand's highest positive net), a hand no one won counting as half to each
  side, as chess counts a draw;
* the **Elo gap** of that score, ``400 log10(s / (1 - s))``.

The ratings are the least-squares fit of the gaps (:func:`tonk.application.stats.elo_ratings`),
their mean at 1500.  Everything is deterministic for the seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Callable

from ..core.bots import check_bot_name
from .simulate import SimConfig, SimulationError, run
from .stats import elo_gap, elo_ratings, mean_ci


@dataclass(frozen=True)
class LadderConfig:
    bots: tuple[str, ...]
    hands: int = 1000
    players: int = 2
    seed: int = 0
    variants: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    workers: int = 1
    hands_per_game: int = 50

    def pairs(self) -> list[tuple[str, str]]:
        return list(combinations(self.bots, 2))

    def runs(self, a: str, b: str) -> list[SimConfig]:
        """The two simulations of a pairing (seats alternating, then swapped)."""
        out = []
        for first, second in ((a, b), (b, a)):
            seats = tuple(first if i % 2 == 0 else second for i in range(self.players))
            out.append(
                SimConfig(
                    hands=self.hands,
                    players=self.players,
                    bots=seats,
                    variants=self.variants,
                    options=dict(self.options),
                    seed=self.seed,
                    hands_per_game=self.hands_per_game,
                    workers=self.workers,
                )
            )
        return out

    def check(self) -> None:
        for name in self.bots:  # an unknown name first: it is what is wrong with `--bot psychic`
            check_bot_name(name)
        if len(self.bots) < 2:
            raise SimulationError("a ladder needs at least two bots")
        if len(set(self.bots)) != len(self.bots):
            raise SimulationError("name each bot once")
        for cfg in self.runs(self.bots[0], self.bots[1]):
            cfg.check()

    @property
    def total_hands(self) -> int:
        return 2 * self.hands * len(self.pairs())


def _pairing(config: LadderConfig, a: str, b: str, progress: Callable[[int], None] | None) -> dict[str, Any]:
    net = net_sq = seat_hands = wins_a = wins_b = hands = 0
    for cfg in config.runs(a, b):
        tally, _ = run(cfg, None, progress)
        names = cfg.seat_bots()
        hands += tally.hands
        for i, row in enumerate(tally.seat):
            if names[i] == a:
                net += row["net"]
                net_sq += row["net_sq"]
                seat_hands += tally.hands
                wins_a += row["wins"]
            else:
                wins_b += row["wins"]
    est = mean_ci(net, net_sq, seat_hands)
    # a hand is won by one side or the other or no one (a catch's tie can make two winners,
    # one of each side: then it counts as half to each, as a draw); ``hands`` already counts
    # the hands of both runs
    decided = wins_a + wins_b
    score = (wins_a + 0.5 * (hands - decided)) / hands if hands else 0.5
    score = min(max(score, 0.0), 1.0)
    return {
        "a": a,
        "b": b,
        "hands": hands,
        "seat_hands": seat_hands,
        "mean_net": est["mean"],
        "se": est["se"],
        "ci": est["ci"],
        "wins_a": wins_a,
        "wins_b": wins_b,
        "score": score,
        "elo_gap": elo_gap(score),
    }


def ladder(config: LadderConfig, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play every pairing; the table of pairings and the ratings (as plain data, the ``--json`` shape)."""
    config.check()
    pairings = [_pairing(config, a, b, progress) for a, b in config.pairs()]
    scores: dict[tuple[str, str], float] = {}
    for p in pairings:
        scores[(p["a"], p["b"])] = p["score"]
        scores[(p["b"], p["a"])] = 1.0 - p["score"]
    ratings = elo_ratings(list(config.bots), scores)
    table: list[dict[str, Any]] = []
    for name in config.bots:
        nets = [float(p["mean_net"]) * (1 if p["a"] == name else -1) for p in pairings if name in (p["a"], p["b"])]
        table.append({"bot": name, "rating": ratings[name], "mean_net": sum(nets) / len(nets) if nets else 0.0})
    table.sort(key=lambda r: (-float(r["rating"]), str(r["bot"])))
    return {
        "config": {
            "bots": list(config.bots),
            "hands": config.hands,
            "players": config.players,
            "seed": config.seed,
            "variants": list(config.variants),
            "options": dict(config.options),
        },
        "pairings": pairings,
        "ratings": table,
    }


__all__ = ["LadderConfig", "ladder"]
