"""Adjudicating a hand record: the same path as live play, and the verdict in the format's shapes.

``adjudicate(raw_case)`` sets up the position under the case's ruleset, plays
every recorded action through :class:`~tonk.core.game.Game` (illegal ones are
rejected with their code and rule and change nothing) and returns the
verdict: per-action results and the ``deal``, ``end``, ``final_hands``,
``final_table``, ``final_piles``, ``hand_totals``, ``ledger``, ``net`` and
``next_dealer`` blocks exactly as ``cases/README.md`` shapes ``expected``, with the
rules that settle the ending and the payments under the case's ruleset (``end_rule``,
``payment_rules``: :func:`tonk.core.rule_statements.settling_rules`).
``compare`` lists the differences between a verdict and ``expected``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from .errors import HandRecordError, IllegalAction, RulesetError, SetupError, UnknownVariant, VariantFault
from .events import CardDrawn, EmptyStockCalled, SpreadFacts, SpreadLaid
from .game import Game, parse_command
from .handrecord import HandRecord, case_id_of, parse_record
from .rule_statements import settling_rules
from .ruleset import Ruleset, RulesetLoader
from .settlement import net_of


def setup_game(rec: HandRecord, ruleset: Ruleset) -> Game:
    """The game at the start of the record's first action."""
    def err(where: str, what: str) -> HandRecordError:
        return HandRecordError(f"case {rec.id}: {where}: {what}")

    deck_cards = set(ruleset.deck)
    if rec.mode == "deck":
        try:
            game = Game.new(rec.players, ruleset=ruleset, dealer=rec.dealer, game_id=f"case-{rec.id}", seed=0)
        except SetupError as exc:
            raise err("players", str(exc)) from None
        deck = rec.deck or []
        unknown = [c for c in deck if c not in deck_cards]
        if unknown:
            raise err("setup.deck", f"{unknown[0]} is not a card of this ruleset's deck")
        if len(deck) != len(ruleset.deck):
            raise err("setup.deck", f"has {len(deck)} cards; this ruleset's deck has {len(ruleset.deck)}")
        try:
            game.deal(deck=deck)
        except SetupError as exc:
            raise err("setup.deck", str(exc)) from None
        return game
    # explicit position: no initial-tonk check (cases/README.md)
    everything = [c for h in rec.hands.values() for c in h] + rec.stock + rec.discard + [c for s in rec.table for c in s.cards]
    unknown = [c for c in everything if c not in deck_cards]
    if unknown:
        raise err("setup", f"{unknown[0]} is not a card of this ruleset's deck")
    if len(everything) != len(ruleset.deck):
        missing = sorted(deck_cards - set(everything))
        raise err("setup", f"holds {len(everything)} cards; this ruleset's deck has {len(ruleset.deck)} (missing: {' '.join(missing[:8])})")
    table = []
    for i, s in enumerate(rec.table):
        try:
            shape = ruleset.check_spread(list(s.cards), dict(s.jokers_as))
        except IllegalAction as exc:
            raise err(f"setup.table[{i}]", f"spread {s.id} is not valid: {exc.message}") from None
        table.append(SpreadFacts(s.id, s.owner, shape.kind, tuple(shape.cards), dict(shape.jokers_as)))
    try:
        return Game.from_position(
            rec.players,
            dealer=rec.dealer,
            hands=rec.hands,
            stock=rec.stock,
            discard=rec.discard,
            table=table,
            to_act=rec.to_act,
            ruleset=ruleset,
            game_id=f"case-{rec.id}",
        )
    except SetupError as exc:
        raise err("setup", str(exc)) from None


def spread_json(s) -> dict[str, Any]:
    d: dict[str, Any] = {"id": s.id, "owner": s.owner, "kind": s.kind, "cards": list(s.cards)}
    if s.jokers_as:
        d["jokers_as"] = dict(s.jokers_as)
    return d



def final_position(st: Any, ruleset: Any, players: Sequence[str]) -> tuple[dict[str, list[str]], dict[str, int], list[Any]]:
    """Each player's final hand, its total and the ledger: the hand's ending's when it has
    ended, else the hands as they are, counted by the ruleset, and no payment."""
    ending = st.last_ending
    if ending is not None:
        return {p: list(ending.hands[p]) for p in players}, dict(ending.totals), list(ending.ledger)
    hands = {p: list(st.hands[p]) for p in players}
    return hands, {p: ruleset.hand_total(hands[p]) for p in players}, []

