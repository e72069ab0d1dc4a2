"""Hand records: the written-down hands of ``cases/README.md``, read and validated.

A file holds one case object or ``{"cases": [...]}``.  Every problem is a
:class:`HandRecordError` naming the case and the field (``case T05:
actions[2].card: unknown card 'ZZ'``).  Rules-dependent checks (the deck
matches the ruleset's, spreads on an explicit table are valid) are made when
the record is set up under its ruleset (:mod:`tonk.core.adjudication`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .cards import CardError, parse_card
from .commands import ACTIONS, action_fields
from .errors import HandRecordError
from .names import BadName, check_name
from .safe_json import UnsafeJSON, decode_at, json_shown, line_of, skip_space

_COMMON_FIELDS = {"seq", "player", "action", "expect", "note", "comment"}


@dataclass
class RecordedAction:
    seq: int
    player: str
    action: str
    fields: dict[str, Any]
    expect: dict[str, Any] | None


@dataclass
class TableSpread:
    id: str
    owner: str
    cards: list[str]
    jokers_as: dict[str, str] = field(default_factory=dict)


@dataclass
class HandRecord:
    id: str
    title: str
    players: list[str]
    dealer: str
    variants: list[str]
    options: dict[str, Any]
    mode: str  # "deck" or "explicit"
    deck: list[str] | None = None  # mode "deck"
    hands: dict[str, list[str]] = field(default_factory=dict)  # mode "explicit": the position
    stock: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    table: list[TableSpread] = field(default_factory=list)
    to_act: str | None = None
    actions: list[RecordedAction] = field(default_factory=list)
    expected: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    # format_version 2 (partial knowledge): ``hands``/``stock``/``discard`` then hold the
    # named cards only, and these the number of cards nobody can name in each place
    format_version: int = 1
    hand_unknown: dict[str, int] = field(default_factory=dict)
    stock_unknown: int = 0
    discard_unknown: int = 0


class RecordContext:
    def __init__(self, case_id: str):
        self.case_id = case_id

    def err(self, where: str, what: str) -> HandRecordError:
        return HandRecordError(f"case {self.case_id}: {where}: {what}")

    def card(self, value: Any, where: str) -> str:
        try:
            return parse_card(value)
        except CardError as exc:
            raise self.err(where, str(exc)) from None

    def name(self, value: Any, where: str, what: str) -> str:
        try:
            return check_name(value, what)
        except BadName as exc:
            raise self.err(where, str(exc)) from None

    def cards(self, value: Any, where: str) -> list[str]:
        if not isinstance(value, list):
            raise self.err(where, f"expected a list of cards, found {json_shown(value)}")
        return [self.card(v, f"{where}[{i}]") for i, v in enumerate(value)]


def load_records(path: str | Path) -> list[dict[str, Any]]:
    """Read a whole hand-record file: a list of raw case objects (see :func:`stream_records`)."""
    return [raw for raw, _ in stream_records(path)]


def read_text(path: str | Path) -> str:
    """The text of a hand-record file, or :class:`HandRecordError` naming it."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8-sig")  # a leading byte order mark is skipped (RFC 8259 lets a parser ignore it)
    except FileNotFoundError:
        raise HandRecordError(f"{p}: no such file") from None
    except UnicodeDecodeError as exc:
        raise HandRecordError(f"{p}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise HandRecordError(f"{p}: cannot be read ({exc.strerror or exc})") from None


def stream_records(path: str | Path) -> "RecordStream":
    """The raw case objects of a hand-record file, one at a time (see :class:`RecordStream`)."""
    return RecordStream(read_text(path), str(Path(path)))


def records_from_text(text: str, source: str = "<input>") -> list[dict[str, Any]]:
    return [raw for raw, _ in RecordStream(text, source)]


class RecordStream:
    """The cases of a hand-record text, decoded one at a time: iterating yields
    ``(raw_case, end_offset)`` (``len(text)`` is the whole), so a file of many cases
    is never held as one tree of objects.  A text that is not JSON, or JSON outside the
    limits of :mod:`tonk.core.safe_json` (deep nesting, huge integers, NaN), raises
    :class:`HandRecordError` naming the source, the line and, inside ``cases``, the case."""

    def __init__(self, text: str, source: str = "<input>"):
        self.text = text
        self.source = source
        self.size = len(text)
        self.header: dict[str, Any] = {}  # the top-level keys other than "cases" read so far

    @property
    def format_version(self) -> Any:
        """The file's ``format_version`` as read so far (1 when absent; it comes before
        ``cases`` in a file whose cases use version 2).  Any other value than the number
        1 or 2 is passed on as written, for :func:`parse_record` to refuse by name."""
        return self.header.get("format_version", 1)

    def __iter__(self) -> Iterator[tuple[Any, int]]:
        text = self.text
        pos = skip_space(text, 0)
        if text.startswith("{", pos):
            yield from self._object(pos)
            return
        if text.startswith("[", pos):
            yield from self._array(pos, "the list")
            self._end(skip_space(text, self._after_array))
            return
        value, end = self._decode(pos, "")
        self._end(skip_space(text, end))
        raise HandRecordError(f"{self.source}: expected a hand record object or {{\"cases\": [...]}}")

    # --- the pieces --------------------------------------------------------------------------
    def _error(self, pos: int, what: str, where: str = "") -> HandRecordError:
        return HandRecordError(f"{self.source}: line {line_of(self.text, pos)}: {where}{what}")

    def _decode(self, pos: int, where: str) -> tuple[Any, int]:
        try:
            return decode_at(self.text, pos)
        except json.JSONDecodeError as exc:
            raise self._not_json(exc) from None
        except UnsafeJSON as exc:
            raise self._error(pos if exc.pos is None else exc.pos, exc.message, where) from None

    def _not_json(self, exc: json.JSONDecodeError) -> HandRecordError:
        return HandRecordError(f"{self.source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")

    def _expect(self, pos: int, chars: str, msg: str) -> int:
        if pos >= len(self.text) or self.text[pos] not in chars:
            raise self._not_json(json.JSONDecodeError(msg, self.text, pos))
        return pos

    def _end(self, pos: int) -> None:
        if pos != len(self.text):
            raise self._not_json(json.JSONDecodeError("Extra data", self.text, pos))

    def _array(self, pos: int, what: str) -> Iterator[tuple[Any, int]]:
        """The elements of the array at ``pos``, one at a time; sets ``_after_array``."""
        text = self.text
        pos = skip_space(text, pos + 1)
        index = 0
        if text.startswith("]", pos):
            self._after_array = pos + 1
            return
        while True:
            value, end = self._decode(pos, f"case #{index + 1} of {what}: ")
            yield value, end
            index += 1
            pos = self._expect(skip_space(text, end), ",]", "Expecting ',' delimiter")
            if text[pos] == "]":
                self._after_array = pos + 1
                return
            pos = skip_space(text, pos + 1)

    def _object(self, pos: int) -> Iterator[tuple[Any, int]]:
        """A top-level object: its ``cases`` array streamed, or the object itself as one case."""
        text = self.text
        whole: dict[str, Any] = {}
        streamed = False
        pos = skip_space(text, pos + 1)
        if not text.startswith("}", pos):
            while True:
                self._expect(pos, '"', "Expecting property name enclosed in double quotes")
                key, pos = self._decode(pos, "")
                pos = self._expect(skip_space(text, pos), ":", "Expecting ':' delimiter")
                pos = skip_space(text, pos + 1)
                if key == "cases" and not streamed:
                    if not text.startswith("[", pos):
                        raise HandRecordError(f"{self.source}: \"cases\" must be a list of hand records")
                    streamed = True
                    yield from self._array(pos, '"cases"')
                    end = self._after_array
                else:
                    whole[key], end = self._decode(pos, "")
                    self.header[key] = whole[key]
                pos = self._expect(skip_space(text, end), ",}", "Expecting ',' delimiter")
                if text[pos] == "}":
                    break
                pos = skip_space(text, pos + 1)
        self._end(skip_space(text, pos + 1))
        if not streamed:
            yield whole, len(text)


def case_id_of(raw: Any, index: int) -> str:
    """The case's ``id`` when it is a valid name (:mod:`tonk.core.names`), else ``#<n>``."""
    if isinstance(raw, dict) and isinstance(raw.get("id"), str) and raw["id"]:
        if check_id_problem(raw["id"]) is None:
            return raw["id"]
    return f"#{index + 1}"


def check_id_problem(value: Any) -> str | None:
    try:
        check_name(value, "case id")
    except BadName as exc:
        return str(exc)
    return None


def record_version(raw: Any, file_version: Any = 1) -> Any:
    """The format version a case is read under: its own ``format_version`` when it carries
    one (a file of one case), else its file's; as written (checked by :func:`parse_record`)."""
    if isinstance(raw, dict) and "format_version" in raw:
        return raw["format_version"]
    return file_version


def parse_record(raw: Any, index: int = 0, format_version: int = 1) -> HandRecord:
    """Validate one raw case object into a :class:`HandRecord`: the case as a whole, its
    players and dealer, its ruleset, its setup (a deck order or an explicit position),
    then its actions, each problem a :class:`HandRecordError` naming the field.
    ``format_version`` 2 allows unknown cards in an explicit setup and named draws
    (cases/README.md, "Partial knowledge"; :mod:`tonk.core.partial_record`)."""
    cid = case_id_of(raw, index)
    ctx = RecordContext(cid)
    if not isinstance(raw, dict):
        raise ctx.err("case", "a hand record must be a JSON object")
    format_version = record_version(raw, format_version)
    if type(format_version) is not int or format_version not in (1, 2):  # not True, 2.0 or "2"
        raise ctx.err("format_version", f"must be 1 or 2, not {json_shown(format_version)}")
    if "id" in raw:
        problem = check_id_problem(raw["id"])
        if problem is not None:
            raise ctx.err("id", problem)
    players = _players(ctx, raw)
    dealer = raw.get("dealer")
    if not isinstance(dealer, str) or dealer not in players:
        raise ctx.err("dealer", f"{dealer!r} is not one of the players")
    variants, options = _ruleset(ctx, raw)
    setup = raw.get("setup")
    if not isinstance(setup, dict):
        raise ctx.err("setup", "missing (an object with mode 'deck' or 'explicit')")
    mode = setup.get("mode")
    if not isinstance(mode, str) or mode not in ("deck", "explicit"):
        raise ctx.err("setup.mode", f"must be \"deck\" or \"explicit\", not {json_shown(mode)}")
    rec = HandRecord(
        id=cid,
        title=str(raw.get("title", "")),
        players=list(players),
        dealer=dealer,
        variants=list(variants),
        options=dict(options),
        mode=mode,
        expected=raw.get("expected") if isinstance(raw.get("expected"), dict) else None,
        raw=raw,
        format_version=format_version,
    )
    if mode == "deck":
        rec.deck = ctx.cards(setup.get("deck"), "setup.deck")
        _no_duplicates(ctx, rec.deck, "setup.deck")
    elif format_version == 2:
        from .partial_record import read_partial_position

        read_partial_position(ctx, setup, rec)
    else:  # explicit (the mode was checked above)
        _read_position(ctx, setup, rec)
    actions = raw.get("actions", [])
    if not isinstance(actions, list):
        raise ctx.err("actions", "must be a list")
    rec.actions = [_parse_action(ctx, a, i, players, format_version) for i, a in enumerate(actions)]
    return rec


def _players(ctx: RecordContext, raw: dict[str, Any]) -> list[str]:
    """``players``: two or more distinct, valid names."""
    players = raw.get("players")
    if not isinstance(players, list) or not players or not all(isinstance(p, str) and p for p in players):
        raise ctx.err("players", "must be a non-empty list of player names")
    for i, p in enumerate(players):
        ctx.name(p, f"players[{i}]", "player name")
    if len(set(players)) != len(players):
        raise ctx.err("players", "a player is listed twice")
    if len(players) < 2:
        raise ctx.err("players", "a hand needs at least two players")
    return players


def _ruleset(ctx: RecordContext, raw: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """``ruleset``: the variant names and the options (checked against the variants later,
    when the record is set up under its ruleset)."""
    ruleset = raw.get("ruleset", {})
    if not isinstance(ruleset, dict):
        raise ctx.err("ruleset", "must be an object with variants and options")
    variants = ruleset.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise ctx.err("ruleset.variants", "must be a list of variant names")
    options = ruleset.get("options", {})
    if not isinstance(options, dict):
        raise ctx.err("ruleset.options", "must be an object")
    return variants, options


def _read_position(ctx: RecordContext, setup: dict[str, Any], rec: HandRecord) -> None:
    """An explicit setup: each player's hand, the stock, the discard pile, the spreads on
    the table and the player to act, every card once."""
    players = rec.players
    hands = setup.get("hands")
    if not isinstance(hands, dict):
        raise ctx.err("setup.hands", "must map each player to a list of cards")
    for p in hands:
        if p not in players:
            raise ctx.err(f"setup.hands.{p}", "is not one of the players")
    rec.hands = {p: ctx.cards(hands.get(p, []), f"setup.hands.{p}") for p in players}
    rec.stock = ctx.cards(setup.get("stock", []), "setup.stock")
    rec.discard = ctx.cards(setup.get("discard", []), "setup.discard")
    read_table_and_turn(ctx, setup, rec)
    everything = [c for p in players for c in rec.hands[p]] + rec.stock + rec.discard + [c for s in rec.table for c in s.cards]
    _no_duplicates(ctx, everything, "setup")


def read_table_and_turn(ctx: RecordContext, setup: dict[str, Any], rec: HandRecord) -> None:
    """An explicit setup's spreads on the table and the player to act, into ``rec`` (format
    versions 1 and 2 alike)."""
    table = setup.get("table", [])
    if not isinstance(table, list):
        raise ctx.err("setup.table", "must be a list of spreads")
    seen_ids: set[str] = set()
    for i, s in enumerate(table):
        rec.table.append(_table_spread(ctx, s, f"setup.table[{i}]", rec.players, seen_ids))
    to_act = setup.get("to_act")
    if to_act not in rec.players:
        raise ctx.err("setup.to_act", f"{to_act!r} is not one of the players")
    rec.to_act = to_act


def _table_spread(ctx: RecordContext, s: Any, where: str, players: list[str], seen_ids: set[str]) -> TableSpread:
    """One spread of an explicit table: its id (not one of ``seen_ids``, to which it is
    added), owner, cards and wild cards' stand-ins."""
    if not isinstance(s, dict):
        raise ctx.err(where, "must be an object with id, owner and cards")
    sid, owner = s.get("id"), s.get("owner")
    if not isinstance(sid, str) or not sid:
        raise ctx.err(f"{where}.id", "missing")
    ctx.name(sid, f"{where}.id", "spread id")
    if sid in seen_ids:
        raise ctx.err(f"{where}.id", f"spread id {sid!r} is used twice")
    seen_ids.add(sid)
    if not isinstance(owner, str) or owner not in players:
        raise ctx.err(f"{where}.owner", f"{owner!r} is not one of the players")
    ja = s.get("jokers_as", {}) or {}
    if not isinstance(ja, dict):
        raise ctx.err(f"{where}.jokers_as", "must map jokers to cards")
    return TableSpread(
        sid,
        owner,
        ctx.cards(s.get("cards"), f"{where}.cards"),
        {ctx.card(k, f"{where}.jokers_as"): ctx.card(v, f"{where}.jokers_as.{k}") for k, v in ja.items()},
    )


def _no_duplicates(ctx: RecordContext, cards: list[str], where: str) -> None:
    seen: set[str] = set()
    for c in cards:
        if c in seen:
            raise ctx.err(where, f"card {c} appears more than once")
        seen.add(c)


_NAMED_DRAWS = ("draw_stock", "draw_discard")


def _parse_action(ctx: RecordContext, a: Any, i: int, players: list[str], format_version: int = 1) -> RecordedAction:
    where = f"actions[{i}]"
    if not isinstance(a, dict):
        raise ctx.err(where, "must be an object with seq, player and action")
    seq = a.get("seq", i + 1)
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise ctx.err(f"{where}.seq", f"must be a whole number, not {json_shown(seq)}")
    if seq != i + 1:
        raise ctx.err(f"{where}.seq", f"is {seq}; actions are numbered 1, 2, 3, ... in order, so this one is {i + 1}")
    action = a.get("action")
    if action not in ACTIONS:
        raise ctx.err(f"{where}.action", f"unknown action {action!r} (one of {', '.join(ACTIONS)})")
    player = a.get("player")
    if player not in players:
        raise ctx.err(f"{where}.player", f"{player!r} is not one of the players")
    allowed = action_fields(action) | ({"card"} if format_version == 2 and action in _NAMED_DRAWS else set())
    extra = set(a) - _COMMON_FIELDS - allowed
    if extra:
        raise ctx.err(where, f"unknown field(s) {', '.join(sorted(extra))} for action {action}")
    fields: dict[str, Any] = {}
    if action == "spread":
        if "cards" not in a:
            raise ctx.err(f"{where}.cards", "missing (the cards of the spread)")
        fields["cards"] = ctx.cards(a["cards"], f"{where}.cards")
        ja = a.get("jokers_as") or {}
        if not isinstance(ja, dict):
            raise ctx.err(f"{where}.jokers_as", "must map jokers to cards")
        fields["jokers_as"] = {ctx.card(k, f"{where}.jokers_as"): ctx.card(v, f"{where}.jokers_as.{k}") for k, v in ja.items()}
    elif action == "hit":
        if "card" not in a:
            raise ctx.err(f"{where}.card", "missing")
        if not isinstance(a.get("target"), str):
            raise ctx.err(f"{where}.target", "missing (the id of the spread hit)")
        ctx.name(a["target"], f"{where}.target", "spread id")
        fields["card"] = ctx.card(a["card"], f"{where}.card")
        fields["target"] = a["target"]
        if a.get("joker_as") is not None:
            fields["joker_as"] = ctx.card(a["joker_as"], f"{where}.joker_as")
    elif action == "discard":
        if "card" not in a:
            raise ctx.err(f"{where}.card", "missing")
        fields["card"] = ctx.card(a["card"], f"{where}.card")
    elif action in _NAMED_DRAWS and "card" in a:  # format_version 2: the card drawn, named
        fields["card"] = ctx.card(a["card"], f"{where}.card")
    expect = a.get("expect")
    if expect is not None and not isinstance(expect, dict):
        raise ctx.err(f"{where}.expect", "must be an object")
    open_ok = format_version == 2 and expect is not None and expect.get("legal") == "open"
    if expect is not None and "legal" in expect and not isinstance(expect["legal"], bool) and not open_ok:
        allowed_legal = "true, false or 'open'" if format_version == 2 else "true or false"
        raise ctx.err(f"{where}.expect.legal", f"must be {allowed_legal}, not {json_shown(expect['legal'])}")
    return RecordedAction(seq, player, action, fields, expect)
