"""Evidence that holds outside the store: signed receipts, signed checkpoints of the
store's evidence log, inclusion proofs, and their verification.

* :func:`make_receipt` — a seat's signed receipt for event ``seq`` of a game (at a
  hand's end): the store vouches that the game's history up to ``seq`` ends in that
  hash.  :func:`verify_receipt` says whether a store still holds that exact history.
* :func:`make_checkpoint` — appends the events stored since the last checkpoint to the
  evidence log (:mod:`.evidence_log`) and signs the Merkle tree head over the whole log
  as a C2SP ``tlog-checkpoint``.  :func:`verify_checkpoint` proves that a store extends
  the log the checkpoint signed (RFC 6962 consistency) and that every event logged then
  is still stored, naming each game's first missing or different event.
* :func:`make_proof` — a C2SP ``tlog-proof`` that a game's last logged event is in the
  latest checkpoint; :func:`verify_proof` checks one with the public key alone.

Verification needs only a public key: the one given (``--key``), or else the public keys
the store records (``evidence_keys``) — a self-check that binds nothing unless the
verifier trusts that key; see docs/evidence.md.  Malformed evidence, a wrong key or a
bad signature raise :class:`~.signed_note.EvidenceError` (exit 2); a store that
contradicts well-formed evidence is a :class:`Report` with findings (exit 1).
"""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Sequence

from . import evidence_log as elog
from . import merkle
from . import signed_note as note
from .append_rules import now
from .base import EventStore
from .errors import StoreError, UnknownGame
from .keys import create_signer, load_signer, store_key_path
from .signed_note import EvidenceError, MalformedEvidence, SignerKey, VerifierKey

RECEIPT_HEADER = "tonk-receipt v1"
PROOF_HEADER = "c2sp.org/tlog-proof@v1"
RECEIPT_FIELDS = ("game", "seq", "hash", "seat", "time", "key")


class Finding(NamedTuple):
    """Something the store contradicts: the game (``None`` for the log as a whole), the
    first missing or different event's seq (``None`` when not tied to one) and why."""

    game_id: str | None
    seq: int | None
    message: str

    def line(self) -> str:
        where = "" if self.game_id is None else f"game {self.game_id}" + ("" if self.seq is None else f" seq {self.seq}") + ": "
        return where + self.message

    def as_dict(self) -> dict[str, Any]:
        return {"game_id": self.game_id, "seq": self.seq, "message": self.message}


class Contradicted(StoreError):
    """The store contradicts its own evidence log, so nothing was signed or proved."""

    def __init__(self, message: str, findings: Sequence[Finding]):
        super().__init__(f"{message}: " + "; ".join(f.line() for f in findings[:3]) + (" ..." if len(findings) > 3 else ""))
        self.findings = list(findings)


class Report(NamedTuple):
    """The outcome of a verification: ``findings`` empty when the store holds what the
    evidence says; ``facts`` what was checked (for output)."""

    kind: str
    findings: list[Finding]
    facts: dict[str, Any]

    @property
    def ok(self) -> bool:
        return not self.findings

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "ok": self.ok, **self.facts, "findings": [f.as_dict() for f in self.findings]}


# --- keys -------------------------------------------------------------------------------------


def signer(store: EventStore, *, create: bool = True, new_key: bool = False) -> SignerKey:
    """The store's signing key, created on first use (file ``<store>.key``, mode 0600) and
    its public key recorded in the store.

    A store that has signed before but whose key file is missing is refused (the key was
    not copied with the store, or was lost) unless ``new_key``: then a new key signs from
    now on, under the same log name; the old public keys stay recorded."""
    path = store_key_path(store)
    with store.evidence() as log:
        known = elog.known_keys(log)
    key = load_signer(path)
    if key is not None and new_key:
        raise EvidenceError(f"a signing key is already at {path}; move it away first to sign with a new key")
    if key is None:
        if known and not new_key:
            raise EvidenceError(
                f"this store signs with {known[-1].describe()}, but its private key is not at {path}: "
                "put the key file back, or run tonk checkpoint --new-key to sign with a new key from now on"
            )
        if not create:
            raise EvidenceError(f"no signing key at {path}")
        name = known[0].name if known else f"tonk/{secrets.token_hex(8)}"
        key = create_signer(path, name)
    if key.verifier not in known:
        if known and key.name != known[0].name:
            raise EvidenceError(
                f"the signing key at {path} ({key.verifier.describe()}) belongs to another log than this store's ({known[0].name})"
            )
        with store.evidence(write=True) as log:
            log.record_key(key.verifier, now())
    return key


