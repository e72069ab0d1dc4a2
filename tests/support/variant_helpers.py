"""Helpers for the variant tests: hand records (the case format of cases/README.md) built as
dicts, and the adjudication path ``tonk adjudicate --check`` takes (adjudicate + compare).
tests/support is on the path through pyproject's ``pythonpath``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tonk.application.adjudicate import adjudicate, compare
from tonk.core.cards import RANKS, SUITS

ROOT = Path(__file__).resolve().parents[2]
STANDARD = [r + s for s in SUITS for r in RANKS]
WITH_JOKERS = STANDARD + ["X1", "X2"]
#: the variants of the catalogue (rules.md C), each installed under this name
CATALOGUE = [
    "no-initial-discard",
    "mandatory-laydown",
    "double-requires-new-spread",
    "more-players",
    "deal-size-by-player-count",
    "cards-per-player",
    "face-cards-11-12-13",
    "jokers-wild",
    "deuces-wild",
    "forty-card-deck",
    "initial-tonk-50-only",
    "initial-tonk-totals",
    "low-initial-tonk",
    "no-initial-tonk",
    "multiple-initial-tonks-all-paid",
    "knock-before-discard",
    "knock-limit",
    "hit-penalty",
    "one-hit-per-turn",
    "discard-pick-must-meld",
    "hit-runs-only",
    "no-rediscard-of-pick",
    "stock-end-immediate",
    "caught-scheme",
    "stock-tie",
]


def public_cases_path() -> Path:
    """The shared public cases beside the project, or the copy in examples/."""
    shared = ROOT.parent / "shared" / "cases" / "public.json"
    return shared if shared.is_file() else ROOT / "examples" / "public-cases.json"


def _cards(text: str | list[str]) -> list[str]:
    return text.split() if isinstance(text, str) else list(text)


def position(
    hands: dict[str, str],
    *,
    stock: str = "",
    discard: str = "KH",
    table: tuple = (),
    to_act: str = "P1",
    deck: list[str] = STANDARD,
    rest: str = "stock",
) -> dict[str, Any]:
    """An explicit setup: ``stock`` and ``discard`` list their top cards first; every card
    not placed goes to the bottom of the stock (or of the discard pile, ``rest="discard"``),
    so each card of ``deck`` is there once.  ``table`` holds ``(id, owner, cards)`` or
    ``(id, owner, cards, jokers_as)``."""
    hands_l = {p: _cards(h) for p, h in hands.items()}
    spreads = []
    for t in table:
        s = {"id": t[0], "owner": t[1], "cards": _cards(t[2])}
        if len(t) > 3:
            s["jokers_as"] = t[3]
        spreads.append(s)
    top = _cards(stock)
    disc = _cards(discard)
    used = [c for h in hands_l.values() for c in h] + top + disc + [c for s in spreads for c in s["cards"]]
    assert len(used) == len(set(used)), "a card is placed twice"
    left = [c for c in deck if c not in set(used)]
    if rest == "discard":
        disc, left = disc + left, []
    return {"mode": "explicit", "hands": hands_l, "stock": top + left, "discard": disc, "table": spreads, "to_act": to_act}


def dealt(hands: dict[str, str], *, dealer: str, players: list[str], after: str = "", deck: list[str] = STANDARD) -> dict[str, Any]:
    """A deck-mode setup: the deck that deals ``hands`` (one card at a time from the dealer's
    left), then the cards of ``after`` (upcard, stock top, ...), then the rest."""
    hands_l = {p: _cards(h) for p, h in hands.items()}
    d = players.index(dealer)
    order = [players[(d + 1 + i) % len(players)] for i in range(len(players))]
    size = len(hands_l[order[0]])
    top = [hands_l[p][i] for i in range(size) for p in order] + _cards(after)
    assert len(top) == len(set(top)), "a card is placed twice"
    return {"mode": "deck", "deck": top + [c for c in deck if c not in set(top)]}


def act(player: str, action: str, *, code: str | None = None, rule: str | None = None, **fields: Any) -> dict[str, Any]:
    """One recorded action; with ``code`` it must be illegal with that code and rule."""
    a: dict[str, Any] = {"player": player, "action": action}
    for k, v in fields.items():
        a[k] = _cards(v) if k == "cards" else v
    if code is None:
        expect: dict[str, Any] = {"legal": True}
        for k in ("drawn", "spread_id", "effect"):
            if k in fields:
                expect[k] = a.pop(k)
    else:
        expect = {"legal": False, "violation": code, "rule": rule}
    a["expect"] = expect
    return a


def record(
    variants: list[str],
    setup: dict[str, Any],
    actions: list[dict[str, Any]] = (),
    *,
    options: dict[str, Any] | None = None,
    players: list[str] | None = None,
    dealer: str | None = None,
    expected: dict[str, Any] | None = None,
    id: str = "V",
) -> dict[str, Any]:
    """A hand record in the format of cases/README.md."""
    if players is None:
        players = list(setup["hands"]) if setup["mode"] == "explicit" else ["P1", "P2", "P3"]
    actions = [dict(a, seq=i + 1) for i, a in enumerate(actions)]
    return {
        "id": id,
        "title": f"{', '.join(variants) or 'base game'} test",
        "ruleset": {"variants": list(variants), "options": dict(options or {})},
        "players": players,
        "dealer": dealer or players[-1],
        "setup": setup,
        "actions": actions,
        "expected": expected or {},
    }


def judge(case: dict[str, Any], registry=None) -> dict[str, Any]:
    """Adjudicate a record as ``tonk adjudicate --check`` does; fail on any difference."""
    verdict = adjudicate(case, registry=registry)
    assert verdict["status"] == "ok", verdict
    diffs = compare(verdict, case)
    assert not diffs, "\n".join(diffs)
    return verdict


def ledger(*lines: str) -> list[dict[str, Any]]:
    """``ledger("P2>P1 2 tonk_out", ...)`` as payment dicts."""
    out = []
    for line in lines:
        pay, amount, reason = line.split()
        src, dst = pay.split(">")
        out.append({"from": src, "to": dst, "amount": int(amount), "reason": reason})
    return out


#: a user's house rule (a ``--variant-file``) that can leave a player no legal action: one
#: holding only aces after the draw may not discard any of them
NO_ACE_DISCARD = '''"""A user's house rule: an ace is never discarded."""
from tonk.core.commands import Discard
from tonk.variants import VariantInfo, hookimpl

VARIANT = VariantInfo(name="no-ace-discard", summary="An ace is never discarded.", doc=__doc__)


@hookimpl
def tonk_veto(state, command, ruleset):
    if type(command) is Discard and command.card[0] == "A":
        return VARIANT.illegal("ACE_KEPT", "an ace is never discarded")
    return None
'''


def no_ace_discard_ruleset(directory: Path):
    """The ruleset of :data:`NO_ACE_DISCARD`, its file written in ``directory``."""
    from tonk.variants import load_ruleset
    from tonk.variants.registry import default_registry

    f = directory / "no_ace_discard.py"
    f.write_text(NO_ACE_DISCARD)
    return load_ruleset(["no-ace-discard"], registry=default_registry().with_files([f]))
