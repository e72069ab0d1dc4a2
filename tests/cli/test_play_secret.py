"""``tonk play``: names checked where they enter; an unseeded game is secret until it ends."""

from __future__ import annotations

import re

import pytest

from tonk.core.events import GameEnded, GameStarted, HandDealt, encode
from tonk.storage import EventStore


@pytest.mark.parametrize(
    "args, why",
    [
        (["--seat", "ann\x1b[31m"], "--seat 'ann\\x1b[31m' contains the non-printable character U+001B"),
        (["--seat", "ann\rverdict: clean"], "U+000D"),
        (["--seat", " ann"], "starts or ends with whitespace"),
        (["--seat", "a" * 41], "at most 40"),
        (["--bot", "bo\x07b=random"], "--bot seat name 'bo\\x07b' contains"),
    ],
)
def test_bad_names_are_refused_before_anything_is_stored(tonk, db, clean_failure, args, why):
    result = tonk("play", *args, input="k\n")
    clean_failure(result, 2, why)
    assert "\x1b" not in result.stderr and "\r" not in result.stderr
    if db.exists():
        with EventStore.open(db) as store:
            assert store.game_ids() == []


def test_an_unseeded_game_keeps_its_seed_until_it_ends(tonk, db):
    result = tonk("play", "--bot", "random", "--hands", "2", input="k\n" * 20)
    assert result.exit_code == 0, result.stdout + result.stderr
    gid = re.search(r"recorded as game (\S+)", result.stdout).group(1)
    with EventStore.open(db) as store:
        events = store.read(gid)
    started, ended = events[0], events[-1]
    assert isinstance(started, GameStarted) and isinstance(ended, GameEnded)
    seed = ended.seed
    assert seed.isdigit() and len(seed) > 20  # a 128-bit secret, not a small guessable number
    # nothing recorded before the end names it
    assert all(seed not in encode(e).decode() for e in events[:-1])
    # and it is the seed of the game: it reproduces the cut (the decks are the fair deal's)
    from tonk.core import Game
    from tonk.variants import load_ruleset

    again = Game.new(list(started.players), ruleset=load_ruleset(started.ruleset), seed=int(seed), game_id=gid)
    assert again.events[0].cut == started.cut and again.events[0].dealer == started.dealer


def test_an_unseeded_game_is_dealt_fairly_and_verifies_like_a_served_one(tonk, db, tmp_path):
    """``tonk play`` draws the server seed and the person's seed itself (docs/fair-deal.md):
    the server seed is committed in game_started, revealed only in game_ended, and every
    deck recomputes from it, the person's seed (the bot's is empty) and the hand number."""
    import json

    from tonk.core import fair_deal
    from tonk.variants import load_ruleset

    result = tonk("play", "--seat", "ann", "--bot", "random", "--hands", "2", input="k\n" * 20)
    assert result.exit_code == 0, result.stdout + result.stderr
    gid = re.search(r"recorded as game (\S+)", result.stdout).group(1)
    with EventStore.open(db) as store:
        events = store.read(gid)
    started, ended = events[0], events[-1]
    assert fair_deal.seed_hash(ended.server_seed) == started.server_seed_hash
    assert all(ended.server_seed not in encode(e).decode() for e in events[:-1])
    deals = [e for e in events if isinstance(e, HandDealt)]
    assert [d.nonce for d in deals] == [1, 2] and all(d.deal_scheme == "tonk-deal-v1" for d in deals)
    assert deals[0].client_seeds["random"] == "" and fair_deal.client_seed_problem(deals[0].client_seeds["ann"]) is None
    assert ended.server_seed not in result.stdout[: result.stdout.index("game over")]
    for d in deals:
        assert d.deck == fair_deal.fair_deck(ended.server_seed, d.hand_no, started.players, d.client_seeds, load_ruleset(started.ruleset).deck)
    audit = tonk("audit", gid, "--json")
    assert audit.exit_code == 0, audit.stdout
    assert json.loads(audit.stdout)["games"][0]["deal"]["guarantees"] == "secret and committed, and fair"
    # the README's "A verified deal", step by step: the audit's words, the export, the doc's verifier
    from pathlib import Path
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    said = "deals: secret and committed, and fair: 2 of 2 decks follow from the seeds"
    assert said in tonk("audit", gid).stdout and f'"{said}"' in (root / "README.md").read_text()
    assert tonk("export", gid, "--output", str(tmp_path / "game.jsonl")).exit_code == 0
    (code,) = re.findall(r"```python\n(.*?)```", (root / "docs" / "fair-deal.md").read_text(), re.S)
    (tmp_path / "verify_deal.py").write_text(code)
    checked = subprocess.run([sys.executable, "-I", str(tmp_path / "verify_deal.py"), str(tmp_path / "game.jsonl")], capture_output=True, text=True)
    assert checked.returncode == 0 and checked.stdout.splitlines()[1:] == ["hand 1: deck verified", "hand 2: deck verified"], checked.stdout


