"""Adjudicating under partial knowledge (cases/README.md, "Partial knowledge",
``format_version`` 2): every way the unseen cards could lie, played through the engine.

The deck must be accounted for exactly (:func:`check_accounting`).  Each distinct world
(:mod:`tonk.core.partial_worlds`) is set up as a whole position and its actions are
played through :class:`~tonk.core.game.Game`, as for a version 1 record; a world that
contradicts the record (a card an action takes out of a player's unknown cards lies
elsewhere in it, a named draw finds another unseen card) is left out.  A verdict is
**settled** when every remaining world gives it, else **open**: ``legal: "open"``,
hand totals as ``{min, max}``, and ``open``/``outcomes``/``decided_by`` for the ending
and the ledger.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from .errors import HandRecordError, IllegalAction
from .events import CardDrawn, EmptyStockCalled, SpreadLaid
from .game import parse_command
from .handrecord import HandRecord
from .partial_worlds import PATH_BLIND_EXCEPT, VALUE_BLIND, Place, classes_of, worlds
from .rule_statements import settling_rules
from .ruleset import Ruleset
from .settlement import net_of

_TAKES_FROM_HAND = ("spread", "hit", "discard")
_DRAWS = ("draw_stock", "draw_discard")
UNKNOWN_TOP = {"unknown": 1}


def named_cards(fields: dict[str, Any]) -> list[str]:
    """The cards an action names (a spread's cards, a hit's, discard's or named draw's card)."""
    return list(fields.get("cards", [])) + ([fields["card"]] if "card" in fields else [])


def _err(rec: HandRecord, where: str, what: str) -> HandRecordError:
    return HandRecordError(f"case {rec.id}: {where}: {what}")


def check_accounting(rec: HandRecord, ruleset: Ruleset) -> list[str]:
    """The unseen cards (of the deck, named nowhere in the setup), in deck order, once the
    record is checked: every named card of the deck, the unknown counts adding up to the
    unseen cards, a named draw naming an unseen card."""
    deck = ruleset.deck
    deck_set = set(deck)
    places = [(f"setup.hands.{p}", rec.hands[p]) for p in rec.players] + [("setup.stock", rec.stock), ("setup.discard", rec.discard)]
    places += [(f"setup.table[{i}]", s.cards) for i, s in enumerate(rec.table)]
    named: set[str] = set()
    for where, cards in places:
        for c in cards:
            if c not in deck_set:
                raise _err(rec, where, f"{c} is not a card of this ruleset's deck")
            named.add(c)
    unseen = [c for c in deck if c not in named]
    counts = sum(rec.hand_unknown.values()) + rec.stock_unknown + rec.discard_unknown
    if counts != len(unseen):
        accounted = len(named) + counts
        raise _err(
            rec,
            "setup",
            f"the unknown counts add up to {counts} but {len(unseen)} cards of the deck are named nowhere: "
            f"the record accounts for {accounted} of {len(deck)} cards",
        )
    unseen_set = set(unseen)
    thrown: list[str] = []  # the cards discarded so far: each was the known top once
    for i, a in enumerate(rec.actions):
        for c in named_cards(a.fields):
            if c not in deck_set:
                raise _err(rec, f"actions[{i}]", f"{c} is not a card of this ruleset's deck")
        card = a.fields.get("card")
        if a.action in _DRAWS and card is not None and card not in unseen_set:
            # a known card may be named only where it may be the one drawn: a card of the known
            # stock, or the known discard top (the setup's or one discarded since); that it is
            # the very card drawn is checked in play (a known top that differs: malformed)
            pile = rec.stock if a.action == "draw_stock" else [*rec.discard[:1], *thrown]
            if card not in pile:
                raise _err(rec, f"actions[{i}].card", f"{card} is not an unseen card (the setup names it)")
        if a.action == "discard" and card is not None:
            thrown.append(card)
    return unseen


@dataclass
class World:
    """One world's verdict: per action, the ending and what is left on the table."""

    actions: list[dict[str, Any]]
    end: dict[str, Any] | None
    ledger: list[dict[str, Any]]
    net: dict[str, int]
    hands: dict[str, tuple[tuple[str, ...], int]]  # shown cards (sorted), unknown count
    totals: dict[str, int]
    table: list[dict[str, Any]]
    piles: dict[str, Any]
    drawn_by: dict[str, tuple[int, str]]  # each card drawn: the action's index and the drawer
    placed: dict[str, str]  # each card the record takes out of a player's unknown cards: the player


