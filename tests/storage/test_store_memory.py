"""The in-memory store beyond the contract suite: ``:memory:`` is a new store each time, and
its backup is a SQLite file holding everything it held."""

from __future__ import annotations

import io

import pytest

from tonk.storage import StoreError
from tonk.storage.jsonl import export_games
from tonk.storage.open import open_store
from tonk.storage.seats import SeatStore


def exported(store) -> bytes:
    out = io.BytesIO()
    export_games(store, None, out)
    return out.getvalue()


def test_each_memory_target_is_a_new_empty_store(games):
    g = games[0]
    with open_store(":memory:") as one, open_store(":memory:") as other:
        one.append(g.game_id, g.events, 0)
        assert one.game_ids() == [g.game_id] and other.game_ids() == [] and other.last_position() == 0
    with pytest.raises(StoreError, match="no tonk store at :memory:"):
        open_store(":memory:", create=False)


def test_the_backup_of_a_memory_store_is_a_sqlite_file_with_the_games_the_evidence_and_the_tables(games, tmp_path, monkeypatch):
    pytest.importorskip("cryptography")
    from tonk.storage import evidence as ev

    monkeypatch.delenv("TONK_KEY_FILE", raising=False)
    with open_store(":memory:") as store:
        for g in games:
            store.append(g.game_id, g.events, 0)
        cp = ev.make_checkpoint(store)
        key = ev.public_key(store)
        SeatStore(store).register(games[0].game_id, {"bots": {}}, {"ann": "secret-token"})
        source = exported(store)
        store.backup(tmp_path / "backup.db")
        with pytest.raises(StoreError, match="it exists"):
            store.backup(tmp_path / "backup.db")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backup.db"]  # nothing left beside it
    with open_store(tmp_path / "backup.db", create=False) as copy:
        assert exported(copy) == source and copy.verify() == [] and copy.projection_findings() == []
        report = ev.verify_checkpoint(copy, cp.note, key)
        assert report.ok and report.facts["store_tree_size"] == cp.tree_size
        seats = SeatStore(copy)
        assert seats.seat_for(games[0].game_id, "secret-token") == "ann" and seats.settings(games[0].game_id) == {"bots": {}}
        assert seats.listing() == [(games[0].game_id, {"bots": {}}, False)]


def test_import_and_copy_into_memory_say_that_nothing_is_kept(games, tmp_path):
    """``--db :memory:`` (import) and ``--to :memory:`` (copy) check the games and keep
    nothing: the line says so, not just "imported" or "copied"."""
    from typer.testing import CliRunner

    from tonk.cli.app import app

    db = tmp_path / "games.db"
    with open_store(db, create=True) as store:
        for g in games:
            store.append(g.game_id, g.events, 0)
        (tmp_path / "games.jsonl").write_bytes(exported(store))
    runner = CliRunner()
    imported = runner.invoke(app, ["--db", ":memory:", "import", str(tmp_path / "games.jsonl")])
    assert imported.exit_code == 0, imported.output
    assert f"imported {len(games)} game(s)" in imported.output and "in-memory store (:memory:) and discarded them" in imported.output
    copied = runner.invoke(app, ["copy", "--from", str(db), "--to", ":memory:"])
    assert copied.exit_code == 0, copied.output
    assert f"copied {len(games)} game(s)" in copied.output and "--to :memory: keeps nothing" in copied.output
    plain = runner.invoke(app, ["copy", "--from", str(db), "--to", str(tmp_path / "copy.db")])
    assert plain.exit_code == 0 and "keeps nothing" not in plain.output
