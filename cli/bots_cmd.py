"""``tonk bots``: the bots, and with ``--ladder`` how they rank against each other.

    tonk bots                                   # the bots by name
    tonk bots --ladder --hands 2000 --seed 1    # every pair heads-up, seats swapped
    tonk bots --ladder --bot expert --bot greedy --players 3 --variant hit-penalty --json
    tonk bots --ladder --variant-file my_rule.py --variant my-rule   # under a house rule of one's own

A thin command over :mod:`tonk.application.bot_ladder`: a table of each pairing's
mean net per hand with its 95 % interval, its score and Elo gap, then the bots'
Elo-like ratings.  Progress goes to stderr when stderr is a terminal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from .app import app, reported
from .options import load_variant_files, option_option, variant_file_option, variant_option
from .render import console, print_json, safe

#: one line about each bot, for ``tonk bots``
ABOUT = {
    "random": "a uniformly random legal action",
    "greedy": "a sensible player by rules of thumb (lay spreads, throw high loose cards, knock when well below the estimate)",
    "expert": "expected value over the cards it cannot see, by playouts of sampled deals on the engine",
}


@app.command("bots")
def bots_cmd(
    ctx: typer.Context,
    ladder: bool = typer.Option(False, "--ladder", help="Play every pair of bots (seats swapped) and rank them."),
    bot: list[str] = typer.Option([], "--bot", "-b", metavar="NAME", help="A bot on the ladder (repeatable; default every bot)."),
    hands: int = typer.Option(500, "--hands", "-n", metavar="N", help="Hands per pairing and seating (each pair plays 2 x N)."),
    players: int = typer.Option(2, "--players", "-p", metavar="P", help="Seats at the table (the two bots alternate round it)."),
    variant: list[str] = variant_option(),
    option: list[str] = option_option(),
    variant_file: list[Path] = variant_file_option(),
    seed: int = typer.Option(0, "--seed", "-s", metavar="S", help="Seed: the same seed gives the same ladder."),
    workers: int = typer.Option(1, "--workers", "-w", metavar="W", help="Worker processes."),
    as_json: bool = typer.Option(False, "--json", help="Print the bots (or the ladder) as JSON."),
) -> None:
    """List the bots; with --ladder, play them against each other and rate them."""
    from ..core.bots import bot_names
    from ..core.errors import TonkError

    with reported():
        if not ladder:
            if bot or variant or option or variant_file:
                raise TonkError("--bot, --variant, --option and --variant-file choose what the ladder plays: give --ladder")
            given = [f"--{name}" for name in ("hands", "players", "seed", "workers") if getattr(ctx.get_parameter_source(name), "name", None) == "COMMANDLINE"]
            if given:
                raise TonkError(f"{', '.join(given)}: how the ladder is played: give --ladder")
            names = bot_names()
            if as_json:
                print_json({"bots": [{"name": n, "about": ABOUT.get(n, "")} for n in names]})
                return
            for n in names:
                console().print(f"[bold]{safe(n)}[/bold]  {safe(ABOUT.get(n, ''))}")
            return
        if variant_file:  # as simulate loads them: into this process, which then plays every game
            load_variant_files(variant_file, workers)
        result = _run_ladder(bot or bot_names(), hands, players, variant, option, seed, workers)
    if as_json:
        print_json(result)
        return
    _print_ladder(result)


def _run_ladder(bots: list[str], hands: int, players: int, variants: list[str], options: list[str], seed: int, workers: int) -> dict[str, Any]:
    from ..application.bot_ladder import LadderConfig, ladder
    from ..variants.loading import build_ruleset, parse_option_pairs
    from .interrupts import interruption_reported
    from .progress import progress

    ruleset = build_ruleset(variants, options)
    given = [k for k, _ in parse_option_pairs(options)]
    config = LadderConfig(
        bots=tuple(bots),
        hands=hands,
        players=players,
        seed=seed,
        variants=tuple(ruleset.variants),
        options={k: ruleset.options[k] for k in given},
        workers=workers,
    )
    config.check()
    with interruption_reported(lambda: "nothing is kept of a ladder run"), progress("ladder", config.total_hands, "hands") as advance:
        return ladder(config, advance)


def _print_ladder(result: dict[str, Any]) -> None:
    from rich.table import Table

    out = console()
    cfg = result["config"]
    rules = " ".join(cfg["variants"]) or "classic"
    if cfg["options"]:  # as simulate's reports name them
        rules += " " + " ".join(f"{k}={v}" for k, v in cfg["options"].items())
    out.print(
        f"[bold]bot ladder[/bold]: {cfg['hands']} hands per pairing and seating, {cfg['players']} players, "
        f"rules {safe(rules)}, seed {cfg['seed']}"
    )
    t = Table(title="pairings (A's net per hand, seats swapped; 95% interval)", box=None, padding=(0, 1), title_justify="left")
    for col, just in (("A", "left"), ("B", "left"), ("hands", "right"), ("A net/hand", "right"), ("95% interval", "right"), ("A score", "right"), ("Elo gap", "right")):
        t.add_column(col, justify=just)  # type: ignore[arg-type]
    for p in result["pairings"]:
        lo, hi = p["ci"]
        t.add_row(safe(p["a"]), safe(p["b"]), str(p["hands"]), f"{p['mean_net']:+.3f}", f"{lo:+.3f} to {hi:+.3f}", f"{100 * p['score']:.1f}%", f"{p['elo_gap']:+.0f}")
    out.print(t)
    r = Table(title="ratings (Elo-like, mean 1500)", box=None, padding=(0, 1), title_justify="left")
    for col, just in (("bot", "left"), ("rating", "right"), ("mean net/hand", "right")):
        r.add_column(col, justify=just)  # type: ignore[arg-type]
    for row in result["ratings"]:
        r.add_row(safe(row["bot"]), f"{row['rating']:.0f}", f"{row['mean_net']:+.3f}")
    out.print(r)