class _Contradiction(Exception):
    """This world does not agree with the record: ``card`` should be where one of
    ``instead`` is (a card in the namer's unknown cards, or the card a named draw found)."""

    def __init__(self, card: str, instead: list[str]):
        super().__init__(card)
        self.card = card
        self.instead = instead


def _play_world(rec: HandRecord, ruleset: Ruleset, position: HandRecord, unseen: set[str]) -> World:
    from .adjudication import end_json, final_position, setup_game, spread_json

    game = setup_game(position, ruleset)
    st = game.state
    revealed: set[str] = set()
    results = []
    drawn_by: dict[str, tuple[int, str]] = {}
    placed: dict[str, str] = {}
    for i, a in enumerate(rec.actions):
        names = named_cards(a.fields)
        if a.action in _TAKES_FROM_HAND:
            hand = st.hands.get(a.player, [])
            hidden = [c for c in hand if c in unseen and c not in revealed]
            shown = [c for c in hand if c not in hidden]
            wanted = [c for c in names if c not in shown]
            if wanted and all(c in unseen and c not in revealed for c in wanted) and len(hidden) >= len(wanted):
                missing = [c for c in wanted if c not in hidden]
                if missing:  # the record says they came out of this player's unknown cards
                    raise _Contradiction(missing[0], [c for c in hidden if c not in wanted])
                placed.update((c, a.player) for c in wanted)
        top = st.discard_top
        if a.action == "draw_discard" and "card" in a.fields and top is not None and top != a.fields["card"]:
            if top not in unseen or top in revealed:  # refused or not, the players saw another top
                raise _err(rec, f"actions[{i}].card", f"names {a.fields['card']}, but the discard top is the known {top}")
        known_before = revealed.copy()
        revealed.update(names)
        r: dict[str, Any] = {"legal": True, "violation": None, "rule": None, "message": None, "drawn": None, "spread_id": None, "effect": None}
        try:
            events = game.play(parse_command(a.action, a.player, a.fields))
        except IllegalAction as exc:
            r.update(legal=False, violation=str(exc.code), rule=exc.rule, message=exc.message)  # the code as text (a Violation is a StrEnum)
            if exc.code == "CARD_NOT_IN_HAND":  # known only when refused "for another reason": nobody saw these
                revealed = known_before
        else:
            for e in events:
                if isinstance(e, CardDrawn):
                    if "card" in a.fields and e.card != a.fields["card"]:
                        if e.card not in unseen or e.card in known_before:
                            raise _err(rec, f"actions[{i}].card", f"names {a.fields['card']}, but the card drawn is the known {e.card}")
                        raise _Contradiction(a.fields["card"], [e.card])
                    # the card's first draw took it from its unseen place; a later one is of a card discarded since
                    drawn_by.setdefault(e.card, (i, a.player))
                    r["drawn"] = e.card if (e.card not in unseen or e.card in revealed) else None
                elif isinstance(e, SpreadLaid):
                    r["spread_id"] = e.spread_id
                elif isinstance(e, EmptyStockCalled):
                    r["effect"] = "ends_hand_stock_exhausted"
        results.append(r)
    ending = st.last_ending
    final, totals, ledger = final_position(st, ruleset, rec.players)
    hands = {}
    for p in rec.players:
        hidden = [c for c in final[p] if c in unseen and c not in revealed]
        hands[p] = (tuple(sorted(c for c in final[p] if c not in hidden)), len(hidden))
    top = st.discard_top
    return World(
        actions=results,
        end=end_json(ending),
        ledger=[{"from": p.from_, "to": p.to, "amount": p.amount, "reason": p.reason} for p in ledger],
        net=net_of(rec.players, ledger),
        hands=hands,
        totals=totals,
        table=[spread_json(s) for s in st.table.values()],
        piles={"stock_size": len(st.stock), "discard_top": UNKNOWN_TOP if top in unseen and top not in revealed else top},
        drawn_by=drawn_by,
        placed=placed,
    )


#: the hand-reading variants (not :data:`VALUE_BLIND`): the actions at which each reads which
#: cards the actor's hand holds (``mandatory-laydown``'s knock only with ``enforce_at_knock``)
_READ_AT = {"mandatory-laydown": ("discard",), "discard-pick-must-meld": ("draw_discard",)}


