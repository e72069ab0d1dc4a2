"""`tonk import` on hostile files: deep nesting, odd numbers, game ids and player names that
are not what the engine makes: one `error:` line naming the file and line, exit 2, nothing stored."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from tonk.cli.app import app
from tonk.core import Game
from tonk.variants import load_ruleset
from tonk.core.events import encode
from tonk.storage.chain import GENESIS, link_hash
from tonk.storage.jsonl import header_line

runner = CliRunner()
UUID = "0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b"


def _lines(game_id: str, players=("ann", "bob", "cy")) -> list[bytes]:
    """A valid export of a short game (a chain that checks), with this id and, in its
    game_started, these names (the engine itself refuses to start a game with bad names)."""
    g = Game.new(["ann", "bob", "cy"], ruleset=load_ruleset(), seed=3, dealer="cy", game_id=game_id if game_id == UUID else None)
    g.deal()
    events = [msgspec.structs.replace(g.events[0], game_id=game_id, players=tuple(players))] + g.events[1:]
    out, prev = [], GENESIS
    for seq, e in enumerate(events, 1):
        payload = encode(e)
        h = link_hash(prev, payload, 1, "", "")  # a line without "chain": version 1
        rec = {"game_id": game_id, "seq": seq, "type": e.__struct_config__.tag, "recorded_at": "2026-11-30T00:00:00Z",
               "hash": h, "prev_hash": prev, "command_id": "", "payload": msgspec.Raw(payload)}
        out.append(msgspec.json.encode(rec) + b"\n")
        prev = h
    return out


def _import(tmp_path: Path, body: list[bytes]):
    path = tmp_path / "in.jsonl"
    path.write_bytes(header_line() + b"".join(body))
    db = tmp_path / "t.db"
    result = runner.invoke(app, ["--db", str(db), "import", str(path)])
    return path, db, result


def test_a_good_file_imports(tmp_path):
    _, _, result = _import(tmp_path, _lines(UUID))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    "body, line, why",
    [
        ([b'{"game_id": "x", "payload": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"], 2, "nesting deeper than 64 levels"),
        ([b'{"game_id": "x", "payload": {"a": ' + b"[" * 70 + b"]" * 70 + b"}}\n"], 2, "nesting deeper than 64 levels"),
    ],
)
def test_deep_nesting_is_refused_by_line(tmp_path, clean_failure, body, line, why):
    path, db, result = _import(tmp_path, body)
    clean_failure(result, 2, f"{path}:{line}")
    assert why in result.stderr


@pytest.mark.parametrize("game_id", ["not-a-uuid", "case-T05", UUID.upper(), UUID + "\x1b[2J"])
def test_a_game_id_not_made_by_the_engine_is_refused(tmp_path, clean_failure, game_id):
    path, db, result = _import(tmp_path, _lines(game_id))
    clean_failure(result, 2, f"{path}:2")
    assert "is not a game id" in result.stderr
    assert "\x1b" not in result.stderr


@pytest.mark.parametrize("name, why", [("ann\x1b[31m", "U+001B"), ("bob\rverdict: clean", "U+000D"), (" cy", "whitespace"), ("x" * 41, "at most 40")])
def test_a_player_name_outside_the_rule_is_refused(tmp_path, clean_failure, name, why):
    path, db, result = _import(tmp_path, _lines(UUID, ("ann", "bob", name)))
    clean_failure(result, 2, f"{path}:2")
    assert "player name" in result.stderr and why in result.stderr
    assert "\x1b" not in result.stderr and "\r" not in result.stderr


def test_a_deeply_nested_header_is_refused_at_line_1(tmp_path, clean_failure):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"format": "tonk-events", "format_version": 1, "x": ' + b"[" * 1000 + b"]" * 1000 + b"}\n")
    result = runner.invoke(app, ["--db", str(tmp_path / "t.db"), "import", str(path)])
    clean_failure(result, 2, f"{path}:1")
    assert "nesting deeper than 64 levels" in result.stderr