def end_json(ending) -> dict[str, Any] | None:
    if ending is None:
        return None
    d: dict[str, Any] = {"type": ending.end}
    if ending.end == "initial_tonk_draw":
        d["players"] = list(ending.players)
    else:
        d["player"] = ending.player
    if ending.outcome is not None:
        d["outcome"] = ending.outcome
    return d


def run_record(rec: HandRecord, ruleset: Ruleset) -> dict[str, Any]:
    """Play a parsed record and return its verdict (``status`` ``ok``)."""
    game = setup_game(rec, ruleset)
    st = game.state
    out: dict[str, Any] = {"id": rec.id, "status": "ok", "title": rec.title}
    dealt = st.dealt
    if rec.mode == "deck" and dealt is not None:  # a deck record starts from its deal
        out["deal"] = {
            "hands": {p: list(dealt.hands[p]) for p in rec.players},
            "discard_top": dealt.discard[0] if dealt.discard else None,
            "stock_size": len(dealt.stock),
            "stock_top": dealt.stock[0] if dealt.stock else None,
        }
    results = []
    for a in rec.actions:
        r: dict[str, Any] = {
            "seq": a.seq,
            "player": a.player,
            "action": a.action,
            "legal": True,
            "violation": None,
            "rule": None,
            "message": None,
            "drawn": None,
            "spread_id": None,
            "effect": None,
        }
        try:
            events = game.play(parse_command(a.action, a.player, a.fields))
        except IllegalAction as exc:
            r.update(legal=False, violation=str(exc.code), rule=exc.rule, message=exc.message)  # the code as text (a Violation is a StrEnum)
        else:
            for e in events:
                if isinstance(e, CardDrawn):
                    r["drawn"] = e.card
                elif isinstance(e, SpreadLaid):
                    r["spread_id"] = e.spread_id
                elif isinstance(e, EmptyStockCalled):
                    r["effect"] = "ends_hand_stock_exhausted"
        results.append(r)
    out["actions"] = results
    ending = st.last_ending
    hands, totals, ledger = final_position(st, ruleset, rec.players)
    out["end"] = end_json(ending)
    out["final_hands"] = hands
    out["final_table"] = [spread_json(s) for s in st.table.values()]
    out["final_piles"] = {"stock_size": len(st.stock), "discard_top": st.discard_top}
    out["hand_totals"] = totals
    out["ledger"] = [{"from": p.from_, "to": p.to, "amount": p.amount, "reason": p.reason} for p in ledger]
    out["end_rule"], out["payment_rules"] = settling_rules(ruleset, out["end"], out["ledger"], totals)
    out["net"] = net_of(rec.players, ledger)
    out["next_dealer"] = st.left_of(rec.dealer)
    out["events"] = len(game.events)
    return out


def adjudicate(raw: Any, index: int = 0, *, load_ruleset: RulesetLoader, format_version: int = 1) -> dict[str, Any]:
    """The verdict for one raw case object: ``ok``, ``skipped`` (variant not installed) or
    ``error``; its ruleset is built by ``load_ruleset`` (:mod:`tonk.application.adjudicate`
    passes :func:`tonk.variants.load_ruleset`).  ``format_version`` is the file's (a case
    may carry its own): an explicit setup of version 2 is judged under partial knowledge
    (:mod:`tonk.core.partial`)."""
    cid = case_id_of(raw, index)
    try:
        rec = parse_record(raw, index, format_version)
    except HandRecordError as exc:
        return {"id": cid, "status": "error", "message": str(exc)}
    try:
        ruleset = load_ruleset(rec.variants, rec.options)
    except UnknownVariant as exc:
        return {"id": cid, "status": "skipped", "reason": f"variant {exc.name!r} is not installed"}
    except RulesetError as exc:
        return {"id": cid, "status": "error", "message": f"case {cid}: ruleset: {exc}"}
    try:
        if rec.format_version == 2 and rec.mode == "explicit":
            from .partial import run_partial

            return run_partial(rec, ruleset)
        for i, a in enumerate(rec.actions):
            if "card" in a.fields and a.action in ("draw_stock", "draw_discard"):
                raise HandRecordError(f"case {rec.id}: actions[{i}].card: a deck setup has no unseen card for a draw to name")
        return run_record(rec, ruleset)
    except HandRecordError as exc:
        return {"id": cid, "status": "error", "message": str(exc)}
    except VariantFault as exc:  # a house rule that fails on this case: the case cannot be judged, the others can
        return {"id": cid, "status": "error", "message": f"case {cid}: {exc}"}