def _blind_players(rec: HandRecord, ruleset: Ruleset) -> set[str]:
    """The players whose hands no rule of the record reads card by card: under the
    hand-reading variants, those who never take an action at which one reads the
    actor's hand (their unknown cards count by points, as under the value-blind
    variants).  Under a variant of unknown semantics (a plugin), nobody."""
    if not all(v in VALUE_BLIND or v in _READ_AT for v in ruleset.variants):
        return set()
    reading = {a for v in ruleset.variants for a in _READ_AT.get(v, ())}
    if reading and ruleset.options.get("enforce_at_knock"):
        reading.add("knock")
    return {p for p in rec.players if not any(a.player == p and a.action in reading for a in rec.actions)}


def _places(rec: HandRecord, blind: frozenset[str] | set[str] = frozenset()) -> list[Place]:
    draws_stock = sum(a.action == "draw_stock" for a in rec.actions)
    draws_discard = sum(a.action == "draw_discard" for a in rec.actions)
    places = [Place(f"hand {p}", rec.hand_unknown[p], blind=p in blind) for p in rec.players if rec.hand_unknown[p]]
    places += [Place(f"stock {k + 1}", 1) for k in range(min(rec.stock_unknown, draws_stock))]
    places += [Place(f"discard {k + 1}", 1) for k in range(min(rec.discard_unknown, draws_discard))]
    return places


def _position(rec: HandRecord, places: list[Place], cards: list[list[str]], unseen: list[str], named: dict[str, int]) -> HandRecord:
    """The whole position of one world: each place's cards, the rest in the other unknown
    places.  A merged place's cards go to its parts in the order they come into the hand,
    the cards actions name first, the one named soonest first (``named``: card -> index
    of the first action naming it), so each is in the hand as early as the record needs."""
    given: dict[str, list[str]] = {}
    for pl, cs in zip(places, cards):
        ordered = sorted(cs, key=lambda c: (c not in named, named.get(c, 0)))
        for part, size in pl.pieces():
            given[part], ordered = ordered[:size], ordered[size:]
    used = {c for cs in cards for c in cs}
    rest = iter([c for c in unseen if c not in used])
    hands = {p: rec.hands[p] + given.get(f"hand {p}", []) for p in rec.players}
    stock_slots = [c for k in range(rec.stock_unknown) for c in given.get(f"stock {k + 1}", [])]
    stock = rec.stock + stock_slots + [next(rest) for _ in range(rec.stock_unknown - len(stock_slots))]
    discard_slots = [c for k in range(rec.discard_unknown) for c in given.get(f"discard {k + 1}", [])]
    discard = rec.discard + discard_slots + [next(rest) for _ in range(rec.discard_unknown - len(discard_slots))]
    return replace(rec, hands=hands, stock=stock, discard=discard, format_version=1, hand_unknown={}, stock_unknown=0, discard_unknown=0)


def _merged(rec: HandRecord, places: list[Place], probe: World, given: list[list[str]]) -> list[Place]:
    """When the course of the record does not depend on the unseen cards' points: each
    player's unknown cards and the positions that player's unnamed draws take, as one
    place (only its total matters); a position no draw reaches is no place at all.  A
    position a named draw takes stays a place of its own."""
    slot_of = {cs[0]: pl for pl, cs in zip(places, given) if not pl.name.startswith("hand ")}
    hand_of = {pl.name: pl for pl in places if pl.name.startswith("hand ")}
    draws: dict[str, list[tuple[int, Place]]] = {p: [] for p in rec.players}
    kept: list[Place] = []
    for card, (i, player) in probe.drawn_by.items():
        slot = slot_of.get(card)
        if slot is None:
            continue
        if "card" in rec.actions[i].fields:
            kept.append(Place(slot.name, 1, fixed=(card,)))
        else:
            draws[player].append((i, slot))
    for p in rec.players:
        parts = [hand_of[f"hand {p}"]] if f"hand {p}" in hand_of else []
        parts += [slot for _, slot in sorted(draws[p], key=lambda d: d[0])]
        if parts:
            pieces = tuple(piece for pl in parts for piece in pl.pieces())
            # a card the record takes out of p's unknown cards is in p's hand or unnamed draws in every world
            fixed = tuple(c for c, owner in probe.placed.items() if owner == p)
            kept.append(Place(f"hand {p}", sum(size for _, size in pieces), pieces, fixed))
    return kept


