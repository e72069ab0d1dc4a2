"""The event format stays readable: a log stored in format version 1 (a frozen fixture,
see fixtures/make_events_v1.py) decodes with today's engine, and the JSON Schema is
generated from the msgspec definitions."""

from __future__ import annotations

import io
import json
from pathlib import Path

import msgspec

from tonk.cli.store_cmd import event_schema
from tonk.core.events import EVENT_TYPES, FORMAT_VERSION, encode
from tonk.storage import EventStore, Record
from tonk.storage.jsonl import export_games, import_file

FIXTURE = Path(__file__).parent / "fixtures" / "events-v1.jsonl"
V1_TYPES = {
    "game_started",
    "hand_dealt",
    "knocked",
    "card_drawn",
    "empty_stock_called",
    "spread_laid",
    "card_hit",
    "card_discarded",
    "hand_ended",
    "game_ended",
}


def fixture_records() -> list[Record]:
    lines = FIXTURE.read_bytes().splitlines()
    assert json.loads(lines[0]) == {"format": "tonk-events", "format_version": 1}
    return [msgspec.json.decode(x, type=Record) for x in lines[1:]]


def test_the_v1_fixture_holds_every_v1_event_type_and_wild_jokers():
    recs = fixture_records()
    assert {r.type for r in recs} == V1_TYPES
    assert any(b'"jokers_as":{"X' in bytes(r.payload) for r in recs)
    assert V1_TYPES <= set(EVENT_TYPES)  # a type of a stored format is never removed


def test_the_v1_fixture_decodes_and_round_trips(tmp_path):
    db = tmp_path / "tonk.db"
    with EventStore.open(db) as store:
        # no rules check: this test is about the format; the rules' own tests audit games
        result = import_file(store, FIXTURE)
        assert len(result.imported) == 3
        # the fixture's header predates the per-game marks: accepted, with a warning
        assert len(result.warnings) == 1 and "cut short at its end cannot be detected" in result.warnings[0]
        assert store.verify() == []
        by_game: dict[str, list[Record]] = {}
        for r in fixture_records():
            by_game.setdefault(r.game_id, []).append(r)
        for gid, recs in by_game.items():
            events = store.read(gid)
            assert [e.__struct_config__.tag for e in events] == [r.type for r in recs]
            if FORMAT_VERSION == 1:
                # the canonical bytes of format 1 are still what encode() writes
                assert [encode(e) for e in events] == [bytes(r.payload) for r in recs]
        out = io.BytesIO()
        export_games(store, list(by_game), out)
    # the events come out byte for byte; the header now carries each game's count and last hash
    written, frozen = out.getvalue().splitlines(), FIXTURE.read_bytes().splitlines()
    assert written[1:] == frozen[1:]
    header = json.loads(written[0])
    assert {k: header[k] for k in ("format", "format_version")} == json.loads(frozen[0])
    assert header["games"] == [
        {"game_id": gid, "events": len(recs), "last_hash": recs[-1].hash} for gid, recs in by_game.items()
    ]


def test_schema_is_a_json_schema_of_the_event_union():
    schema = event_schema()
    json.dumps(schema)  # plain JSON
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert schema["x-tonk-format-version"] == FORMAT_VERSION
    defs = schema["$defs"]
    refs = [alt["$ref"] for alt in schema["anyOf"]]
    assert all(ref.startswith("#/$defs/") and ref.split("/")[-1] in defs for ref in refs)
    mapping = schema["discriminator"]["mapping"]
    assert schema["discriminator"]["propertyName"] == "type"
    assert set(mapping) == set(EVENT_TYPES)
    for tag, cls in EVENT_TYPES.items():
        d = defs[mapping[tag].split("/")[-1]]
        assert d["type"] == "object"
        assert d["properties"]["type"] == {"enum": [tag]}
        required = {f for f, default in zip(cls.__struct_encode_fields__, _defaults(cls)) if default is msgspec.NODEFAULT}
        assert set(d["required"]) == required | {"type"}
        assert set(d["properties"]) == set(cls.__struct_encode_fields__) | {"type"}


def _defaults(cls) -> list:
    n = len(cls.__struct_fields__)
    return [msgspec.NODEFAULT] * (n - len(cls.__struct_defaults__)) + list(cls.__struct_defaults__)
