"""Archives for the evidence tests: simulated games in a store, with receipts and two
checkpoints taken as the store grew, and ways to tamper with a copy outside the engine."""

from __future__ import annotations

import random
import shutil
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tonk.variants import load_ruleset
from tonk.core import Game
from tonk.application.simulate import SimConfig, simulate
from tonk.storage import EventStore
from tonk.storage import evidence as ev
from tonk.storage.keys import key_path

TONK = str(Path(sys.executable).parent / "tonk")


@dataclass
class Archive:
    """A store file (bytes) and everything handed out while it grew: per-seat receipts
    ``(game_id, seq, text)``, checkpoint ``early`` (with a copy of the file taken right
    after it, ``early_db``) and checkpoint ``late``, and the store's public key."""

    seed: int
    db: bytes = field(repr=False)
    key_file: bytes = field(repr=False)
    vkey: str = field(repr=False)
    early: str = field(repr=False)
    early_db: bytes = field(repr=False)
    late: str = field(repr=False)
    receipts: list[tuple[str, int, str]] = field(default_factory=list, repr=False)

    def __repr__(self) -> str:  # the bytes are of no use in a failure report
        return f"Archive(seed={self.seed})"

    def materialise(self, directory: Path, db: bytes | None = None) -> Path:
        path = directory / "tonk.db"
        path.write_bytes(self.db if db is None else db)
        kp = key_path(path)
        kp.write_bytes(self.key_file)
        kp.chmod(0o600)
        return path


def file_copy(path: Path) -> bytes:
    """The store's content as one file (SQLite's backup API, so a WAL is included)."""
    out = path.with_name(path.name + ".copy")
    src, dst = sqlite3.connect(path), sqlite3.connect(out)
    src.backup(dst)
    src.close()
    dst.close()
    data = out.read_bytes()
    out.unlink()
    return data


def play_hands(game: Game, store: EventStore, rng: random.Random, hands: int) -> None:
    """Deal and play ``hands`` hands of random legal play, appending command by command."""
    version = store.version(game.game_id)
    if version == 0:
        version = store.append(game.game_id, list(game.events), 0)
    for _ in range(hands):
        version = store.append(game.game_id, game.deal(), version)
        while game.in_hand:
            actions = game.legal_actions()
            moves = [a for a in actions if type(a).__name__ != "Knock"] if rng.random() > 0.05 else actions
            version = store.append(game.game_id, game.play(rng.choice(moves or actions)), version)


def build_archive(directory: Path, seed: int) -> Archive:
    """Simulated games, one game that goes on growing across both checkpoints, receipts at
    every hand's end, an early and a late checkpoint."""
    path = directory / "tonk.db"
    rng = random.Random(seed)
    simulate(SimConfig(hands=6 + seed % 5, players=3, bots=("greedy", "random"), seed=seed, hands_per_game=3), str(path))
    growing = Game.new(["ann", "bob", "cy"], seed=seed, ruleset=load_ruleset((), {"max_turns_per_hand": 60}))
    receipts: list[tuple[str, int, str]] = []

    def hand_receipts(store: EventStore, gids: list[str]) -> None:
        for gid in gids:
            done = max((s for g, s, _ in receipts if g == gid), default=0)
            receipts.extend((gid, seq, text) for seq, _, text in ev.hand_end_receipts(store, gid, after=done))

    with EventStore.open(path, durable=False) as store:
        play_hands(growing, store, rng, 1)
        hand_receipts(store, store.game_ids())
        early = ev.make_checkpoint(store).note
        vkey = ev.public_key(store).text()
    early_db = file_copy(path)
    simulate(SimConfig(hands=4 + seed % 3, players=2, bots=("random",), seed=seed + 1000, hands_per_game=2), str(path))
    with EventStore.open(path, durable=False) as store:
        play_hands(growing, store, rng, 1)
        store.append(growing.game_id, [growing.end()], store.version(growing.game_id))
        hand_receipts(store, store.game_ids())
        late = ev.make_checkpoint(store).note
    return Archive(seed, file_copy(path), key_path(path).read_bytes(), vkey, early, early_db, late, receipts)


@pytest.fixture(scope="session")
def archives(tmp_path_factory) -> list[Archive]:
    """Four random archives (built once for the session)."""
    out = []
    for seed in (11, 23, 37, 52):
        d = tmp_path_factory.mktemp(f"archive{seed}")
        out.append(build_archive(d, seed))
        shutil.rmtree(d)
    return out


def drop_triggers(conn: sqlite3.Connection, table: str) -> None:
    """Drop the triggers guarding ``table`` (for ``events``: those of its rows, ``event_rows``;
    the view's own triggers, which pass writes on to them, stay)."""
    guarded = "event_rows" if table == "events" else table
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", (guarded,)).fetchall():
        conn.execute(f'DROP TRIGGER "{name}"')


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def stored_hashes(path: Path) -> dict[str, dict[int, str]]:
    """Every game's events as ``{game_id: {seq: hash}}``, read outside the engine."""
    conn = raw(path)
    out: dict[str, dict[int, str]] = {}
    for gid, seq, h in conn.execute("SELECT game_id, seq, hash FROM events"):
        out.setdefault(gid, {})[seq] = h
    conn.close()
    return out