def test_a_game_resumed_in_another_session_is_said_not_shown_fair(tonk, db):
    """docs/fair-deal.md: a game continued with ``tonk play --resume`` never held the server
    seed, so nothing reveals it, and ``tonk audit`` says the game is not shown fair (its
    later hands are shuffled from a source nothing records, not from a seed of the game)."""
    import json

    for _ in range(10):  # the secret deals may end all three hands before your first turn: then another game
        first = tonk("play", "--bot", "random", "--hands", "3", input="q\n")
        if "you quit" in first.stdout:
            break
    else:
        raise AssertionError("ten secret games in a row ended before your first turn")
    gid = re.search(r"tonk play --resume (\S+)", first.stdout).group(1)
    with EventStore.open(db) as store:
        (full,) = [g for g in store.game_ids() if g.startswith(gid)]
        before = sum(isinstance(e, HandDealt) for e in store.read(full))  # hand 1 may have ended (and 2 been dealt) before the quit
    resumed = tonk("play", "--resume", gid, "--hands", "2", input="k\n" * 40)
    assert resumed.exit_code == 0 and "game over after" in resumed.stdout, resumed.stdout
    with EventStore.open(db) as store:
        events = store.read(full)
    dealt = [e for e in events if isinstance(e, HandDealt)]
    assert len(dealt) > before
    assert all(isinstance(e.deal_scheme, str) for e in dealt[:before]) and not any(isinstance(e.deal_scheme, str) for e in dealt[before:])
    assert isinstance(events[-1], GameEnded) and events[-1].server_seed == ""
    audit = tonk("audit", gid, "--json")
    assert audit.exit_code == 0, audit.stdout
    (g,) = json.loads(audit.stdout)["games"]
    assert g["verdict"] == "clean" and g["deal"]["guarantees"] == "committed, not secret"
    assert g["deal"]["statement"] == "committed, not secret; NOT shown fair: the server seed was never revealed"


def test_a_seeded_game_stays_reproducible_and_says_it_is_not_secret(tonk, db):
    import json

    result = tonk("play", "--seed", "5", "--bot", "random", input="k\n" * 10)
    gid = re.search(r"recorded as game (\S+)", result.stdout).group(1)
    audit = json.loads(tonk("audit", gid, "--json").stdout)["games"][0]
    assert audit["deal"]["guarantees"] == "committed, not secret" and audit["verdict"] == "clean"


def test_the_human_does_not_always_play_first_without_a_seed(tonk):
    first = set()
    for _ in range(20):  # all 20 with one dealer by chance: 1 in 500,000
        out = tonk("play", "--bot", "random", input="q\n").stdout
        first.add(re.search(r"dealer (\w+)", out).group(1))
    assert len(first) == 2


@pytest.mark.parametrize("command", ["play", "simulate"])
def test_seed_help_says_a_seeded_game_is_not_secret(tonk, command):
    out = tonk(command, "--help").stdout
    seed_help = re.sub(r"\s+", " ", out.replace("│", " ")).split("--seed", 1)[1].split(" --", 1)[0]
    assert "NOT secret" in seed_help
