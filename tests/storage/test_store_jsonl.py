"""JSONL export/import: byte-identical round trips; every kind of bad file refused whole,
naming the line, with the store left byte-identical."""

from __future__ import annotations

import io
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tonk.core.events import CardDiscarded, CardDrawn, decode, encode
from tonk.storage import GENESIS, EventStore, ImportRefused, Record, UnknownGame, link_hash
from tonk.storage.jsonl import export_games, import_file


def rules_check(events):
    """The strict import's rules check, as the CLI passes it: the first audit finding."""
    from tonk.application.audit import first_rules_finding

    return first_rules_finding(events)


def export_bytes(path: Path, ids=None) -> bytes:
    out = io.BytesIO()
    with EventStore.open(path, create=False) as store:
        export_games(store, ids, out)
    return out.getvalue()


# --- round trips -----------------------------------------------------------------------------
def test_round_trip_is_byte_identical_and_verifies(tmp_path, games, record):
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    record(a, games)
    first = export_bytes(a)
    (tmp_path / "x.jsonl").write_bytes(first)
    with EventStore.open(b) as store:
        result = import_file(store, tmp_path / "x.jsonl", rules_check=rules_check)
        assert result.imported == sorted(g.game_id for g in games)
        assert result.events == sum(len(g.events) for g in games)
        assert store.verify() == []
        for g in games:
            assert store.read(g.game_id) == g.events
    assert export_bytes(b) == first
    with EventStore.open(a) as sa, EventStore.open(b) as sb:
        assert sa.games() == sb.games()


def test_export_format_header_and_lines(tmp_path, games, record):
    db = tmp_path / "a.db"
    record(db, games[:1])
    lines = export_bytes(db).splitlines()
    g = games[0]
    assert len(lines) == 1 + len(g.events)
    prev = GENESIS
    for seq, (line, e) in enumerate(zip(lines[1:], g.events), 1):
        rec = msgspec.json.decode(line, type=Record)
        assert (rec.game_id, rec.seq, rec.type, rec.chain) == (g.game_id, seq, e.__struct_config__.tag, 2)
        assert bytes(rec.payload) == encode(e)
        assert rec.prev_hash == prev and rec.hash == link_hash(prev, encode(e), 2, rec.recorded_at, rec.command_id)
        prev = rec.hash
    assert lines[0] == b'{"format":"tonk-events","format_version":1,"games":[{"game_id":"%s","events":%d,"last_hash":"%s"}]}' % (
        g.game_id.encode(), len(g.events), prev.encode()
    )


def test_export_by_id_keeps_the_order_given_and_refuses_unknown_ids_before_writing(tmp_path, games, record):
    db = tmp_path / "a.db"
    record(db, games)
    ids = [games[2].game_id, games[0].game_id, games[2].game_id]
    lines = export_bytes(db, ids).splitlines()
    seen = list(dict.fromkeys(msgspec.json.decode(x)["game_id"] for x in lines[1:]))
    assert seen == [games[2].game_id, games[0].game_id]
    out = io.BytesIO()
    with EventStore.open(db) as store, pytest.raises(UnknownGame):
        export_games(store, [games[0].game_id, "nope"], out)
    assert out.getvalue() == b""


def test_importing_the_same_games_again_is_a_noop(tmp_path, games, record, digest):
    db = tmp_path / "a.db"
    record(db, games)
    f = tmp_path / "x.jsonl"
    f.write_bytes(export_bytes(db))
    before = digest(db)
    with EventStore.open(db) as store:
        result = import_file(store, f, rules_check=rules_check)
    assert result.imported == [] and result.present == sorted(g.game_id for g in games)
    assert digest(db) == before


def test_import_adds_only_the_new_games(tmp_path, games, record):
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    record(a, games)
    record(b, games[:2])
    f = tmp_path / "x.jsonl"
    f.write_bytes(export_bytes(a))
    with EventStore.open(b) as store:
        result = import_file(store, f, rules_check=rules_check)
        assert sorted(result.imported) == sorted(g.game_id for g in games[2:])
        assert sorted(result.present) == sorted(g.game_id for g in games[:2])
        # the same events, appended to each store at its own time: the store keeps its own times
        assert len(result.warnings) == 2 and all("same events but other recorded times" in w for w in result.warnings)
    new_ids = [g.game_id for g in games[2:]]
    assert export_bytes(b, new_ids) == export_bytes(a, new_ids)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seeds=st.lists(st.integers(0, 10_000), min_size=1, max_size=3, unique=True),
    variants=st.sampled_from([(), ("hit-penalty",), ("one-hit-per-turn",), ("no-initial-tonk",)]),
)
def test_round_trip_property(tmp_path_factory, play, seeds, variants):
    d = tmp_path_factory.mktemp("rt")
    a, b = d / "a.db", d / "b.db"
    with EventStore.open(a) as store:
        for s in seeds:
            g = play(s, hands=1 + s % 3, variants=variants, end=s % 2 == 0)
            version = 0
            for e in g.events:  # command by command, with command ids
                version = store.append(g.game_id, [e], version, command_id=f"c{version}")
    first = export_bytes(a)
    (d / "x.jsonl").write_bytes(first)
    with EventStore.open(b) as store:
        import_file(store, d / "x.jsonl", rules_check=rules_check)
        assert store.verify() == []
    assert export_bytes(b) == first


