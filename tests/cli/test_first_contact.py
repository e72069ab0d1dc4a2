"""Issue 10, first contact: install, --version, usage errors, help as a user types it,
output piped to a file exact (the installed console script, run as a user would)."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from pathlib import Path

import pytest
from script_helpers import tonk

ROOT = Path(__file__).resolve().parents[2]


def test_install_prints_no_license_deprecation_warning(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    assert "project.license" not in p.stdout + p.stderr
    assert "SPDX" not in p.stdout + p.stderr


def test_version_names_engine_event_format_and_python():
    r = tonk("--version")
    assert r.code == 0 and r.err == ""
    from importlib.metadata import version

    from tonk.core.events import FORMAT_VERSION

    assert r.out.strip() == f"tonk {version('tonk')} (event format {FORMAT_VERSION}, Python {platform.python_version()})"


@pytest.mark.parametrize(
    "args, names",
    [
        (["simulate", "--hands", "x"], "'--hands'"),
        (["replay"], "GAME_ID"),
        (["games", "--nope"], "--nope"),
        (["nosuchcommand"], "nosuchcommand"),
        (["play", "--stake", "0"], "--stake"),
    ],
)
def test_usage_errors_are_one_error_line_and_exit_2(args, names, tmp_path):
    r = tonk("--db", str(tmp_path / "t.db"), *args)
    assert r.code == 2
    line = r.err_line()
    assert names in line
    assert "\u256d" not in r.err and "Usage:" not in r.err  # no Rich box, no usage block
    assert r.out == ""
    assert not (tmp_path / "t.db").exists()


def test_help_shows_what_a_user_types():
    from tonk.cli.app import app

    commands = [c.name for c in app.registered_commands]
    assert "copy" in commands and "serve" in commands and "backup" in commands
    for cmd in commands:
        r = tonk(cmd, "-h")
        assert r.code == 0, cmd
        for type_name in ("<list[", "<path>", "<str>", "<int", "<float", "<bool>", "<text>", "\u2502"):
            assert type_name not in r.out, (cmd, type_name, r.out)
    assert "-v, --variant NAME" in tonk("simulate", "-h").out
    assert "--json" in tonk("games", "-h").out
    audit = tonk("audit", "-h").out
    assert "-v, --variant NAME" in audit and "-o, --option KEY=VALUE" in audit and "--variant-file PATH" in audit
    assert "--rules" not in audit


def test_short_options_mean_one_thing_on_every_command():
    """-v is a variant, -o an option, -n a number of hands, wherever they exist."""
    longs: dict[str, set[str]] = {}
    for cmd in ("adjudicate", "play", "simulate", "games", "replay", "audit", "variants", "export", "import", "verify", "key", "checkpoint", "prove"):
        for line in tonk(cmd, "-h").out.splitlines():
            words = line.strip().replace(",", " ").split()
            if words and words[0].startswith("-") and not words[0].startswith("--") and len(words) > 1:
                longs.setdefault(words[0], set()).add(words[1])
    assert {k: v for k, v in longs.items() if len(v) > 1} == {}
    assert longs["-v"] == {"--variant"} and longs["-o"] == {"--option"} and longs["-n"] == {"--hands"}


def test_piped_output_never_wraps_nor_cuts(tmp_path):
    from renamed_games import game_with_names

    from tonk.storage import EventStore

    long_name = "a-player-with-a-name-long-enough-to-wrap-any-eighty-column-terminal-" + "x" * 40
    db = tmp_path / "t.db"
    game = game_with_names([long_name, "bob"], seed=3)  # longer than play or import accept: an old store
    with EventStore.open(db) as store:
        v = store.append(game.game_id, list(game.events), 0)
        store.append(game.game_id, game.deal(), v)
    r = tonk("--db", str(db), "games")
    assert r.code == 0
    row = next(line for line in r.out.splitlines() if game.game_id[:8] in line)
    assert f"{long_name} +0" in row  # the whole name on the game's one line
    replay = tonk("--db", str(db), "replay", game.game_id[:8])
    assert long_name in replay.out and "\u2026" not in replay.out
    # an error quoting a long text stays one line, whatever the width
    err = tonk("--db", str(db), "replay", game.game_id[:8], "--as", "y" * 300)
    assert err.code == 2 and "y" * 300 in err.err_line()


def test_piped_audit_findings_show_whole_hashes_and_ledgers(tmp_path):
    import sqlite3

    db = tmp_path / "t.db"
    assert tonk("simulate", "-n", "4", "--hands-per-game", "4", "--db", str(db)).code == 0
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute(
        "UPDATE events SET payload = replace(payload, '\"amount\":1', '\"amount\":3') "
        "WHERE position = (SELECT max(position) FROM events WHERE type = 'hand_ended')"
    )
    conn.commit()
    conn.close()
    r = tonk("--db", str(db), "audit", "--all")
    assert r.code == 1
    assert "\u2026" not in r.out
    import re

    assert len(re.findall(r"^\s+(?:expected|recorded) [0-9a-f]{64}$", r.out, re.M)) == 2
    ledgers = re.findall(r"^\s+(?:expected|recorded) (\[.*\])$", r.out, re.M)
    assert len(ledgers) == 2 and all(isinstance(json.loads(x), list) for x in ledgers)