def all_worlds(rec: HandRecord, ruleset: Ruleset) -> list[World]:
    """The verdict of every distinct world that agrees with the record."""
    unseen = check_accounting(rec, ruleset)
    named: dict[str, int] = {}
    for i, a in enumerate(rec.actions):
        for c in named_cards(a.fields):
            named.setdefault(c, i)
    by_value = all(v in VALUE_BLIND for v in ruleset.variants)  # the variants' names, not the aliases a record may use
    places = _places(rec, set() if by_value else _blind_players(rec, ruleset))
    if by_value and not PATH_BLIND_EXCEPT & set(ruleset.variants):
        # the course of play is the same in every world that agrees with the record: learn
        # it from one (only where the named cards lie can matter), then merge the places
        probed = _probe(rec, ruleset, places, unseen, named)
        if probed is not None:
            places = _merged(rec, places, *probed)
    out = []
    fixed = {c for pl in places for c in pl.fixed}
    free = [c for c in unseen if c not in fixed]
    try:
        for given in worlds(places, classes_of(free, ruleset.points, set(named), by_value), ruleset.points, frozenset(named)):
            found = _try_world(rec, ruleset, places, given, unseen, named)
            if found is not None:
                out.append(found)
    except HandRecordError as exc:
        raise _err(rec, "setup", str(exc)) from None
    if not out:
        raise _err(rec, "actions", "no way the unseen cards could lie agrees with the record (a card is named where it cannot be)")
    return out


def _probe(
    rec: HandRecord, ruleset: Ruleset, places: list[Place], unseen: list[str], named: dict[str, int]
) -> tuple[World, list[list[str]]] | None:
    """One world that agrees with the record, and its places' cards: the places filled
    with cards no action names, then repaired where the record contradicts it (the card
    it names swapped in for one of the namer's unknown cards, or for the card a named
    draw found); ``None`` if the repairs do not settle."""
    pool = iter(sorted(unseen, key=lambda c: c in named))
    given = [[next(pool) for _ in range(pl.size)] for pl in places]
    for _ in range(4 * len(rec.actions) + 4):
        try:
            return _play_world(rec, ruleset, _position(rec, places, given, unseen, named), set(unseen)), given
        except _Contradiction as wrong:
            if not wrong.instead:
                return None
            out = min(wrong.instead, key=lambda c: (c in named, -named.get(c, 0)))  # one no action names, else the latest named
            _swap(given, wrong.card, out)
    return None


def _swap(given: list[list[str]], card: str, out: str) -> None:
    """Put ``card`` where ``out`` is, and ``out`` where ``card`` was (if in a place)."""
    where = {c: (i, j) for i, cs in enumerate(given) for j, c in enumerate(cs)}
    if out not in where:
        return
    i, j = where[out]
    given[i][j] = card
    if card in where:
        k, m = where[card]
        given[k][m] = out


def _try_world(
    rec: HandRecord, ruleset: Ruleset, places: list[Place], given: list[list[str]], unseen: list[str], named: dict[str, int]
) -> World | None:
    """One world's verdict, or ``None`` when it contradicts the record."""
    try:
        return _play_world(rec, ruleset, _position(rec, places, given, unseen, named), set(unseen))
    except _Contradiction:
        return None


# --- the verdict over all worlds ---------------------------------------------------------


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _settle(values: list[Any]) -> Any:
    """The value when every world gives it, else ``{"open": [each distinct value]}``."""
    distinct: dict[str, Any] = {}
    for v in values:
        distinct.setdefault(_key(v), v)
    return values[0] if len(distinct) == 1 else {"open": list(distinct.values())}


def _action_verdict(a: Any, results: list[dict[str, Any]]) -> dict[str, Any]:
    legal = {r["legal"] for r in results}
    refused = [r for r in results if not r["legal"]]
    allowed = [r for r in results if r["legal"]]
    out: dict[str, Any] = {"seq": a.seq, "player": a.player, "action": a.action}
    out["legal"] = legal.pop() if len(legal) == 1 else "open"
    for k in ("violation", "rule", "message"):
        # refused for different reasons in different worlds: {"open": [each reason]}
        reasons: list[Any] = []
        for r in refused:
            if r[k] not in reasons:
                reasons.append(r[k])
        out[k] = None if not reasons else reasons[0] if len(reasons) == 1 else {"open": reasons}
    for k in ("drawn", "spread_id", "effect"):
        seen = {_key(r[k]) for r in allowed}
        out[k] = allowed[0][k] if allowed and len(seen) == 1 else None
    return out


def _hand_json(shown: tuple[str, ...], unknown: int) -> Any:
    """In the setup's notation: a list, ``{"unknown": N}`` or ``{"cards": [...], "unknown": N}``."""
    if unknown == 0:
        return list(shown)
    return {"cards": list(shown), "unknown": unknown} if shown else {"unknown": unknown}


def _outcome(w: World) -> dict[str, Any]:
    return {"end": w.end, "ledger": w.ledger, "net": w.net}


