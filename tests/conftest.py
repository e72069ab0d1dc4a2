"""Fixtures shared by every test folder."""

from __future__ import annotations

import pytest


def assert_clean_failure(result, code: int, text: str) -> None:
    """An expected failure: exit ``code``, one ``error:`` line naming ``text``, no traceback."""
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    err = result.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), result.stderr
    assert text in err[0], err[0]
    assert "Traceback" not in result.stdout + result.stderr


@pytest.fixture(autouse=True, scope="session")
def private_config_home(tmp_path_factory):
    """Signing keys of PostgreSQL stores go to the user's configuration directory
    (``$XDG_CONFIG_HOME/tonk/keys``): the tests, and the servers and commands they start,
    keep theirs in a directory of the test session, never in the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    mp.delenv("TONK_KEY_FILE", raising=False)
    yield
    mp.undo()


@pytest.fixture(name="random_game")
def random_game_fixture():
    """``random_game(seed, players=..., hands=..., variants=..., options=...)``: a game of random
    legal play (tests/support/random_games.py, the one copy of the suite)."""
    from random_games import random_game

    return random_game


@pytest.fixture(name="clean_failure")
def clean_failure_fixture():
    """``clean_failure(result, code, text)``: a CLI result is one ``error:`` line, exit ``code``, no traceback."""
    return assert_clean_failure


def _snapshot(value):
    """A comparable copy of a hook argument (the state, the ruleset's options, plain data)."""
    import copy

    from types import MappingProxyType

    from tonk.core.ruleset import Ruleset, RulesetDraft
    from tonk.core.state import State

    if isinstance(value, State):
        return value.snapshot()
    if isinstance(value, (Ruleset, RulesetDraft)):
        return copy.deepcopy(dict(value.options))
    if isinstance(value, MappingProxyType):
        return copy.deepcopy(dict(value))
    if isinstance(value, (list, dict, set, tuple)):
        return copy.deepcopy(value)
    return None


@pytest.fixture(name="pure_hooks")
def pure_hooks_fixture():
    """``pure_hooks(ruleset)``: watch every hook call of a ruleset built with ``trace=True``
    (pluggy's ``add_hookcall_monitoring``); returns the list of hooks that changed the state,
    the options or another argument they were given."""
    undo = []
    changed: list[str] = []

    def watch(ruleset):
        assert ruleset.trace, "build the ruleset with trace=True: compiled calls bypass monitoring"
        before: list[dict] = []

        def on_before(hook_name, hook_impls, kwargs):
            before.append({k: _snapshot(v) for k, v in kwargs.items()})

        def on_after(outcome, hook_name, hook_impls, kwargs):
            snap = before.pop()
            for k, v in kwargs.items():
                if snap[k] is not None and _snapshot(v) != snap[k]:
                    changed.append(f"{hook_name} changed its argument {k}")

        undo.append(ruleset.pm.add_hookcall_monitoring(on_before, on_after))
        return changed

    yield watch
    for u in undo:
        u()


# --- PostgreSQL: a throwaway server for the session, a fresh schema per test ------------------
def with_schema(dsn: str, schema: str) -> str:
    """``dsn`` with its ``search_path`` set to ``schema`` (a store per test, one server)."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    parts = urlsplit(dsn)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "options"]
    query.append(("options", f"-csearch_path={schema}"))
    return urlunsplit(parts._replace(query=urlencode(query)))


@pytest.fixture(scope="session")
def pg_server():
    """The DSN of a PostgreSQL server: ``TONK_PG_DSN``, or a throwaway one started for the
    session (tests/support/pg_cluster.py) and stopped afterwards.  Skips when there is neither
    (which fails the run under CI: see ``pytest_runtest_makereport``)."""
    import os

    pytest.importorskip("psycopg", reason="the postgres extra is not installed (pip install -e '.[postgres]')")
    named = os.environ.get("TONK_PG_DSN")
    if named:
        yield named
        return
    import pg_cluster  # tests/support, shared with bench/bench_postgres.py

    if pg_cluster.find_bin() is None:
        pytest.skip("no PostgreSQL server binaries (run .ci/setup-postgres, or set TONK_PG_DSN)")
    cluster = pg_cluster.Cluster.start()
    previous = _stop_on_sigterm()
    try:
        yield cluster.dsn
    finally:
        cluster.stop()
        if previous is not None:
            import signal

            signal.signal(signal.SIGTERM, previous)


def _stop_on_sigterm():
    """A SIGTERM to the test run ends it as Ctrl-C does, so the server is stopped too
    (pytest runs the session's teardown on KeyboardInterrupt, not on a bare SIGTERM)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    return signal.signal(signal.SIGTERM, interrupt)


@pytest.fixture
def pg_url(pg_server):
    """A URL of an empty PostgreSQL store of this test's own (a fresh schema, dropped afterwards)."""
    import uuid

    import psycopg

    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield with_schema(pg_server, schema)
    finally:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With ``CI`` set, a skipped ``postgres`` test is a failure: CI must run them all."""
    import os

    outcome = yield
    report = outcome.get_result()
    xfail = hasattr(report, "wasxfail")
    if report.skipped and not xfail and os.environ.get("CI") and item.get_closest_marker("postgres") is not None:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"a PostgreSQL test was skipped under CI, which must run it: {reason}"
