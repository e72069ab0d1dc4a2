"""``tonk simulate``: many hands between bots under a ruleset, and what a house rule changes.

    tonk simulate --hands 10000 --players 3 --bot greedy --bot random --seed 7 --no-store
    tonk simulate --hands 5000 --compare hit-penalty          # base game against hit-penalty
    tonk simulate --hands 5000 --variant hit-penalty --compare classic --json
    tonk simulate --hands 5000 --compare no-initial-tonk --report lab.html   # the house-rule lab

A thin command over :mod:`tonk.application.simulate`: the report (hands per second,
endings, win rate and mean net per seat and per bot, tonk outs, knocks, hand
length) is printed as tables, or as JSON with ``--json``.  A progress bar goes
to stderr when stderr is a terminal.  Simulated games are appended to the
store (``--db``, default the global ``--db``) unless ``--no-store``; with
``--db :memory:`` they are appended through the whole store contract to a new
in-memory store and discarded (``docs/decisions.md``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

# the engine and rich's tables are imported when the command runs, not when the app starts
from .app import app, reported, settings, unwritable
from .options import db_option, load_variant_files, option_option, variant_file_option, variant_option
from .render import console, err_console, print_json, safe, visible
from .interrupts import interruption_reported

if TYPE_CHECKING:
    from rich.console import JustifyMethod

BASE_NAMES = ("classic", "base")


def _config(hands: int, players: int, bots: list[str], variants: list[str], options: list[str], seed: int, hands_per_game: int, workers: int):
    """A checked simulation config from command-line texts (options typed by their specs)."""
    from ..variants.loading import build_ruleset, parse_option_pairs
    from ..application.simulate import SimConfig

    ruleset = build_ruleset(variants, options)
    given = [k for k, _ in parse_option_pairs(options)]
    config = SimConfig(
        hands=hands,
        players=players,
        bots=tuple(bots) or ("greedy",),
        variants=tuple(ruleset.variants),
        options={k: ruleset.options[k] for k in given},
        seed=seed,
        hands_per_game=hands_per_game,
        workers=workers,
    )
    config.check()
    return config


def _split_compare(texts: list[str]) -> tuple[list[str], list[str]]:
    """``--compare`` values: variant names and ``K=V`` options of the other ruleset."""
    variants, options = [], []
    for t in texts:
        t = t.strip()
        if "=" in t:
            options.append(t)
        elif t.lower() not in BASE_NAMES:
            variants.append(t)
    return variants, options


def _ruleset_label(config) -> str:
    parts = list(config.variants) or ["classic"]
    parts += [f"{k}={v}" for k, v in config.options.items()]
    return " ".join(parts)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _print_report(r: dict, title: str) -> None:
    from rich.table import Table

    out = console()
    cfg = r["config"]
    rules = " ".join(cfg["variants"]) or "classic"
    if cfg["options"]:
        rules += " " + " ".join(f"{k}={v}" for k, v in cfg["options"].items())
    # the rules' names and values are data (a variant file names itself): never markup
    out.print(f"[bold]{safe(title)}[/bold]: {r['hands']} hands in {r['games']} games, {cfg['players']} players, rules {safe(rules)}, seed {cfg['seed']}")
    if "seconds" in r:
        out.print(
            f"  {r['hands_per_second']:,.0f} hands/s, {r['actions_per_second']:,.0f} actions/s "
            f"({r['seconds']:.2f} s, {cfg['workers']} worker{'s' if cfg['workers'] != 1 else ''})"
        )
    out.print(
        f"  mean hand: {r['mean_hand_actions']:.1f} actions, {r['mean_hand_turns']:.1f} turns; "
        f"tonk outs {_pct(r['tonk_out_rate'])}; knocks {r['knocks']['total']} "
        f"(won {r['knocks']['won']}, caught {r['knocks']['caught']}, {_pct(r['knocks']['won_rate'])} won)"
    )
    ends = Table(title="endings", box=None, padding=(0, 1), title_justify="left")
    ends.add_column("ending")
    ends.add_column("hands", justify="right")
    ends.add_column("share", justify="right")
    for name, e in r["endings"].items():
        ends.add_row(safe(name), str(e["count"]), _pct(e["share"]))
    out.print(ends)
    seats = Table(title="seats", box=None, padding=(0, 1), title_justify="left")
    seat_columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("seat", "left"), ("bot", "left"), ("win rate", "right"), ("mean net", "right"), ("knocks", "right"), ("won", "right"), ("caught", "right"), ("tonk outs", "right")
    )
    for col, just in seat_columns:
        seats.add_column(col, justify=just)
    for s in r["seats"]:
        seats.add_row(
            safe(s["player"]), safe(s["bot"]), _pct(s["win_rate"]), f"{s['mean_net']:+.3f}", str(s["knocks"]), str(s["knocks_won"]), str(s["knocks_caught"]), str(s["tonk_outs"])
        )
    out.print(seats)
    if len(r["bots"]) > 1:
        bots = Table(title="bots", box=None, padding=(0, 1), title_justify="left")
        bot_columns: tuple[tuple[str, JustifyMethod], ...] = (("bot", "left"), ("seats", "right"), ("win rate", "right"), ("mean net", "right"), ("knocks won", "right"))
        for col, just in bot_columns:
            bots.add_column(col, justify=just)
        for name, b in r["bots"].items():
            bots.add_row(safe(name), str(b["seats"]), _pct(b["win_rate"]), f"{b['mean_net']:+.3f}", _pct(b["knock_win_rate"]))
        out.print(bots)


def _print_comparison(result: dict, label_a: str, label_b: str) -> None:
    from rich.table import Table

    from ..application.lab_report import difference_text, figure_text

    out = console()
    t = Table(title=f"A: {safe(label_a)}   B: {safe(label_b)}   (same seeds, decks and bots; 95% intervals)", box=None, padding=(0, 1), title_justify="left")
    t.add_column("figure")
    t.add_column("A", justify="right")
    t.add_column("B", justify="right")
    t.add_column("B - A (95% interval)", justify="right")
    t.add_column("verdict")
    for row in result["rows"]:
        t.add_row(safe(row["metric"]), figure_text(row, row["a"]), figure_text(row, row["b"]), difference_text(row), row["verdict"])
    out.print(t)


def store_counts(path: str | None, *, integrity_check: bool = True) -> tuple[int, int]:
    """Games and events in the store at ``path`` (``(0, 0)`` when there is none yet).
    ``integrity_check=False``: the store is not checked first (the run that just wrote it
    checked it when it opened it)."""
    if path is None:
        return 0, 0
    from ..storage.open import is_postgres, open_store, store_exists

    if not store_exists(path):
        return 0, 0
    # a PostgreSQL store is made here if the database holds none (the simulation makes it next)
    with open_store(path, create=is_postgres(path), integrity_check=integrity_check) as store:
        return store.game_count(), store.last_position()  # positions are gap-free: the number of events


def _is_memory(path: str) -> bool:
    from ..storage.open import is_memory

    return is_memory(path)


def store_line(store: dict) -> str:
    """What the run stored, and where, in one sentence."""
    from .render import safe

    where = safe(store["path"])
    if store["games_written"] == 0 and store["games_expected"]:
        return (
            f"stored nothing in {where}: its {store['games_expected']} game(s) were already there "
            "(the same seed, bots and rules give the same games; use another --seed to add new ones)"
        )
    text = f"stored {store['games_written']} game(s), {store['events_written']} event(s) in {where}"
    already = store["games_expected"] - store["games_written"]
    if already > 0:
        text += f" ({already} game(s) of this run were already there)"
    return text


@app.command("simulate")
def simulate_cmd(
    ctx: typer.Context,
    hands: int = typer.Option(1000, "--hands", "-n", metavar="N", help="How many hands to play."),
    players: int = typer.Option(3, "--players", "-p", metavar="P", help="Seats at the table."),
    bot: list[str] = typer.Option([], "--bot", "-b", metavar="NAME", help="A bot per seat in seat order, repeated to fill the table (default greedy). Bots: random, greedy, expert."),
    variant: list[str] = variant_option(),
    option: list[str] = option_option(),
    variant_file: list[Path] = variant_file_option(),
    seed: int = typer.Option(
        0,
        "--seed",
        "-s",
        metavar="S",
        help="Seed: the same seed gives the same games, so a seeded game is NOT secret (anyone who knows or guesses the seed knows every deck).",
    ),
    db: Optional[str] = db_option(),
    no_store: bool = typer.Option(False, "--no-store", help="Do not store the games."),
    workers: int = typer.Option(1, "--workers", "-w", metavar="W", help="Worker processes (each plays and stores whole games)."),
    hands_per_game: int = typer.Option(50, "--hands-per-game", metavar="H", help="Hands per game (one game is one stored event stream)."),
    compare_with: list[str] = typer.Option(
        [],
        "--compare",
        "-c",
        metavar="VARIANT|KEY=VALUE",
        help="Also run the same seeds under another ruleset, made of these variants and options (repeatable; 'classic' alone means the base game), and show both side by side.",
    ),
    receipts: Optional[Path] = typer.Option(None, "--receipts", metavar="DIR", help="Write each seat a signed receipt into DIR at every hand's end of the stored games."),
    report_file: Optional[Path] = typer.Option(
        None, "--report", metavar="FILE.html", help="With --compare: also write the house-rule lab's report, one self-contained HTML page (no network, no script)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Simulate many hands between bots and report what happened."""
    from ..core.errors import TonkError

    # the store's modules (sqlite-utils: about 50 ms) are imported only when there is a store
    path = None if no_store else settings(ctx).db
    with reported():
        if db is not None and no_store:
            raise TonkError("give either --db PATH or --no-store, not both")
        if receipts is not None and no_store:
            raise TonkError("--receipts needs the games stored: drop --no-store")
        if receipts is not None and path is not None and _is_memory(path):
            raise TonkError("--receipts needs the games kept: --db :memory: discards them when the run ends")
        if report_file is not None and not compare_with:
            raise TonkError("--report writes the comparison of two rulesets: give --compare too")
        if report_file is not None and (why := unwritable(report_file)):
            raise TonkError(f"--report: cannot write {report_file}: {why} (nothing was simulated)")
        if variant_file:
            load_variant_files(variant_file, workers)
        config, other = _configs(hands, players, bot, variant, option, seed, hands_per_game, workers, compare_with)
        if receipts is not None and path is not None:  # path: refused above with --no-store
            from .evidence_cmd import check_receipts_possible

            check_receipts_possible(path, receipts)
        result, store = _run(config, other, path, receipts)
        if report_file is not None:
            _write_report(report_file, result, config, other)
    if as_json:
        if store is not None:
            result["store"] = store
        print_json(result)
        return
    _print_result(result, config, other, store)