# --- comparing with the expected verdict --------------------------------------------------


def _table_key(spreads: list[dict]) -> dict[str | None, tuple]:
    return {
        s.get("id"): (s.get("owner"), s.get("kind"), tuple(sorted(s.get("cards", []))), tuple(sorted((s.get("jokers_as") or {}).items())))
        for s in spreads
    }


def _ledger_key(ledger: list[dict]) -> Counter:
    return Counter((p.get("from"), p.get("to"), p.get("amount"), p.get("reason")) for p in ledger)


def _hand_key(hand: Any) -> Any:
    """A final hand, order aside: a list of cards, or (format 2) ``{"cards", "unknown"}``."""
    if isinstance(hand, list):
        return (tuple(sorted(map(str, hand))), 0)
    if isinstance(hand, dict) and set(hand) in ({"cards", "unknown"}, {"unknown"}) and isinstance(hand.get("cards", []), list):
        return (tuple(sorted(map(str, hand.get("cards", [])))), hand["unknown"])
    return repr(hand)


def _hands_key(hands: Any) -> Any:
    return {p: _hand_key(h) for p, h in hands.items()} if isinstance(hands, dict) else None


def _outcomes_key(outcomes: Any) -> Any:
    """Format 2's ``outcomes``, compared as a set, each ledger as a multiset."""
    if not isinstance(outcomes, list) or not all(isinstance(o, dict) for o in outcomes):
        return None
    return {repr((sorted(_ledger_key(o.get("ledger") or []).items()), o.get("end"), o.get("net"))) for o in outcomes}


NOT_COMPARED = frozenset({"decided_by"})
"""Keys of ``expected`` that are not compared: format 2's ``decided_by`` is a sentence."""


def expectations(raw_case: Any) -> int:
    """How many expectations :func:`compare` checks in a case: the keys of its ``expected``
    block and the fields of its actions' ``expect`` (0: the case has nothing to compare)."""
    if not isinstance(raw_case, dict):
        return 0
    expected = raw_case.get("expected")
    n = len(set(expected) - NOT_COMPARED) if isinstance(expected, dict) else 0
    actions = raw_case.get("actions")
    for a in actions if isinstance(actions, list) else []:
        exp = a.get("expect") if isinstance(a, dict) else None
        n += len(exp) if isinstance(exp, dict) else 0
    return n


def compare(verdict: dict[str, Any], raw_case: dict[str, Any]) -> list[str]:
    """Differences between a verdict and the case's ``expected`` block and per-action ``expect``."""
    diffs: list[str] = []
    if verdict.get("status") != "ok":
        return [f"status {verdict.get('status')}: {verdict.get('message') or verdict.get('reason')}"]
    for i, a in enumerate(raw_case.get("actions", [])):
        exp = a.get("expect")
        if not exp:
            continue
        got = verdict["actions"][i]
        for k, v in exp.items():
            if got.get(k) != v:
                diffs.append(f"actions[{i}] (seq {a.get('seq')}).{k}: expected {v!r}, got {got.get(k)!r}")
    expected = raw_case.get("expected") or {}
    for key, want in expected.items():
        if key in NOT_COMPARED:
            continue
        got = verdict.get(key)
        if key == "final_hands":
            same = isinstance(got, dict) and _hands_key(want) == _hands_key(got)
        elif key == "outcomes":
            same = _outcomes_key(want) is not None and _outcomes_key(want) == _outcomes_key(got)
        elif key == "final_table":
            same = isinstance(got, list) and _table_key(want) == _table_key(got)
        elif key == "ledger":
            same = isinstance(got, list) and _ledger_key(want) == _ledger_key(got)
        else:
            same = got == want
        if not same:
            diffs.append(f"{key}: expected {want!r}, got {got!r}")
    return diffs