def _outcome_rules(w: World, ruleset: Ruleset) -> dict[str, Any]:
    """The rules that settle a world's ending and payments, as a format-1 verdict carries them."""
    end_rule, payment_rules = settling_rules(ruleset, w.end, w.ledger, w.totals)
    return {"end_rule": end_rule, "payment_rules": payment_rules}


def _outcome_key(w: World) -> str:
    """The same for two worlds with the same ending, net and ledger (as a multiset)."""
    return _key({"end": w.end, "ledger": sorted(w.ledger, key=_key), "net": w.net})


def _describe(o: dict[str, Any]) -> str:
    end = o["end"]
    if end is None:
        what = "the hand goes on"
    else:
        who = end.get("player") or ", ".join(end.get("players", []))
        what = f"{end['type'].replace('_', ' ')} by {who}" + (f", {end['outcome'].replace('_', ' ')}" if end.get("outcome") else "")
    return what + " (net " + ", ".join(f"{p} {n:+d}" for p, n in o["net"].items()) + ")"


def _span(values: list[int]) -> str:
    lo, hi = min(values), max(values)
    return f"{lo}" if lo == hi else f"{lo} to {hi}"


def decided_by(rec: HandRecord, found: list[World], outcomes: dict[str, dict[str, Any]], open_actions: list[int]) -> str:
    """In words, what decides between the open outcomes: per outcome, the open actions'
    legality and the totals of the players holding unknown cards in the worlds giving it."""
    hidden_players = [p for p in rec.players if any(w.hands[p][1] for w in found)]
    parts = []
    for key, o in outcomes.items():
        mine = [w for w in found if _outcome_key(w) == key]
        conds = []
        for i in open_actions:
            verdicts = {w.actions[i]["legal"] for w in mine}
            if len(verdicts) == 1:
                conds.append(f"seq {rec.actions[i].seq} {'legal' if verdicts.pop() else 'illegal'}")
        conds += [f"{p}'s total {_span([w.totals[p] for w in mine])}" for p in hidden_players]
        parts.append(f"{' and '.join(conds) or 'otherwise'}: {_describe(o)}")
    return "; ".join(parts)


def run_partial(rec: HandRecord, ruleset: Ruleset) -> dict[str, Any]:
    """The verdict of a partial-knowledge record (``status`` ``ok``), settled or open."""
    found = all_worlds(rec, ruleset)
    out: dict[str, Any] = {"id": rec.id, "status": "ok", "title": rec.title, "format_version": 2}
    out["actions"] = [_action_verdict(a, [w.actions[i] for w in found]) for i, a in enumerate(rec.actions)]
    outcomes: dict[str, dict[str, Any]] = {}
    rules: dict[str, dict[str, Any]] = {}  # the same keys: each outcome's end_rule and payment_rules
    for w in found:
        key = _outcome_key(w)
        if key not in outcomes:
            outcomes[key] = _outcome(w)
            rules[key] = _outcome_rules(w, ruleset)
    if len(outcomes) == 1:
        only = next(iter(outcomes.values()))
        out["end"] = only["end"]
    hands: dict[str, Any] = {}
    totals: dict[str, Any] = {}
    for p in rec.players:
        hands[p] = _settle([_hand_json(*w.hands[p]) for w in found])
        values = [w.totals[p] for w in found]
        if all(w.hands[p][1] == 0 for w in found) and len(set(values)) == 1:
            totals[p] = values[0]
        else:
            totals[p] = {"min": min(values), "max": max(values)}
    out["final_hands"] = hands
    out["final_table"] = _settle([w.table for w in found])
    out["final_piles"] = {k: _settle([w.piles[k] for w in found]) for k in ("stock_size", "discard_top")}
    out["hand_totals"] = totals
    if len(outcomes) == 1:
        (settled,) = rules.values()
        out["end_rule"] = settled["end_rule"]
        out["ledger"] = only["ledger"]
        out["payment_rules"] = settled["payment_rules"]
        out["net"] = only["net"]
        out["open"] = False
    else:
        open_actions = [i for i, a in enumerate(out["actions"]) if a["legal"] == "open"]
        out["open"] = True
        out["outcomes"] = list(outcomes.values())
        out["outcome_rules"] = list(rules.values())  # outcome_rules[i] settles outcomes[i]
        out["decided_by"] = decided_by(rec, found, outcomes, open_actions)
    out["next_dealer"] = rec.players[(rec.players.index(rec.dealer) + 1) % len(rec.players)]
    out["worlds"] = len(found)
    return out
