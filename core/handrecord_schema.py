"""The JSON Schema (draft 2020-12) of hand-record files, format versions 1 and 2
(cases/README.md; version 2 adds "Partial knowledge"), printed by ``tonk schema
--hand-record``.  It describes shapes; what a schema cannot say (every card of the deck
once, the unknown counts adding up to the unseen cards) is checked when a record is read."""

from __future__ import annotations

from typing import Any

_CARD = {"type": "string", "description": "rank + suit (AS, 10H, KD), jokers X1 X2", "pattern": "^(A|[2-9]|10|J|Q|K)[SHDC]$|^X[12]$"}
_CARDS = {"type": "array", "items": {"$ref": "#/$defs/card"}}
_COUNT = {"type": "integer", "minimum": 0}


def _unknown(with_cards: bool, what: str) -> dict[str, Any]:
    props: dict[str, Any] = {"unknown": {**_COUNT, "description": what}}
    if with_cards:
        props["cards"] = {"$ref": "#/$defs/cards"}
    return {"type": "object", "properties": props, "required": ["unknown"], "additionalProperties": False}


def _setup(partial: bool) -> dict[str, Any]:
    cards: dict[str, Any] = {"$ref": "#/$defs/cards"}
    hand: dict[str, Any] = cards
    stock: dict[str, Any] = {**cards, "description": "top first"}
    discard: dict[str, Any] = {**cards, "description": "top first; only the top is usable"}
    if partial:
        hand = {"oneOf": [cards, _unknown(True, "cards nobody has shown")]}
        stock = {"oneOf": [stock, _unknown(False, "cards in an order nobody knows")]}
        discard = {"oneOf": [discard, _unknown(True, "cards below the named top ones that nobody can name")]}
    explicit: dict[str, Any] = {
        "type": "object",
        "properties": {
            "mode": {"const": "explicit"},
            "hands": {"type": "object", "additionalProperties": hand},
            "stock": stock,
            "discard": discard,
            "table": {"type": "array", "items": {"$ref": "#/$defs/spread"}},
            "to_act": {"type": "string"},
        },
        "required": ["mode", "hands", "to_act"],
    }
    if partial:
        explicit["additionalProperties"] = False
    deck = {"type": "object", "properties": {"mode": {"const": "deck"}, "deck": {**cards, "description": "every card once, top first"}}, "required": ["mode", "deck"]}
    return {"oneOf": [deck, explicit]}


def _action(partial: bool) -> dict[str, Any]:
    legal: dict[str, Any] = {"type": "boolean"}
    if partial:
        legal = {"oneOf": [legal, {"const": "open"}]}
    props: dict[str, Any] = {
        "seq": {"type": "integer", "minimum": 1},
        "player": {"type": "string"},
        "action": {"enum": ["knock", "draw_stock", "draw_discard", "spread", "hit", "discard"]},
        "cards": {"$ref": "#/$defs/cards"},
        "jokers_as": {"type": "object", "additionalProperties": {"$ref": "#/$defs/card"}},
        "card": {
            "$ref": "#/$defs/card",
            "description": "hit, discard" + ("; draw_stock/draw_discard: the card drawn, when agreed (an unseen card)" if partial else ""),
        },
        "target": {"type": "string"},
        "joker_as": {"$ref": "#/$defs/card"},
        "note": {"type": "string"},
        "comment": {"type": "string"},
        "expect": {
            "type": "object",
            "properties": {
                "legal": legal,
                "violation": {"type": "string"},
                "rule": {"type": "string"},
                "drawn": {"$ref": "#/$defs/card"},
                "spread_id": {"type": "string"},
                "effect": {"const": "ends_hand_stock_exhausted"},
            },
        },
    }
    return {"type": "object", "properties": props, "required": ["player", "action"], "additionalProperties": False}


def _case(version: int) -> dict[str, Any]:
    partial = version == 2
    expected: dict[str, Any] = {"type": "object", "description": "the verdict's blocks (cases/README.md, expected)"}
    if partial:
        expected["properties"] = {
            "hand_totals": {"type": "object", "additionalProperties": {"oneOf": [{"type": "integer"}, {"$ref": "#/$defs/range"}]}},
            "open": {"type": "boolean"},
            "outcomes": {"type": "array", "items": {"$ref": "#/$defs/outcome"}},
            "decided_by": {"type": "string", "description": "in words; not compared"},
        }
    return {
        "type": "object",
        "properties": {
            "format_version": {"const": version, "description": "a file of one case may carry its own"},
            "id": {"type": "string"},
            "title": {"type": "string"},
            "ruleset": {"type": "object", "properties": {"variants": {"type": "array", "items": {"type": "string"}}, "options": {"type": "object"}}},
            "players": {"type": "array", "items": {"type": "string"}, "minItems": 2, "uniqueItems": True},
            "dealer": {"type": "string"},
            "setup": _setup(partial),
            "actions": {"type": "array", "items": _action(partial)},
            "expected": expected,
        },
        "required": ["players", "dealer", "setup"],
    }


def _file(version: int) -> dict[str, Any]:
    case = {"$ref": f"#/$defs/case_v{version}"}
    props: dict[str, Any] = {"format_version": {"const": version}, "cases": {"type": "array", "items": case}}
    if version == 2:
        props["malformed"] = {
            "type": "array",
            "description": "records that must be refused as malformed, each with a why",
            "items": {"type": "object", "properties": {"why": {"type": "string"}}},
        }
    many = {"type": "object", "properties": props, "required": ["cases"]}
    if version == 1:
        many["description"] = "format_version absent or 1"
        props["format_version"] = {"const": 1}
    else:
        many["required"] = ["cases", "format_version"]
    return many


def hand_record_schema() -> dict[str, Any]:
    """The schema of a hand-record file: one case, or ``{"cases": [...]}`` of version 1 or 2."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "tonk hand records (tonk-adjudication-cases), format versions 1 and 2",
        "x-tonk-format": "tonk-adjudication-cases",
        "x-tonk-format-versions": [1, 2],
        "oneOf": [_file(1), _file(2), {"$ref": "#/$defs/case_v1"}, {"$ref": "#/$defs/case_v2"}],
        "$defs": {
            "card": _CARD,
            "cards": _CARDS,
            "range": {"type": "object", "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}}, "required": ["min", "max"], "additionalProperties": False},
            "spread": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "owner": {"type": "string"}, "cards": _CARDS, "jokers_as": {"type": "object"}},
                "required": ["id", "owner", "cards"],
            },
            "outcome": {
                "type": "object",
                "properties": {"end": {"type": ["object", "null"]}, "ledger": {"type": "array"}, "net": {"type": "object"}},
                "required": ["end", "ledger", "net"],
            },
            "case_v1": _case(1),
            "case_v2": _case(2),
        },
    }
