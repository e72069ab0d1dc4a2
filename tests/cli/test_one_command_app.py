"""``tonk CMD ...`` runs an app with only CMD registered (start-up: typer builds one click
command, not nineteen); what a person sees must be exactly what the whole app shows."""

from __future__ import annotations

import pytest
import typer.main
from typer.testing import CliRunner

from tonk.cli.app import app, app_for, command_named

NAMES = [info.name for info in app.registered_commands]


@pytest.mark.parametrize(
    "args, name",
    [
        (["simulate", "--hands", "1"], "simulate"),
        (["--db", "x.db", "games"], "games"),
        (["--db", "simulate", "games"], "games"),  # --db's value is not the command
        (["--db=x.db", "audit", "--all"], "audit"),
        (["audit", "simulate"], "audit"),
        (["--version"], None),
        (["-h", "simulate"], None),
        (["--help"], None),
        (["--install-completion"], None),
        (["--", "simulate"], None),
        (["simulat"], None),  # no such command: the whole app answers (with its suggestions)
        ([], None),
        (["--db"], None),
    ],
)
def test_the_command_is_the_first_word_that_is_no_option_nor_the_db_value(args, name):
    assert command_named(args) == name


def test_a_named_command_gets_an_app_with_that_command_alone_and_the_app_is_untouched():
    only = app_for(["--db", "x.db", "simulate", "--hands", "3"])
    assert [info.name for info in only.registered_commands] == ["simulate"]
    assert list(typer.main.get_command(only).commands) == ["simulate"]  # type: ignore[attr-defined]
    assert [info.name for info in app.registered_commands] == NAMES
    assert app_for(["--help"]) is app and app_for(["nope"]) is app


@pytest.mark.parametrize("name", NAMES)
def test_each_commands_help_and_usage_error_are_the_same_from_the_one_command_app(name, tmp_path):
    runner = CliRunner()
    for args in ([name, "--help"], ["--db", str(tmp_path / "t.db"), name, "--no-such-option"]):
        whole = runner.invoke(app, args)
        alone = runner.invoke(app_for(args), args)
        assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output), args
        assert whole.output.strip()