def public_key(store: EventStore) -> VerifierKey:
    """The public key the store signs with now (creating the key on first use)."""
    return signer(store).verifier


def read_key(text: str) -> VerifierKey:
    """A trusted public key from ``--key``: the key text (as ``tonk key`` prints it), or
    the name of a file holding it."""
    try:
        return VerifierKey.parse(text)
    except MalformedEvidence as exc:
        problem = exc
    path = Path(text)
    if not path.is_file():
        raise MalformedEvidence(f"--key: not a public key ({problem}), nor a file") from None
    try:
        content = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MalformedEvidence(f"--key: cannot read {text}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return VerifierKey.parse(content)
    except MalformedEvidence as exc:
        raise MalformedEvidence(f"--key file {text}: {exc}") from None


def trusted_keys(store: EventStore | None, key: VerifierKey | None) -> tuple[list[VerifierKey], str]:
    """The keys a verification trusts, and where they come from."""
    if key is not None:
        return [key], "given"
    if store is None:
        raise EvidenceError("no trusted key and no store to take one from: pass --key with the public key (as tonk key printed it)")
    with store.evidence() as log:
        keys = elog.known_keys(log)
    if not keys:
        raise EvidenceError("no trusted key: this store records no signing key; pass --key with the public key (as tonk key printed it)")
    return keys, "store"


# --- checking the store against what was logged or receipted ----------------------------------


def _check_games(store: EventStore, logged: dict[str, list[tuple[int, str]]], chain: dict[str, Any], label: str | None) -> list[Finding]:
    """For each game, the first event (in seq order) that is missing, differs from the hash
    ``logged`` for it, or breaks the chain at or before the last logged seq.  ``label``
    names what logged the hashes in the messages (``"the checkpoint"``), or ``None``."""
    out = []
    for gid, items in logged.items():
        items = sorted(items)
        last = items[-1][0]
        rows = store.hash_rows(gid)
        stored = {seq: h for seq, _, h in rows if seq <= last}
        held, top = len(rows), max((seq for seq, _, _ in rows), default=0)
        upto = f" ({label} logged it up to seq {last})" if label else ""
        first: tuple[int, str] | None = None
        if not held:
            first = (1, f"the whole game is missing from the store{upto}")
        else:
            for seq, h in items:
                if seq not in stored:
                    # events after the last one held are missing from the first one on
                    first = (min(seq, top + 1), f"missing: the store holds {held} event(s) of this game{upto}")
                    break
                if stored[seq] != h:
                    first = (seq, f"a different event: its hash is {stored[seq]}" + (f", {label} logged {h}" if label else ""))
                    break
        broken = chain.get(gid)
        if broken is not None and broken.seq <= last and (first is None or broken.seq < first[0]):
            first = (broken.seq, f"the hash chain is broken: {broken.message}")
        if first is not None:
            out.append(Finding(gid, first[0], first[1]))
    return out


def _chain_findings(store: EventStore, game_id: str | None = None) -> dict[str, Any]:
    if game_id is None:
        return {f.game_id: f for f in store.verify()}
    try:
        return {f.game_id: f for f in store.verify(game_id)}
    except UnknownGame:
        return {}


def _group(entries: Sequence[elog.Entry]) -> dict[str, list[tuple[int, str]]]:
    logged: dict[str, list[tuple[int, str]]] = {}
    for e in entries:
        logged.setdefault(e.game_id, []).append((e.seq, e.hash))
    return logged


def _leaves(entries: Sequence[elog.Entry]) -> list[bytes]:
    return [merkle.leaf_hash(elog.leaf_bytes(e.game_id, e.seq, e.hash)) for e in entries]


def _gap(entries: Sequence[elog.Entry]) -> Finding | None:
    for i, e in enumerate(entries):
        if e.leaf_index != i:
            return Finding(None, None, f"the evidence log lacks entry {i}: entries were removed from it")
    return None


# --- receipts ---------------------------------------------------------------------------------


class Receipt(NamedTuple):
    game_id: str
    seq: int
    hash: str
    seat: str
    time: str
    key: VerifierKey


def _line_value(value: str, what: str) -> str:
    if not value or value != value.strip() or any(ord(c) < 0x20 for c in value):
        raise StoreError(f"cannot sign a receipt: the {what} {value!r} is empty, has spaces at its ends or a control character")
    return value


def receipt_text(r: Receipt) -> str:
    """The signed text of a receipt (a signed note's body)."""
    return (
        f"{RECEIPT_HEADER}\n"
        f"game {_line_value(r.game_id, 'game id')}\n"
        f"seq {r.seq}\n"
        f"hash {r.hash}\n"
        f"seat {_line_value(r.seat, 'seat')}\n"
        f"time {r.time}\n"
        f"key {r.key.text()}\n"
    )


def seats_of(store: EventStore, game_id: str) -> tuple[str, ...]:
    """The seats of the game, in order (from its ``game_started``)."""
    first = next(iter(store.iter_events(game_id)))[1]
    return tuple(getattr(first, "players", ()))


def _refuse_broken(store: EventStore, game_id: str, upto: int) -> None:
    broken = _chain_findings(store, game_id).get(game_id)
    if broken is not None and broken.seq <= upto:
        raise Contradicted(
            f"game {game_id}: no receipt signed for a broken history", [Finding(game_id, broken.seq, f"the hash chain is broken: {broken.message}")]
        )


def make_receipt(store: EventStore, game_id: str, seq: int, seat: str, *, key: SignerKey | None = None) -> str:
    """A signed receipt for ``seat`` of event ``seq`` of ``game_id`` (a signed note).

    The store's key signs it (created on first use).  Refused with :class:`StoreError`
    for an unknown game or seq or a name that is not a seat of the game, and with
    :class:`Contradicted` when the game's chain is broken at or before ``seq``."""
    row = next((h for s, _, h in store.hash_rows(game_id, seq - 1) if s == seq), None)
    if row is None:
        if not store.version(game_id):
            raise UnknownGame(game_id)
        raise StoreError(f"game {game_id} has no event seq {seq} (it holds {store.version(game_id)})")
    seats = seats_of(store, game_id)
    if seat not in seats:
        raise StoreError(f"{seat!r} is not a seat of game {game_id} (seats: {', '.join(seats)})")
    _refuse_broken(store, game_id, seq)
    key = key or signer(store)
    return note.sign(receipt_text(Receipt(game_id, seq, row, seat, now(), key.verifier)), key)


def hand_end_receipts(
    store: EventStore, game_id: str, *, key: SignerKey | None = None, after: int = 0, only: str | None = None
) -> list[tuple[int, str, str]]:
    """Receipts for every seat (or the seat ``only``) at every hand's end of the game after
    seq ``after``: ``(seq, seat, receipt)`` in order."""
    rows = [(seq, h) for seq, type_, h in store.hash_rows(game_id, after) if type_ == "hand_ended"]
    if not rows:
        return []
    _refuse_broken(store, game_id, rows[-1][0])
    key = key or signer(store)
    seats = [s for s in seats_of(store, game_id) if only is None or s == only]
    at = now()
    return [
        (seq, seat, note.sign(receipt_text(Receipt(game_id, seq, h, seat, at, key.verifier)), key)) for seq, h in rows for seat in seats
    ]


def parse_receipt(data: bytes | str, what: str = "the receipt") -> tuple[Receipt, note.Note]:
    """A receipt from its file content; :class:`MalformedEvidence` naming the line."""
    n = note.parse(data, what)
    lines = n.text[:-1].split("\n")
    if lines[0] != RECEIPT_HEADER:
        raise MalformedEvidence(f"{what} is not a tonk receipt (its first line is not {RECEIPT_HEADER!r})")
    if len(lines) != 1 + len(RECEIPT_FIELDS):
        raise MalformedEvidence(f"{what} has {len(lines) - 1} field lines, not {len(RECEIPT_FIELDS)} ({', '.join(RECEIPT_FIELDS)})")
    values = {}
    for i, (line, field) in enumerate(zip(lines[1:], RECEIPT_FIELDS), 2):
        name, sep, value = line.partition(" ")
        if name != field or not sep or not value:
            raise MalformedEvidence(f"{what}: line {i} is not '{field} <value>'")
        if field in ("game", "seat") and value != value.strip():
            raise MalformedEvidence(f"{what}: line {i}: the {field} {value!r} has spaces at its ends (a receipt never has)")
        values[field] = value
    if not values["seq"].isascii() or not values["seq"].isdigit() or values["seq"].startswith("0"):
        raise MalformedEvidence(f"{what}: line 3: the seq {values['seq']!r} is not a whole number from 1")
    h = values["hash"]
    if len(h) != 64 or any(c not in "0123456789abcdef" for c in h):
        raise MalformedEvidence(f"{what}: line 4: the hash is not 64 lowercase hex digits")
    try:
        key = VerifierKey.parse(values["key"])
    except MalformedEvidence as exc:
        raise MalformedEvidence(f"{what}: line 7: {exc}") from None
    return Receipt(values["game"], int(values["seq"]), h, values["seat"], values["time"], key), n


def verify_receipt(store: EventStore, data: bytes | str, key: VerifierKey | None = None, what: str = "the receipt") -> Report:
    """Whether ``store`` still holds the history the receipt vouches for.

    The receipt must be signed by the trusted key (``key``, or the store's recorded keys)
    and carry that key.  Findings name the game and the first event missing or different
    up to the receipt's seq."""
    receipt, signed = parse_receipt(data, what)
    keys, source = trusted_keys(store, key)
    if receipt.key not in keys:
        trusted = ", ".join(k.describe() for k in keys)
        hint = "" if source == "given" else "; if you trust it (the key published when the receipt was issued), pass it with --key"
        raise note.WrongKey(f"{what} carries {receipt.key.describe()}, not a trusted key ({trusted}){hint}")
    used = note.open_note(signed, [receipt.key], what)
    found = _check_games(store, {receipt.game_id: [(receipt.seq, receipt.hash)]}, _chain_findings(store, receipt.game_id), None)
    findings = [Finding(f.game_id, f.seq, f"{f.message} (receipt: seq {receipt.seq}, hash {receipt.hash})") for f in found]
    facts = {
        "game_id": receipt.game_id,
        "seq": receipt.seq,
        "hash": receipt.hash,
        "seat": receipt.seat,
        "time": receipt.time,
        "key": used.text(),
        "key_source": source,
    }
    return Report("receipt", findings, facts)


# --- checkpoints ------------------------------------------------------------------------------


class Checkpoint(NamedTuple):
    origin: str
    tree_size: int
    root_hash: bytes
    note: str


def checkpoint_text(origin: str, size: int, root_hash: bytes) -> str:
    return f"{origin}\n{size}\n{base64.b64encode(root_hash).decode()}\n"


def _decimal(text: str, what: str) -> int:
    """A decimal number without leading zeros (the tlog formats' sizes and indexes)."""
    if not text.isascii() or not text.isdigit() or (text.startswith("0") and text != "0"):
        raise MalformedEvidence(f"{what} {text!r} is not a decimal number without leading zeros")
    return int(text)


def _hash_b64(text: str, what: str) -> bytes:
    """A SHA-256 hash in base64."""
    try:
        digest = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        digest = b""
    if len(digest) != merkle.HASH_SIZE:
        raise MalformedEvidence(f"{what} is not the base64 of a 32-byte hash")
    return digest


def parse_checkpoint(data: bytes | str, what: str = "the checkpoint") -> tuple[Checkpoint, note.Note]:
    """A checkpoint (C2SP tlog-checkpoint) from its text; :class:`MalformedEvidence` naming the line."""
    n = note.parse(data, what)
    lines = n.text[:-1].split("\n")
    if len(lines) < 3:
        raise MalformedEvidence(f"{what} has {len(lines)} line(s) before its signatures, not origin, tree size and root hash")
    origin, size, root_b64 = lines[:3]
    if not origin:
        raise MalformedEvidence(f"{what}: line 1: the origin is empty")
    tree_size = _decimal(size, f"{what}: line 2: the tree size")
    root_hash = _hash_b64(root_b64, f"{what}: line 3: the root hash")
    if any(not line for line in lines[3:]):
        raise MalformedEvidence(f"{what}: an extension line is empty")
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return Checkpoint(origin, tree_size, root_hash, text.replace("\r\n", "\n")), n


def _self_check(store: EventStore, log: elog.EvidenceTables, entries: list[elog.Entry]) -> list[Finding]:
    """What stops the store from signing: a broken chain anywhere, an entry of its log the
    events contradict, or a log that no longer extends the latest checkpoint it signed."""
    chain = _chain_findings(store)
    findings = [Finding(gid, f.seq, f"the hash chain is broken: {f.message}") for gid, f in chain.items()]
    gap = _gap(entries)
    if gap is not None:
        return findings + [gap]
    findings += [f for f in _check_games(store, _group(entries), {}, "the evidence log") if f.game_id not in chain]
    last = log.latest_checkpoint()
    if last is not None:
        if last.tree_size > len(entries) or merkle.root(_leaves(entries[: last.tree_size])).hex() != last.root_hash:
            findings.append(Finding(None, None, f"the evidence log no longer extends the store's latest checkpoint (size {last.tree_size})"))
    return findings


def _refuse_contradicted(store: EventStore, log: elog.EvidenceTables) -> None:
    problems = _self_check(store, log, log.entries())
    if problems:
        raise Contradicted("the store contradicts its own evidence log or chain; no checkpoint was signed (tonk verify names each game)", problems)


def make_checkpoint(store: EventStore, *, new_key: bool = False) -> Checkpoint:
    """Log every event stored since the last checkpoint and sign the tree head.

    Refused (:class:`Contradicted`, nothing written) when the store contradicts its own
    log or has a broken chain: a log must never sign a tree that does not extend what
    it signed before."""
    if new_key or load_signer(store_key_path(store)) is None:
        # signing would first make (and record) a key: not for a store that is then refused
        with store.evidence() as log:
            _refuse_contradicted(store, log)
    key = signer(store, new_key=new_key)
    with store.evidence(write=True) as log:  # the store's write lock: no append lands between the check and the signature
        _refuse_contradicted(store, log)
        at = now()
        log.append_new_events(at)
        entries = log.entries()
        root_hash = merkle.root(_leaves(entries))
        signed = note.sign(checkpoint_text(key.name, len(entries), root_hash), key)
        log.record_checkpoint(elog.StoredCheckpoint(len(entries), f"{key.verifier.id:08x}", root_hash.hex(), signed), at)
    return Checkpoint(key.name, len(entries), root_hash, signed)


def _against_log(store: EventStore, cp: Checkpoint) -> tuple[list[Finding], dict[str, Any]]:
    """Whether the store's log extends the checkpoint's tree, and every event logged in it is held."""
    with store.evidence() as log:
        keys = elog.known_keys(log)
        entries = log.entries()
    facts: dict[str, Any] = {}
    if keys and keys[0].name != cp.origin:
        return [
            Finding(None, None, f"the checkpoint is of log {cp.origin}, this store's log is {keys[0].name}: another store, or its log was replaced")
        ], facts
    if not keys and not entries and cp.tree_size:
        return [
            Finding(
                None,
                None,
                f"the store's evidence log holds 0 entries and it has signed nothing: it is not log {cp.origin} as signed "
                "(another store, one rebuilt by tonk import, which carries no log, or a copy from before its first checkpoint)",
            )
        ], facts
    facts["store_tree_size"] = len(entries)
    findings = []
    gap = _gap(entries)
    if gap is not None:
        findings.append(gap)
    elif len(entries) < cp.tree_size:
        findings.append(
            Finding(
                None,
                None,
                f"the store's evidence log holds {len(entries)} entries, the checkpoint {cp.tree_size}: "
                f"entries {len(entries)} to {cp.tree_size - 1} are gone (the store was rolled back to an older copy, or its log was cut)",
            )
        )
    else:
        leaves = _leaves(entries)
        if merkle.root(leaves[: cp.tree_size]) != cp.root_hash:
            findings.append(
                Finding(
                    None,
                    None,
                    f"the store's evidence log is not the one the checkpoint signed: its first {cp.tree_size} entries hash to "
                    "another root (entries were rewritten, removed or reordered)",
                )
            )
        else:
            proof = merkle.consistency_proof(leaves, cp.tree_size)
            new_root = merkle.root(leaves)
            if not merkle.verify_consistency(cp.tree_size, len(leaves), cp.root_hash, new_root, proof):  # pragma: no cover - a bug
                raise StoreError("internal error: the consistency proof does not verify")
            facts["store_root_hash"] = base64.b64encode(new_root).decode()
            facts["consistency_proof"] = [base64.b64encode(p).decode() for p in proof]
    checked = entries[: cp.tree_size]
    findings += _check_games(store, _group(checked), _chain_findings(store), "the checkpoint")
    facts["games_checked"] = len({e.game_id for e in checked})
    return findings, facts


def verify_checkpoint(store: EventStore, data: bytes | str, key: VerifierKey | None = None, what: str = "the checkpoint") -> Report:
    """Whether ``store`` extends the log the checkpoint signed: its log's first entries are
    the checkpoint's tree (a consistency proof to the store's tree today), and every event
    logged in them is still stored with the same hash."""
    cp, signed = parse_checkpoint(data, what)
    keys, source = trusted_keys(store, key)
    used = note.open_note(signed, keys, what)
    findings, facts = _against_log(store, cp)
    head = {
        "origin": cp.origin,
        "tree_size": cp.tree_size,
        "root_hash": base64.b64encode(cp.root_hash).decode(),
        "key": used.text(),
        "key_source": source,
    }
    return Report("checkpoint", findings, {**head, **facts})


# --- inclusion proofs -------------------------------------------------------------------------


@dataclass(frozen=True)
class Proof:
    game_id: str
    seq: int
    hash: str
    index: int
    path: list[bytes]
    checkpoint: Checkpoint


def make_proof(store: EventStore, game_id: str) -> Proof:
    """The inclusion proof of the game's last event logged in the store's latest checkpoint.

    :class:`EvidenceError` when no checkpoint covers the game yet; :class:`Contradicted`
    when the store's log no longer matches that checkpoint."""
    if not store.version(game_id):
        raise UnknownGame(game_id)
    with store.snapshot(), store.evidence() as log:
        stored = log.latest_checkpoint()
        if stored is None:
            raise EvidenceError("the store has no checkpoint yet: run tonk checkpoint first")
        entry = log.game_entry(game_id, stored.tree_size)
        if entry is None:
            raise EvidenceError(f"game {game_id} is in no checkpoint yet: run tonk checkpoint first")
        entries = log.entries(stored.tree_size)
    leaves = _leaves(entries)
    if len(leaves) != stored.tree_size or _gap(entries) or merkle.root(leaves).hex() != stored.root_hash:
        raise Contradicted(
            "no proof given", [Finding(None, None, f"the store's evidence log no longer matches its latest checkpoint (size {stored.tree_size})")]
        )
    cp, _ = parse_checkpoint(stored.note, "the store's latest checkpoint")
    return Proof(game_id, entry.seq, entry.hash, entry.leaf_index, merkle.inclusion_proof(leaves, entry.leaf_index), cp)


def proof_text(p: Proof) -> str:
    """The proof as C2SP tlog-proof text; ``extra`` holds the entry's bytes."""
    extra = base64.b64encode(elog.leaf_bytes(p.game_id, p.seq, p.hash)).decode()
    hashes = "".join(base64.b64encode(h).decode() + "\n" for h in p.path)
    return f"{PROOF_HEADER}\nextra {extra}\nindex {p.index}\n{hashes}\n{p.checkpoint.note}"


def parse_proof(data: bytes | str, what: str = "the proof") -> tuple[Proof, note.Note]:
    """A proof from its text; :class:`MalformedEvidence` naming the line."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedEvidence(f"{what} is not UTF-8 text (byte {exc.start})") from None
    data = data.replace("\r\n", "\n")
    lines = data.split("\n")
    if lines[0] != PROOF_HEADER:
        raise MalformedEvidence(f"{what}: line 1 is not {PROOF_HEADER!r}")
    if "" not in lines:
        raise MalformedEvidence(f"{what} has no blank line before its checkpoint")
    blank = lines.index("")
    head = lines[1:blank]
    if len(head) < 2 or not head[0].startswith("extra ") or not head[1].startswith("index "):
        raise MalformedEvidence(f"{what}: lines 2 and 3 must be 'extra <base64 entry>' and 'index <n>'")
    try:
        entry = base64.b64decode(head[0][6:].encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise MalformedEvidence(f"{what}: line 2: the extra data is not base64") from None
    try:
        game_id, seq, h = elog.parse_leaf(entry)
    except MalformedEvidence as exc:
        raise MalformedEvidence(f"{what}: line 2: {exc}") from None
    index = _decimal(head[1][6:], f"{what}: line 3: the index")
    path = [_hash_b64(line, f"{what}: line {i}") for i, line in enumerate(head[2:], 4)]
    cp, signed = parse_checkpoint("\n".join(lines[blank + 1 :]), f"{what}'s checkpoint")
    return Proof(game_id, seq, h, index, path, cp), signed


def verify_proof(store: EventStore | None, data: bytes | str, key: VerifierKey | None = None, what: str = "the proof") -> Report:
    """Check a proof with the public key alone: the checkpoint's signature and the entry's
    inclusion in its tree (:class:`EvidenceError` if either fails).  With a store, also
    check the store against the checkpoint, as :func:`verify_checkpoint` does."""
    proof, signed = parse_proof(data, what)
    keys, source = trusted_keys(store, key)
    used = note.open_note(signed, keys, f"{what}'s checkpoint")
    leaf = merkle.leaf_hash(elog.leaf_bytes(proof.game_id, proof.seq, proof.hash))
    if not merkle.verify_inclusion(leaf, proof.index, proof.checkpoint.tree_size, proof.path, proof.checkpoint.root_hash):
        raise note.BadSignature(f"{what}: the inclusion proof does not lead to the checkpoint's root hash: the proof or its entry was changed")
    facts: dict[str, Any] = {
        "game_id": proof.game_id,
        "seq": proof.seq,
        "hash": proof.hash,
        "index": proof.index,
        "origin": proof.checkpoint.origin,
        "tree_size": proof.checkpoint.tree_size,
        "root_hash": base64.b64encode(proof.checkpoint.root_hash).decode(),
        "key": used.text(),
        "key_source": source,
        "store_checked": store is not None,
    }
    findings: list[Finding] = []
    if store is not None:
        findings, more = _against_log(store, proof.checkpoint)
        facts.update(more)
    return Report("proof", findings, facts)