def _configs(
    hands: int, players: int, bots: list[str], variants: list[str], options: list[str], seed: int, hands_per_game: int, workers: int, compare_with: list[str]
) -> tuple[Any, Any]:
    """The simulation's config, and with ``--compare`` the other ruleset's (same seeds, bots
    and sizes); an unknown bot or a bad ruleset is an error naming it."""
    from ..core.bots import bot_names
    from ..core.errors import RulesetError, SetupError, TonkError

    bots = bots or ["greedy"]
    for name in bots:
        if name not in bot_names():
            from ..core.names import quoted

            raise TonkError(f"unknown bot {quoted(name)} (bots: {', '.join(bot_names())})")
    config = _config(hands, players, bots, variants, options, seed, hands_per_game, workers)
    if not compare_with:
        return config, None
    cv, co = _split_compare(compare_with)
    try:
        return config, _config(hands, players, bots, cv, co, seed, hands_per_game, workers)
    except RulesetError as exc:
        raise RulesetError(f"--compare: {exc}") from None
    except SetupError as exc:  # the other ruleset's seats: not those of --variant's
        raise SetupError(f"--compare: {exc}") from None


def _write_report(path: Path, result: dict[str, Any], config: Any, other: Any) -> None:
    """The house-rule lab's HTML page (:mod:`tonk.application.lab_report`); a path that cannot
    be written is an error naming it, and leaves no half-written page (nor a report that was
    there before cut short): the page is written beside it and renamed into place."""
    from ..application.lab_report import lab_html
    from ..core.errors import TonkError

    page = lab_html(result, _ruleset_label(config), _ruleset_label(other))
    try:
        _write_whole(path, page)
    except OSError as exc:
        raise TonkError(f"--report: cannot write {path}: {exc.strerror or exc}") from None
    err_console().print(f"wrote the report to {visible(path)}", markup=False, highlight=False)  # not markup: shown as named


