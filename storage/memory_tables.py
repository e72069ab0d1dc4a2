"""The in-memory store's side tables (:mod:`.memory`): the evidence tables
(:class:`~.evidence_log.EvidenceTables`) and the served tables (:class:`~.seats.SeatTables`)
as Python lists and dicts, in the SQL tables' column order."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .errors import StoreError
from .evidence_log import Entry, StoredCheckpoint
from .signed_note import VerifierKey

if TYPE_CHECKING:
    from .memory import MemoryDatabase


class MemoryEvidenceTables:
    """The evidence tables (:class:`~.evidence_log.EvidenceTables`) as lists of rows in
    their SQL column order; appends undone with the write that made them."""

    def __init__(self, db: MemoryDatabase, undo: list[Callable[[], None]]):
        self._t = db.tables
        self._db = db
        self._undo = undo

    def _add(self, table: str, rows: list[tuple[Any, ...]]) -> None:
        held = self._t[table]
        n = len(held)
        self._undo.append(lambda: held.__delitem__(slice(n, None)))
        held.extend(rows)

    def key_texts(self) -> list[str]:
        return [r[2] for r in sorted(self._t["evidence_keys"], key=lambda r: (r[3], r[0]))]

    def record_key(self, key: VerifierKey, at: str) -> None:
        key_id = f"{key.id:08x}"
        if all(r[0] != key_id for r in self._t["evidence_keys"]):
            self._add("evidence_keys", [(key_id, key.name, key.text(), at)])

    def entries(self, limit: int | None = None) -> list[Entry]:
        rows = self._t["evidence_log"]
        return [Entry(*r[:4]) for r in (rows if limit is None else rows[: max(limit, 0)])]

    def size(self) -> int:
        return len(self._t["evidence_log"])

    def append_new_events(self, at: str) -> int:
        top: dict[str, int] = {}
        for r in self._t["evidence_log"]:
            top[r[1]] = max(top.get(r[1], 0), r[2])
        start = len(self._t["evidence_log"])
        new = [e for e in self._db.events if e[1] > top.get(e[0], 0)]
        self._add("evidence_log", [(start + i, e[0], e[1], e[5], at) for i, e in enumerate(new)])
        return len(new)

    def record_checkpoint(self, cp: StoredCheckpoint, at: str) -> None:
        if all((r[0], r[1]) != (cp.tree_size, cp.key_id) for r in self._t["evidence_checkpoints"]):
            self._add("evidence_checkpoints", [(*cp, at)])

    def latest_checkpoint(self) -> StoredCheckpoint | None:
        rows = self._t["evidence_checkpoints"]
        return StoredCheckpoint(*max(rows, key=lambda r: (r[0], r[4]))[:4]) if rows else None

    def game_entry(self, game_id: str, below: int) -> Entry | None:
        found = [r for r in self._t["evidence_log"][: max(below, 0)] if r[1] == game_id]
        return Entry(*max(found, key=lambda r: r[2])[:4]) if found else None

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        return {table: list(rows) for table, rows in self._t.items()}

    def load(self, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        for table in self._t:
            self._add(table, list(rows.get(table, [])))


class MemorySeatTables:
    """The served tables (:class:`~.seats.SeatTables`) in two dicts."""

    def __init__(self, db: MemoryDatabase):
        self._db = db

    def register(self, game_id: str, settings: str, hashes: list[tuple[str, str]]) -> None:
        with self._db.lock:
            if game_id in self._db.served or len({seat for seat, _ in hashes}) != len(hashes):
                raise StoreError(f"the table {game_id} is recorded already")
            self._db.served[game_id] = [settings, False]
            self._db.tokens.update({(game_id, seat): h for seat, h in hashes})

    def token_hashes(self, game_id: str) -> list[tuple[str, str]]:
        with self._db.lock:
            return [(seat, h) for (gid, seat), h in self._db.tokens.items() if gid == game_id]

    def settings(self, game_id: str) -> str | None:
        found = self._db.served.get(game_id)
        return str(found[0]) if found else None

    def closed(self, game_id: str) -> bool:
        found = self._db.served.get(game_id)
        return bool(found and found[1])

    def mark_closed(self, game_id: str) -> None:
        with self._db.lock:
            if game_id in self._db.served:
                self._db.served[game_id][1] = True

    def set_settings(self, game_id: str, settings: str) -> None:
        with self._db.lock:
            if game_id in self._db.served:
                self._db.served[game_id][0] = settings

    def add_token_hash(self, game_id: str, seat: str, token_hash: str) -> None:
        with self._db.lock:
            self._db.tokens.setdefault((game_id, seat), token_hash)

    def listing(self) -> list[tuple[str, str, bool]]:
        with self._db.lock:
            return [(gid, str(s), bool(closed)) for gid, (s, closed) in self._db.served.items()]

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        with self._db.lock:
            return {
                "served_tables": [(gid, s, int(closed)) for gid, (s, closed) in self._db.served.items()],
                "seat_tokens": sorted((gid, seat, h) for (gid, seat), h in self._db.tokens.items()),
            }

    def load(self, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        with self._db.lock:
            for gid, settings, closed in rows.get("served_tables", []):
                self._db.served[gid] = [settings, bool(closed)]
            for gid, seat, h in rows.get("seat_tokens", []):
                self._db.tokens[(gid, seat)] = h
