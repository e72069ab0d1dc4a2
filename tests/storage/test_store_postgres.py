"""What only the PostgreSQL store has: its URL, its server's refusals, the CLI on a URL."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tonk.cli.app import app
from tonk.storage import StoreError
from tonk.storage.open import is_postgres, open_store
from tonk.storage.jsonl import export_games
from tonk.storage.postgres import redact
from tonk.storage.postgres_schema import STEPS


def test_urls_pick_postgres_and_paths_sqlite():
    assert is_postgres("postgresql://u@h/db") and is_postgres("postgres://h/db")
    assert not is_postgres("tonk.db") and not is_postgres("./postgresql:/x.db")


def test_a_password_is_never_shown():
    assert redact("postgresql://bob:s3cret@db.example:5432/tonk?sslmode=require") == "postgresql://bob:***@db.example:5432/tonk?sslmode=require"
    assert redact("postgresql://bob@db.example/tonk") == "postgresql://bob@db.example/tonk"
    # libpq also takes the password as a query parameter
    assert redact("postgresql://db.example/tonk?user=bob&password=s3cret&sslmode=require") == "postgresql://db.example/tonk?user=bob&password=***&sslmode=require"
    assert redact("postgresql://bob:a@db.example/tonk?sslpassword=s3cret") == "postgresql://bob:***@db.example/tonk?sslpassword=***"


def test_a_password_in_the_query_is_not_shown_in_an_error(clean_failure):
    r = CliRunner().invoke(app, ["--db", "postgresql://127.0.0.1:1/tonk?connect_timeout=2&user=bob&password=s3cret", "games"])
    clean_failure(r, 2, "cannot open postgresql://127.0.0.1:1/tonk?connect_timeout=2&user=bob&password=***")
    assert "s3cret" not in r.stdout + r.stderr


def test_a_url_urlsplit_refuses_is_redacted_and_an_empty_host_keeps_its_slashes():
    assert redact("postgresql://bob:s3cret@[::1/tonk") == "postgresql://bob:***@[::1/tonk"
    assert redact("postgresql:///tonk?host=/run/pg&password=s3cret") == "postgresql:///tonk?host=/run/pg&password=***"


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://bob:s3cret@[::1/tonk",  # libpq quotes the whole URL back
        "postgresql://bob:s3cret%zz@127.0.0.1:1/tonk",  # libpq quotes the token it cannot decode
        "postgresql://bob@127.0.0.1:1/tonk?password=s3cret%zz",
    ],
)
def test_a_url_libpq_cannot_parse_is_one_clean_error_without_the_password(clean_failure, url):
    r = CliRunner().invoke(app, ["--db", url, "games"])
    clean_failure(r, 2, "cannot open postgresql://bob")
    assert "s3cret" not in r.stdout + r.stderr


def test_an_unreachable_server_is_one_clean_error_without_the_password(clean_failure):
    r = CliRunner().invoke(app, ["--db", "postgresql://bob:s3cret@127.0.0.1:1/tonk?connect_timeout=2", "games"])
    clean_failure(r, 2, "cannot open postgresql://bob:***@127.0.0.1:1/tonk")
    assert "s3cret" not in r.stdout + r.stderr


@pytest.mark.postgres
def test_a_database_with_another_applications_events_table_is_refused_untouched(pg_url):
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE events (id int)")
    for read_only in (False, True):  # the message names the store, as a SQLite file's names the file
        with pytest.raises(StoreError, match=re.escape(f"{redact(pg_url)} has an events table that tonk did not make") + ".*not a tonk store"):
            open_store(pg_url, read_only=read_only)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT to_regclass('tonk_migrations') IS NULL, to_regclass('games') IS NULL").fetchone() == (True, True)


@pytest.mark.postgres
def test_a_newer_schema_is_refused(pg_url):
    import psycopg

    open_store(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO tonk_migrations (name) VALUES ('9999_from_the_future')")
    with pytest.raises(StoreError, match="upgrade tonk"):
        open_store(pg_url)


@pytest.mark.postgres
def test_truncate_is_refused_too(pg_url, games):
    import psycopg

    with open_store(pg_url) as store:
        store.append(games[0].game_id, games[0].events, 0)
    with psycopg.connect(pg_url, autocommit=True) as conn, pytest.raises(psycopg.errors.RaiseException, match="append-only: TRUNCATE"):
        conn.execute("TRUNCATE events")


@pytest.mark.postgres
def test_two_processes_opening_a_new_store_together_apply_the_schema_once(pg_url):
    import multiprocessing

    ctx = multiprocessing.get_context("fork")

    def opener(barrier, out):
        try:
            barrier.wait(60)
            open_store(pg_url).close()
            out.put("ok")
        except BaseException as exc:
            out.put(repr(exc))

    barrier, out = ctx.Barrier(3), ctx.Queue()
    procs = [ctx.Process(target=opener, args=(barrier, out)) for _ in range(3)]
    for p in procs:
        p.start()
    results = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(60)
    assert results == ["ok"] * 3
    import psycopg

    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM tonk_migrations").fetchone()[0] == len(STEPS)


@pytest.mark.postgres
def test_the_commands_work_on_a_postgres_url(pg_url, tmp_path):
    runner = CliRunner()
    env = {"TONK_DB": pg_url}
    r = runner.invoke(app, ["simulate", "-n", "12", "-p", "3", "--seed", "5", "--hands-per-game", "6", "--json"], env=env)
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["games", "--json"], env=env)
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["audit", "--all"], env=env)
    assert r.exit_code == 0, r.output
    assert "2 clean" in r.stdout
    r = runner.invoke(app, ["verify", "--json"], env=env)
    assert r.exit_code == 0 and json.loads(r.stdout)["ok"] is True
    with open_store(pg_url, create=False) as store:
        gid = store.game_ids()[0]
    r = runner.invoke(app, ["replay", gid[:8]], env=env)
    assert r.exit_code == 0, r.output
    out = tmp_path / "all.jsonl"
    assert runner.invoke(app, ["export", "--all", "--output", str(out)], env=env).exit_code == 0
    sq = tmp_path / "copy.db"
    r = runner.invoke(app, ["--db", str(sq), "import", str(out), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["games"] == 2


def test_without_the_postgres_extra_a_url_is_one_clean_error(monkeypatch, clean_failure):
    import sys

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if not installed: import fails
    monkeypatch.setitem(sys.modules, "psycopg_pool", None)
    r = CliRunner().invoke(app, ["--db", "postgresql://u@h/db", "games"])
    clean_failure(r, 2, "pip install 'tonk[postgres]'")


def _setting(store, name: str) -> str:
    with store._connection() as conn:  # one of the store's own pooled connections
        return conn.execute(f"SHOW {name}").fetchone()[0]


@pytest.mark.postgres
def test_a_store_opened_not_durable_commits_without_waiting_and_sync_wal_flushes_every_commit(pg_url, games):
    """``durable=False``: the store's own commits do not wait for the WAL flush (the server's
    setting is untouched); ``sync_wal`` returns once everything committed before it is flushed."""
    import psycopg

    with open_store(pg_url, durable=False) as store, psycopg.connect(pg_url, autocommit=True) as other:
        assert _setting(store, "synchronous_commit") == "off"
        server = other.execute("SHOW synchronous_commit").fetchone()[0]  # (the tests' server has it off too)
        for g in games:
            store.append(g.game_id, g.events, 0)
        committed = other.execute("SELECT pg_current_wal_insert_lsn()").fetchone()[0]
        store.sync_wal()
        flushed = other.execute("SELECT pg_current_wal_flush_lsn() >= %s::pg_lsn", (committed,)).fetchone()[0]
        assert flushed is True
        assert other.execute("SELECT count(*) FROM tonk_flush").fetchone()[0] >= 1
    with open_store(pg_url) as store:
        assert _setting(store, "synchronous_commit") == server
        assert [store.version(g.game_id) for g in games] == [len(g.events) for g in games]


@pytest.mark.postgres
def test_the_hashes_after_an_append_are_the_appends_then_the_stores(pg_url, games):
    """Asked right after this store's append, ``hashes_after`` answers the hashes that append
    stored without reading them back; asked again, it reads the store (another writer's too)."""
    g = games[0]
    with open_store(pg_url) as a, open_store(pg_url) as b:
        a.append(g.game_id, g.events[:3], 0)
        stored = [h for _, _, h in a.hash_rows(g.game_id)]
        a.append(g.game_id, g.events[3:5], 3)
        b.append(g.game_id, g.events[5:8], 5)
        assert a.hashes_after(g.game_id, 3) == [h for _, _, h in b.hash_rows(g.game_id, 3)][:2]
        assert a.hashes_after(g.game_id, 3) == [h for _, _, h in b.hash_rows(g.game_id, 3)]
        assert len(a.hashes_after(g.game_id, 3)) == 5 and a.hashes_after(g.game_id, 0)[:3] == stored


@pytest.mark.postgres
def test_an_append_that_fails_leaves_the_connection_clean_and_the_next_one_lands(pg_url, games):
    """A refused append (a stale expected version) rolls its transaction back: the pooled
    connection is usable, and nothing of the refused append is stored."""
    from tonk.storage.errors import ConcurrencyError

    g = games[0]
    with open_store(pg_url) as store:
        store.append(g.game_id, g.events[:3], 0)
        for _ in range(10):  # more than the pool holds: every connection came back clean
            with pytest.raises(ConcurrencyError):
                store.append(g.game_id, g.events[3:5], 1)
        assert store.append(g.game_id, g.events[3:5], 3, command_id="c1") == 5
        assert store.append(g.game_id, g.events[3:5], 3, command_id="c1") == 5  # the same command again: a no-op
        assert store.version(g.game_id) == 5 and store.last_position() == 5


@pytest.mark.postgres
def test_a_stores_own_appends_do_not_wake_its_follower_anothers_do(pg_url, games):
    """``wait_for_append`` is the hint of another writer's append: this store's own (already
    in its caller's hands) are not a reason to read the global order again."""
    a, b, c = games[0], games[1], games[2]
    with open_store(pg_url) as store, open_store(pg_url) as other:
        assert store.wait_for_append(0.01) is False  # listening now
        store.append(a.game_id, a.events, 0)
        store.append(b.game_id, b.events, 0)
        assert store.wait_for_append(0.5) is False  # its own two NOTIFYs came and were passed over
        other.append(c.game_id, c.events, 0)
        assert store.wait_for_append(60) is True


@pytest.mark.postgres
def test_simulate_names_the_store_without_its_password(pg_url):
    """What simulate says it stored, and where (text and --json), carries no password."""
    url = pg_url + "&password=s3cret" if "?" in pg_url else pg_url + "?password=s3cret"
    runner = CliRunner()
    args = ["--db", url, "simulate", "-n", "2", "--hands-per-game", "1"]
    for r in (runner.invoke(app, args), runner.invoke(app, [*args, "-s", "1", "--json"])):
        assert r.exit_code == 0, r.stderr
        assert "s3cret" not in r.stdout + r.stderr
    assert json.loads(r.stdout)["store"]["path"].endswith("password=***")


@pytest.mark.postgres
def test_a_stopped_simulation_names_the_store_without_its_password(pg_url):
    from tonk.application.simulate import SimConfig, _stopped

    url = pg_url + "&password=s3cret" if "?" in pg_url else pg_url + "?password=s3cret"
    open_store(url).close()
    message = str(_stopped(SimConfig(hands=2, hands_per_game=1), url, "interrupted", True))
    assert "are stored in postgresql://" in message and "s3cret" not in message


@pytest.mark.postgres
def test_a_write_postgresql_refuses_is_one_error_line(pg_url, games, tmp_path):
    """A write refused inside a pipeline (here: a command id too long for PostgreSQL's index,
    which SQLite keeps) is the store's one ``error:`` line; psycopg's own warning about the
    aborted pipeline ('error ignored terminating <psycopg.Pipeline (host=... user=...)>')
    was printed on stderr before it."""
    import secrets

    g = games[0]
    with open_store(":memory:") as source:
        source.append(g.game_id, g.events, 0, secrets.token_hex(4000))
        f = tmp_path / "long.jsonl"
        with open(f, "wb") as out:
            export_games(source, None, out)
    # a process of its own: under pytest, logging has handlers, so the warning never reaches stderr
    r = subprocess.run([str(Path(sys.executable).with_name("tonk")), "--db", pg_url, "import", str(f)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("error: ") and "the write failed and was rolled back: nothing of this write is stored" in r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr
    with open_store(pg_url, create=False) as store:
        assert store.game_ids() == []


@pytest.mark.postgres
def test_serve_on_a_store_it_cannot_write_is_one_clean_error_before_it_starts(pg_url, clean_failure):
    """A role that may read the store but not write it: the served tables cannot be made, which
    the server found only at its start (a traceback of the application's startup); the check
    before the server starts now takes the store's write lock (writing nothing)."""
    import uuid

    import psycopg

    open_store(pg_url).close()
    role = f"reader_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        schema = conn.execute("SELECT current_schema()").fetchone()[0]
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}")
    try:
        url = re.sub(r"^postgresql://[^@/]*@", f"postgresql://{role}@", pg_url)
        assert url != pg_url
        r = CliRunner().invoke(app, ["--db", url, "serve", "--port", "1"])
        clean_failure(r, 2, "permission denied")
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {role}")
            conn.execute(f"DROP ROLE {role}")


def test_the_default_key_file_of_a_url_depends_on_none_of_its_secrets(monkeypatch, tmp_path):
    """The file name holds a hash of the URL: a hash of a secret in it (the client key's
    passphrase, ``sslpassword``) could be guessed back from it; the password was left out, the
    passphrase was not."""
    from tonk.storage.keys import server_key_path

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    url = "postgresql://bob@db.example/tonk?sslmode=require"
    assert server_key_path(url + "&sslpassword=one") == server_key_path(url + "&sslpassword=two") == server_key_path(url)
    assert server_key_path(url + "&password=one") == server_key_path(url.replace("bob@", "bob:two@")) == server_key_path(url)
    assert server_key_path(url) != server_key_path(url.replace("bob@", "ann@"))
