"""Export and import across back ends: the same bytes out of either store; `tonk copy` verified."""

from __future__ import annotations

import io
import json

import pytest
from typer.testing import CliRunner

from tonk.cli.app import app
from tonk.storage.jsonl import export_games, import_file

pytestmark = pytest.mark.postgres


def exported(store) -> bytes:
    out = io.BytesIO()
    export_games(store, None, out)
    return out.getvalue()


def test_export_from_sqlite_import_into_postgres_export_again_is_byte_identical(sqlite_backend, postgres_backend, games, tmp_path):
    sqlite_backend.record(games)
    with sqlite_backend.open(create=False) as store:
        first = exported(store)
    f = tmp_path / "a.jsonl"
    f.write_bytes(first)
    with postgres_backend.open() as store:
        assert sorted(import_file(store, f).imported) == sorted(g.game_id for g in games)
        assert exported(store) == first
        assert store.verify() == []
    # and back again
    with postgres_backend.open(create=False) as store:
        f.write_bytes(exported(store))
    other = tmp_path / "b.db"
    from tonk.storage.open import open_store

    with open_store(other) as store:
        import_file(store, f)
        assert exported(store) == first


def test_a_refused_import_writes_nothing_into_postgres(postgres_backend, games, tmp_path):
    from tonk.storage import ImportRefused

    postgres_backend.record(games[:1])
    with postgres_backend.open(create=False) as store:
        good = exported(store)
    lines = good.splitlines(keepends=True)
    f = tmp_path / "bad.jsonl"
    f.write_bytes(lines[0] + lines[1] + lines[3])  # seq 2 missing
    with postgres_backend.open(create=False) as store:
        before = (store.last_position(), store.games())
        with pytest.raises(ImportRefused, match="seq gap"):
            import_file(store, f)
        assert (store.last_position(), store.games()) == before


def test_tonk_copy_moves_an_archive_both_ways_verified(sqlite_backend, postgres_backend, games, tmp_path):
    runner = CliRunner()
    sqlite_backend.record(games)
    r = runner.invoke(app, ["copy", "--from", sqlite_backend.target, "--to", postgres_backend.target, "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert sorted(out["copied"]) == sorted(g.game_id for g in games) and out["present"] == []
    back = tmp_path / "back.db"
    r = runner.invoke(app, ["copy", "--from", postgres_backend.target, "--to", str(back)])
    assert r.exit_code == 0, r.output
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert runner.invoke(app, ["--db", sqlite_backend.target, "export", "--all", "--output", str(a)]).exit_code == 0
    assert runner.invoke(app, ["--db", str(back), "export", "--all", "--output", str(b)]).exit_code == 0
    assert a.read_bytes() == b.read_bytes()
    # again: every game is already there with the same events
    r = runner.invoke(app, ["copy", "--from", sqlite_backend.target, "--to", postgres_backend.target, "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["copied"] == []


def test_tonk_copy_refuses_a_game_stored_with_other_events(sqlite_backend, postgres_backend, games, clean_failure):
    g = games[0]
    sqlite_backend.record([g])
    with postgres_backend.open() as store:
        store.append(g.game_id, g.events[:5], 0)
    r = CliRunner().invoke(app, ["copy", "--from", sqlite_backend.target, "--to", postgres_backend.target])
    clean_failure(r, 2, "already in the store with other events")
    with postgres_backend.open(create=False) as store:
        assert store.version(g.game_id) == 5


def test_tonk_backup_of_postgres_is_a_sqlite_file_with_the_games_and_the_evidence(postgres_backend, games, tmp_path, clean_failure):
    """The backup exports the same bytes, keeps the evidence log (a checkpoint signed on
    PostgreSQL verifies against the file) and the served tables' records."""
    from tonk.storage import evidence as ev
    from tonk.storage.open import open_store
    from tonk.storage.seats import SeatStore

    postgres_backend.record(games)
    with postgres_backend.open(create=False) as store:
        cp = ev.make_checkpoint(store)
        key = ev.public_key(store)
        SeatStore(store).register(games[0].game_id, {"bots": {}}, {"ann": "secret-token"})
        source = exported(store)
    dest = tmp_path / "backup.db"
    r = CliRunner().invoke(app, ["--db", postgres_backend.target, "backup", str(dest), "--json"])
    assert r.exit_code == 0, r.stdout + r.stderr
    assert json.loads(r.stdout) == {"backup": str(dest), "games": len(games)}
    assert not list(tmp_path.glob(".backup.db*"))  # nothing left beside it
    with open_store(dest, create=False) as copy:
        assert exported(copy) == source and copy.verify() == []
        report = ev.verify_checkpoint(copy, cp.note, key)
        assert report.ok and report.facts["store_tree_size"] == cp.tree_size
        seats = SeatStore(copy)
        assert seats.seat_for(games[0].game_id, "secret-token") == "ann" and seats.settings(games[0].game_id) == {"bots": {}}
    again = CliRunner().invoke(app, ["--db", postgres_backend.target, "backup", str(dest)])
    clean_failure(again, 2, "it exists")