# --- bad files -------------------------------------------------------------------------------
def records_of(lines: list[bytes]) -> list[Record]:
    return [msgspec.json.decode(x, type=Record) for x in lines[1:]]


def with_payload(rec: Record, **changes) -> Record:
    event = msgspec.structs.replace(decode(bytes(rec.payload)), **changes)
    return msgspec.structs.replace(rec, payload=msgspec.Raw(encode(event)))


def rechain(recs: list[Record]) -> list[Record]:
    """Recompute the chain of each game, as a careful forger would."""
    out, prev, current = [], GENESIS, None
    for r in recs:
        if r.game_id != current:
            current, prev = r.game_id, GENESIS
        h = link_hash(prev, bytes(r.payload), r.chain, r.recorded_at, r.command_id)
        out.append(msgspec.structs.replace(r, prev_hash=prev, hash=h))
        prev = h
    return out


def lines_of(header: bytes, recs: list[Record]) -> list[bytes]:
    """The file of ``recs``, its header's marks recomputed from them (as a forger would)."""
    marks: dict[str, dict] = {}
    for r in recs:
        marks[r.game_id] = {"game_id": r.game_id, "events": r.seq, "last_hash": r.hash}
    head = msgspec.json.decode(header)
    if "games" in head:
        head["games"] = list(marks.values())
    return [msgspec.json.encode(head)] + [msgspec.json.encode(r) for r in recs]


def seq_of(recs: list[Record], game_id: str, kind) -> int:
    for r in recs:
        if r.game_id == game_id and isinstance(decode(bytes(r.payload)), kind):
            return r.seq
    raise AssertionError(kind)


def bad_file(kind: str, lines: list[bytes], games) -> tuple[list[bytes] | bytes, int, str]:
    """(the bad file's lines, the line the refusal must name, a phrase of the reason)."""
    header, recs = lines[0], records_of(lines)
    a = games[0]
    if kind == "invalid_json":
        return lines[:3] + [b'{"game_id": "x", "seq": '] + lines[4:], 4, "invalid JSON"
    if kind == "unknown_type":
        recs[2] = msgspec.structs.replace(recs[2], type="teleported")
        return lines_of(header, recs), 4, "unknown event type 'teleported'"
    if kind == "unknown_type_in_payload":
        bad = bytes(recs[2].payload).replace(recs[2].type.encode(), b"teleported", 1)
        recs[2] = msgspec.structs.replace(recs[2], payload=msgspec.Raw(bad))
        return lines_of(header, rechain(recs)), 4, "payload is not a valid"
    if kind == "type_mismatch":
        recs[2] = msgspec.structs.replace(recs[2], type="game_ended")
        return lines_of(header, recs), 4, "line says type game_ended but the payload is"
    if kind == "seq_gap":
        return lines[:4] + lines[5:], 5, "seq gap in game %s: expected seq 4, found 5" % a.game_id
    if kind == "broken_chain":
        s = seq_of(recs, a.game_id, CardDrawn)
        recs[s - 1] = with_payload(recs[s - 1], card="XX")
        return lines_of(header, recs), s + 1, f"broken chain in game {a.game_id} at seq {s}"
    if kind == "broken_prev_hash":
        recs[5] = msgspec.structs.replace(recs[5], prev_hash="a" * 64)
        return lines_of(header, recs), 7, "prev_hash"
    if kind == "illegal_action":
        s = seq_of(recs, a.game_id, CardDiscarded)
        ev = decode(bytes(recs[s - 1].payload))
        other = next(p for p in a.players if p != ev.player)
        recs[s - 1] = with_payload(recs[s - 1], player=other)
        return lines_of(header, rechain(recs)), s + 1, f"illegal play in game {a.game_id} at seq {s}"
    if kind == "non_canonical":
        spaced = bytes(recs[1].payload).replace(b",", b", ")
        recs[1] = msgspec.structs.replace(recs[1], payload=msgspec.Raw(spaced))
        return lines_of(header, rechain(recs)), 3, "canonical"
    if kind == "missing_field":
        return lines[:2] + [lines[2].replace(b'"hash":', b'"hush":', 1)] + lines[3:], 3, "not an event record"
    if kind == "no_header":
        return lines[1:], 1, "first line must be the header"
    if kind == "other_format":
        return [b'{"format":"pgn","format_version":1}'] + lines[1:], 1, "format 'pgn'"
    if kind == "newer_format":
        return [b'{"format":"tonk-events","format_version":99}'] + lines[1:], 1, "format version 99 is newer"
    if kind == "empty_line":
        return lines[:3] + [b""] + lines[3:], 4, "empty line"
    if kind == "empty_file":
        return b"", 0, "the file is empty"
    if kind == "game_not_contiguous":
        n = len(a.events)
        return lines + lines[1 : 1 + n], len(lines) + 1, f"game {a.game_id} appears again"
    if kind == "second_game_started":
        recs[3] = msgspec.structs.replace(recs[3], type="game_started", payload=recs[0].payload)
        return lines_of(header, rechain(recs)), 5, "second game_started"
    if kind == "unknown_variant":
        start = decode(bytes(recs[0].payload))
        ruleset = msgspec.structs.replace(start.ruleset, variants=("no-such-variant",))
        recs[0] = with_payload(recs[0], ruleset=ruleset)
        return lines_of(header, rechain(recs)), 2, "cannot be audited"
    if kind == "bad_time":
        recs[0] = msgspec.structs.replace(recs[0], recorded_at="yesterday")
        return lines_of(header, recs), 2, "recorded_at 'yesterday'"
    raise AssertionError(kind)


