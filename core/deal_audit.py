"""Which guarantees a game's deals have, and the fair deal's decks recomputed (``tonk audit``).

* ``sha256`` deals (simulation, reproducible games): **committed**; not secret (whoever
  knows the game's seed knows every deck).
* ``sha256-salted`` deals (served tables): **secret and committed**: no seat learns a deck
  while its hand is in play, and nobody can change it during the hand.
* ``tonk-deal-v1`` deals (``core.fair_deal``) of an ended game whose revealed server seed
  matches the hash ``game_started`` committed to, and whose every deck recomputes from
  it, every seat's seed and the hand number: **secret and committed, and fair**: neither
  the operator nor any player chose a deck.  Before the game ends (the server seed not yet
  revealed) such a game is secret and committed; fair can be checked once it ends.

A game that ended without revealing its committed server seed (a ``tonk play`` session
resumed in another process, which never held the seed) is said to be not shown fair;
that is no finding of the record, whose every event may still be right.

:func:`check_deals` names every hand whose deck does not follow (one finding per hand), and
anything else wrong with the fair deal's record (the seed's hash, a nonce, the seats).  In a
game that committed to a server seed and revealed it, a hand recorded without the fair deal's
fields (an ordinary salted deal: a deck the server chose) is such a hand too.
"""

from __future__ import annotations

import hashlib
from typing import Iterable, Sequence

import msgspec

from .audit import Finding, scheme_of
from .commitment import PLAIN, SALTED
from .events import Event, GameEnded, GameStarted, HandDealt
from .fair_deal import SCHEME, fair_deck, is_server_seed, starting_deck

FAIR = "secret and committed, and fair"
SECRET = "secret and committed"
COMMITTED = "committed, not secret"


class DealGuarantees(msgspec.Struct):
    """What the deals of one game guarantee: ``guarantees`` in words (one of :data:`FAIR`,
    :data:`SECRET`, :data:`COMMITTED`, or ``"none"`` without a dealt hand), the deal schemes
    met, how many decks were recomputed from their seeds, and a sentence for people."""

    guarantees: str
    schemes: list[str]
    decks_recomputed: int
    fair_hands: int
    statement: str
    findings: list[Finding] = []


def check_deals(events: Sequence[Event], cards: Iterable[str] | None = None) -> DealGuarantees:
    """Check every fair deal of one game's events; ``cards``: the ruleset's deck (default: the
    cards each recorded deck holds, which the rules audit checks are the ruleset's)."""
    first = events[0] if events else None
    gid = first.game_id if isinstance(first, GameStarted) else "?"
    committed_hash = first.server_seed_hash if isinstance(first, GameStarted) and isinstance(first.server_seed_hash, str) else None
    deals = [(seq, e) for seq, e in enumerate(events, start=1) if type(e) is HandDealt and not e.explicit]
    ended = next(((seq, e) for seq, e in enumerate(events, start=1) if type(e) is GameEnded), None)
    findings: list[Finding] = []
    schemes = sorted({_scheme(e) for _, e in deals})
    fair = [(seq, e) for seq, e in deals if _is_fair(e)]
    server_seed = ended[1].server_seed if ended is not None else ""
    revealed = bool(server_seed)
    if ended is not None and committed_hash is not None and server_seed:
        if not is_server_seed(server_seed) or hashlib.sha256(bytes.fromhex(server_seed)).hexdigest() != committed_hash:
            findings.append(Finding(gid, ended[0], 0, SCHEME, "the revealed server seed does not hash to the server_seed_hash game_started committed to", committed_hash, server_seed))
    seed_ok = revealed and not findings
    recomputed = 0
    for seq, e in deals:
        if not _is_fair(e):
            if committed_hash is not None and revealed:  # the game claims every deck from its seed
                findings.append(Finding(gid, seq, e.hand_no, SCHEME, f"hand {e.hand_no} records no {SCHEME} deal (no deal_scheme, nonce or client_seeds) in a game that committed to a server seed and revealed it: its deck does not follow from the seeds"))
            continue
        problem = _record_problem(e, committed_hash, first.players if isinstance(first, GameStarted) else ())
        if problem:
            findings.append(Finding(gid, seq, e.hand_no, SCHEME, problem))
            continue
        if not seed_ok:
            continue
        want = fair_deck(server_seed, e.hand_no, first.players, e.client_seeds, cards if cards is not None else e.deck)  # type: ignore[arg-type, union-attr]
        recomputed += 1
        if tuple(e.deck) != want:
            findings.append(Finding(gid, seq, e.hand_no, SCHEME, f"hand {e.hand_no}'s deck does not follow from the server seed, the seats' seeds and nonce {e.hand_no} ({SCHEME})", list(want), list(e.deck)))
    all_fair = bool(deals) and len(fair) == len(deals)
    if not deals:
        guarantees, statement = "none", "no hand was dealt"
    elif all_fair and seed_ok and not findings:
        guarantees = FAIR
        statement = f"{FAIR}: {recomputed} of {len(deals)} decks follow from the seeds"
    elif all(_scheme(e) != PLAIN for _, e in deals):
        guarantees = SECRET
        if findings:
            statement = f"{SECRET}; NOT fair: {len(findings)} finding(s) of the fair deal"
        elif all_fair and not revealed and ended is None:
            statement = f"{SECRET}; fair checkable once the server seed is revealed"
        elif fair and not revealed:
            statement = f"{SECRET}; NOT shown fair: the server seed was never revealed"
        else:
            statement = f"{SECRET}; the server chose the decks (no seats' seeds)"
    else:
        guarantees = COMMITTED
        if findings:
            statement = f"{COMMITTED}; NOT fair: {len(findings)} finding(s) of the fair deal"
        elif fair and not revealed:  # e.g. resumed: the later hands' source is recorded nowhere
            statement = f"{COMMITTED}; NOT shown fair: the server seed was never revealed"
        else:
            statement = f"{COMMITTED}: unsalted, reproducible from the game's seed"
    return DealGuarantees(guarantees=guarantees, schemes=schemes, decks_recomputed=recomputed, fair_hands=len(fair), statement=statement, findings=findings)


def _is_fair(e: HandDealt) -> bool:
    return isinstance(e.deal_scheme, str) or isinstance(e.client_seeds, dict)


def _scheme(e: HandDealt) -> str:
    if isinstance(e.deal_scheme, str):
        return e.deal_scheme
    return SALTED if scheme_of(e) == SALTED else PLAIN


def _record_problem(e: HandDealt, committed_hash: str | None, players: Sequence[str]) -> str | None:
    """What makes a fair deal's record unusable, or ``None``."""
    if e.deal_scheme != SCHEME:
        return f"hand {e.hand_no} names the deal scheme {e.deal_scheme!r}: only {SCHEME} is known"
    if committed_hash is None:
        return f"hand {e.hand_no} is a {SCHEME} deal but game_started committed to no server seed"
    if e.nonce != e.hand_no:
        return f"hand {e.hand_no}'s nonce is {e.nonce!r}: the nonce is the hand number"
    if not isinstance(e.client_seeds, dict) or set(e.client_seeds) != set(players):
        return f"hand {e.hand_no}'s client_seeds must name every seat once"
    try:
        starting_deck(e.deck)
    except Exception as exc:  # a card the scheme does not deal
        return f"hand {e.hand_no}: {exc}"
    return None
