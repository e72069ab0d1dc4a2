"""Ctrl-C ends a long command with one line and exit 130, wherever it lands."""

from __future__ import annotations

import os
import signal
import sqlite3

import pytest
import typer

from tonk.cli.interrupts import interruption_reported


def _ctrl_c_inside_sqlite() -> None:
    """Ctrl-C while SQLite runs one of the store's Python functions (as ``tonk_unpack`` in a
    scan): SQLite turns the KeyboardInterrupt into its own OperationalError."""
    conn = sqlite3.connect(":memory:")

    def unpack(value: int) -> int:
        os.kill(os.getpid(), signal.SIGINT)
        return value

    conn.create_function("tonk_unpack", 1, unpack)
    conn.execute("SELECT tonk_unpack(1)").fetchall()


def test_ctrl_c_inside_a_sqlite_function_is_an_interruption_not_an_error(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(typer.Exit) as stopped:
        with interruption_reported(lambda: "3 of 300 game(s) audited"):
            _ctrl_c_inside_sqlite()
    assert stopped.value.exit_code == 130
    assert capsys.readouterr().err == "interrupted: 3 of 300 game(s) audited\n"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Ctrl-C is Python's again


def test_an_error_without_ctrl_c_stays_an_error():
    with pytest.raises(sqlite3.OperationalError):
        with interruption_reported(lambda: "unused"):
            sqlite3.connect(":memory:").execute("SELECT no_such_function(1)")