def _write_whole(path: Path, text: str) -> None:
    """``text`` into ``path`` whole or not at all: written to a new file in its directory and
    renamed over it (a link's target, not the link); what is not a plain file (``/dev/stdout``,
    a pipe) is written to as it is, there being nothing to leave half-written."""
    import os
    import secrets

    if path.exists() and not path.is_file():
        path.write_text(text, encoding="utf-8")
        return
    target = Path(os.path.realpath(path))
    tmp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        with open(tmp, "x", encoding="utf-8") as out:  # default permissions, unlike mkstemp's 0600
            out.write(text)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _run(config: Any, other: Any, path: str | None, receipts: Path | None) -> tuple[Any, dict[str, Any] | None]:
    """Play the simulation (both rulesets with ``other``) under a progress bar, write the
    receipts, and say what the run stored: ``(result, store figures or None)``; an in-memory
    store (``--db :memory:``) says how many games it took and that it kept none."""
    from ..application.simulate import compare_rulesets, simulate
    from ..storage.open import describe
    from .progress import progress

    runs = 2 if other is not None else 1
    before = store_counts(path)
    with interruption_reported(lambda: "nothing was stored (--no-store)"), progress(f"simulating {_ruleset_label(config)}", config.hands * runs, "hands") as advance:
        if other is None:
            result: Any = simulate(config, path, advance)
        else:
            result = compare_rulesets(config, other, path, advance)
    if receipts is not None and path is not None:
        from .evidence_cmd import write_simulation_receipts

        written = write_simulation_receipts(path, receipts, [c for c in (config, other) if c is not None])
        err_console().print(f"wrote {written} receipt(s) to {visible(receipts)}", markup=False, highlight=False)
    if path is None:
        return result, None
    if _is_memory(path):
        return result, {"path": str(path), "games_appended": config.games * runs, "kept": False}
    after = store_counts(path, integrity_check=False)
    return result, {
        "path": describe(path),  # a URL without its password
        "games_written": after[0] - before[0],
        "events_written": after[1] - before[1],
        "games_expected": config.games * runs,
        "games_in_store": after[0],
    }


def _print_result(result: Any, config: Any, other: Any, store: dict[str, Any] | None) -> None:
    label = _ruleset_label(config)
    if other is None:
        _print_report(result, "simulation")
    else:
        _print_report(result["a"], f"A ({label})")
        _print_report(result["b"], f"B ({_ruleset_label(other)})")
        _print_comparison(result, label, _ruleset_label(other))
    if store is not None and store.get("kept") is False:
        console().print(f"appended {store['games_appended']} game(s) to an in-memory store (:memory:) and discarded them")
    elif store is not None:
        console().print(store_line(store))
    else:
        console().print("not stored (--no-store)")
