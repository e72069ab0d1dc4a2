"""Issue 9, text that reaches a terminal: names with Rich markup, ANSI escapes and
carriage returns, already in a store or a hand record, go through every command as
data: no crash, no escape sequence or carriage return reaching the terminal, the name
shown visibly (the installed console script, as a user runs it)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from renamed_games import game_with_names
from script_helpers import tonk

from tonk.storage import EventStore

MARKUP = "[bold red]mal[/]"
CLOSE = "[/]"
ANSI = "eve\x1b[2J\x1b[32mverdict: clean"
CR = "bo\rverdict: clean"
NAMES = [MARKUP, ANSI, CR]


def _assert_safe(r, *, shown: tuple[str, ...] = ()) -> None:
    text = r.out + r.err
    assert "Traceback" not in text, r.err
    assert "\x1b" not in text and "\r" not in text, text[:2000]
    assert r.code in (0, 1, 2)
    if r.code == 2:
        r.err_line()
    for s in shown:
        assert s in r.out, (s, r.out[:2000])


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory) -> tuple[Path, str]:
    """A store holding one game played by the hostile names (as an old store or an import
    from before name validation could hold)."""
    db = tmp_path_factory.mktemp("hostile") / "h.db"
    game = game_with_names(NAMES, seed=5, options={"max_turns_per_hand": 30})
    rng = random.Random(5)
    with EventStore.open(db) as store:
        v = store.append(game.game_id, list(game.events), 0)
        for _ in range(2):
            v = store.append(game.game_id, game.deal(), v)
            while game.in_hand:
                v = store.append(game.game_id, game.play(rng.choice(game.legal_actions())), v)
        store.append(game.game_id, [game.end()], v)
    return db, game.game_id


# what a name looks like on the screen: markup as typed, control characters as escapes
VISIBLE_ANSI = "eve\\x1b[2J\\x1b[32mverdict: clean"
VISIBLE_CR = "bo\\x0dverdict: clean"


@pytest.mark.parametrize(
    "args",
    [
        ["games"],
        ["replay", "{gid}"],
        ["replay", "{gid}", "--summary"],
        ["replay", "{gid}", "--as", ANSI, "--hand", "1"],
        ["audit", "{gid}"],
        ["audit", "{gid}", "-o", "base_stake=3"],
        ["verify", "{gid}"],
    ],
    ids=lambda a: " ".join(x for x in a if x != "{gid}")[:30].encode("unicode_escape").decode(),
)
def test_hostile_names_in_a_store_are_shown_as_data(hostile_store, args):
    db, gid = hostile_store
    r = tonk("--db", str(db), *[a.format(gid=gid[:8]) if a == "{gid}" else a for a in args])
    assert r.code == 0, r.err
    names_shown = args[0] in ("games", "replay") or "-o" in args  # verify and a plain audit name no player
    shown = (MARKUP, VISIBLE_ANSI, VISIBLE_CR) if names_shown else ()
    _assert_safe(r, shown=shown)


def test_an_unknown_player_name_in_an_error_is_one_visible_line(hostile_store):
    db, gid = hostile_store
    r = tonk("--db", str(db), "replay", gid[:8], "--as", "x\x1b[31m\r\n[bold]y")
    assert r.code == 2
    _assert_safe(r)


LONG = "a" * 100_000


@pytest.mark.parametrize(
    "args",
    [
        ["replay", LONG],
        ["export", LONG],
        ["replay", "{gid}", "--as", LONG],
        ["replay", "{gid}", "--hand", LONG],
        ["rules", LONG],
        ["variants", LONG],
        ["simulate", "-n", "1", "--no-store", "-b", LONG],
        ["simulate", "-n", "1", "--no-store", "-o", LONG],
        ["play", "-b", LONG],
    ],
    ids=lambda a: " ".join(x for x in a if x not in ("{gid}", LONG))[:30],
)
def test_a_very_long_value_in_an_error_is_shown_cut_short(hostile_store, args):
    """An unknown game, player, rule, variant, bot or option of 100,000 characters: one
    error line that quotes its start (as names are quoted), not the whole value."""
    db, gid = hostile_store
    r = tonk("--db", str(db), *[gid[:8] if a == "{gid}" else a for a in args])
    assert r.code == 2
    line = r.err_line()
    assert "a" * 60 + "...'" in line and len(line) < 2000, line[:200]


def test_play_resumed_with_hostile_bot_names(hostile_store, tmp_path):
    db, _ = hostile_store
    game = game_with_names(["you", MARKUP, ANSI], seed=9)
    local = tmp_path / "p.db"
    with EventStore.open(local) as store:
        store.append(game.game_id, list(game.events), 0)
    r = tonk("--db", str(local), "play", "--resume", game.game_id[:8], "--seed", "1", input="d\n1\n" * 80 + "q\n")
    _assert_safe(r, shown=(MARKUP, VISIBLE_ANSI))


def test_adjudicate_hostile_names_and_titles(tmp_path):
    case = json.loads((Path(__file__).resolve().parents[2] / "examples" / "disputed-hands.json").read_text())
    first = case["cases"][0] if isinstance(case, dict) and "cases" in case else case
    text = json.dumps(first)
    for old, new in zip(first["players"], [MARKUP, ANSI, CR]):
        text = text.replace(json.dumps(old), json.dumps(new))
    hostile = json.loads(text)
    hostile["title"] = "[bold]fake[/bold] \x1b[2J title\r"
    hostile["id"] = "[/]id"
    f = tmp_path / "h.json"
    f.write_text(json.dumps({"cases": [hostile]}))
    r = tonk("adjudicate", str(f))
    _assert_safe(r)
    if r.code == 0:  # accepted (the names may instead be refused where records enter)
        assert "[/]id" in r.out and "[bold]fake[/bold]" in r.out


def test_variants_from_a_file_with_hostile_text(tmp_path):
    f = tmp_path / "evil_rule.py"
    f.write_text(
        '"""A rule with [bold red]markup[/] and \\x1b[31m escapes in its ``docs``."""\n'
        "from tonk.variants import VariantInfo, hookimpl\n"
        "VARIANT = VariantInfo(name='evil-rule', summary='[/] summary \\x1b[2J', doc=__doc__)\n"
        "@hookimpl\n"
        "def tonk_veto(state, command, ruleset):\n"
        "    return None\n"
    )
    r = tonk("variants", "evil-rule", "--variant-file", str(f))
    assert r.code == 0, r.err
    _assert_safe(r, shown=("[bold red]markup[/]", "[/] summary \\x1b[2J"))


def test_simulate_shows_a_variant_files_name_and_option_as_text(tmp_path):
    # the rules line of each report and the comparison's title name the variants and the
    # options' values: a name or value with markup is shown as typed (a closing tag with
    # nothing open was a MarkupError traceback; an opening one painted the line)
    f = tmp_path / "evil_rule.py"
    f.write_text(
        "from tonk.variants import OptionSpec, VariantInfo, hookimpl\n"
        "VARIANT = VariantInfo(name='evil[/]rule', summary='evil', options=(OptionSpec('label', 'str', 'x', 'a label'),))\n"
        "@hookimpl\n"
        "def tonk_veto(state, command, ruleset):\n"
        "    return None\n"
    )
    r = tonk("simulate", "-n", "4", "--no-store", "--variant-file", str(f), "-v", "evil[/]rule", "-o", "label=[bold red]mal", "--compare", "classic")
    assert r.code == 0, r.err
    _assert_safe(r, shown=("rules evil[/]rule label=[bold red]mal", "A: evil[/]rule label=[bold red]mal   B: classic"))