BAD_KINDS = [
    "invalid_json",
    "unknown_type",
    "unknown_type_in_payload",
    "type_mismatch",
    "seq_gap",
    "broken_chain",
    "broken_prev_hash",
    "illegal_action",
    "non_canonical",
    "missing_field",
    "no_header",
    "other_format",
    "newer_format",
    "empty_line",
    "empty_file",
    "game_not_contiguous",
    "second_game_started",
    "unknown_variant",
    "bad_time",
]


@pytest.fixture(scope="module")
def good_lines(tmp_path_factory, games):
    from tonk.storage.jsonl import export_games as export

    db = tmp_path_factory.mktemp("good") / "good.db"
    with EventStore.open(db) as store:
        for g in games[:2]:
            store.append(g.game_id, g.events, 0)
        out = io.BytesIO()
        export(store, None, out)
    lines = out.getvalue().splitlines()
    # games[0] first, whatever the ids' order, so the line numbers below are known
    recs = records_of(lines)
    first = [r for r in recs if r.game_id == games[0].game_id]
    rest = [r for r in recs if r.game_id != games[0].game_id]
    return lines_of(lines[0], first + rest)


def write_lines(path: Path, content) -> Path:
    path.write_bytes(content if isinstance(content, bytes) else b"\n".join(content) + b"\n")
    return path


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_bad_file_is_refused_whole_naming_the_line_and_the_store_is_unchanged(tmp_path, games, record, digest, good_lines, kind):
    db = tmp_path / "tonk.db"
    record(db, games[2:3])  # a store with something in it already
    content, line, reason = bad_file(kind, list(good_lines), games)
    f = write_lines(tmp_path / f"{kind}.jsonl", content)
    before = digest(db)
    with EventStore.open(db) as store:
        with pytest.raises(ImportRefused) as info:
            import_file(store, f, rules_check=rules_check)
        assert store.game_ids() == [games[2].game_id]
    err = info.value
    assert err.line == line, str(err)
    assert reason in err.reason, str(err)
    assert str(err).startswith(f"{f}:{line}: " if line else f"{f}: ") and str(err).endswith("nothing was imported")
    assert digest(db) == before


def test_a_good_file_passes_the_same_checks(tmp_path, games, good_lines):
    """The bad files above differ from this one only by what each test broke."""
    f = write_lines(tmp_path / "good.jsonl", good_lines)
    with EventStore.open(tmp_path / "tonk.db") as store:
        assert sorted(import_file(store, f, rules_check=rules_check).imported) == sorted(g.game_id for g in games[:2])


def test_no_strict_skips_only_the_rules_check(tmp_path, games, good_lines):
    for kind, imported in (("unknown_variant", True), ("illegal_action", True), ("broken_chain", False)):
        content, _, _ = bad_file(kind, list(good_lines), games)
        f = write_lines(tmp_path / f"{kind}.jsonl", content)
        with EventStore.open(tmp_path / f"{kind}.db") as store:
            if imported:
                assert len(import_file(store, f).imported) == 2
                assert store.verify() == []
            else:
                with pytest.raises(ImportRefused):
                    import_file(store, f)


def test_a_game_stored_with_other_events_is_refused(tmp_path, games, good_lines, digest):
    db = tmp_path / "tonk.db"
    a = games[0]
    with EventStore.open(db) as store:
        store.append(a.game_id, a.events[:2], 0)  # the start and the first deal only
    f = write_lines(tmp_path / "x.jsonl", good_lines)
    before = digest(db)
    with EventStore.open(db) as store:
        with pytest.raises(ImportRefused, match=f"game {a.game_id} is already in the store with other events") as info:
            import_file(store, f, rules_check=rules_check)
    assert info.value.line == 2
    assert digest(db) == before


def test_missing_file(tmp_path):
    with EventStore.open(tmp_path / "tonk.db") as store:
        with pytest.raises(ImportRefused, match="cannot read the file"):
            import_file(store, tmp_path / "nope.jsonl", rules_check=rules_check)
