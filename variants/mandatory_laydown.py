"""``mandatory-laydown`` (rules.md C1.2, seeds A13.2, B-24); alias ``mandatory-ace-laydown``.

A turn may not end by discarding while the hand still holds a valid spread,
except a book of exactly three aces (``MUST_LAY_DOWN_SPREAD``, rule
``V:mandatory-laydown``).  Options (B-24):

* ``exempt_three_aces`` (true): a hand holding exactly three aces may keep
  them as a book; four aces are not exempt.
* ``check_point``: ``after_discard`` (default, the hand left after the
  discard is checked, so discarding a card of the spread is allowed) or
  ``before_discard`` (the hand before the discard is checked: a held spread
  must be laid down even if the discard would break it).
* ``enforce_at_knock`` (false): also refuse a knock while the knocker's
  hand holds such a spread.
* ``reading``: ``spread`` (default, three of the four seeds) or ``ace``
  (the Indonesian seed's literal text): a turn may not end by discarding
  while the hand holds an ace that could be laid down now (in a new spread
  or as a hit on any spread), unless the hand holds exactly three aces (with
  ``exempt_three_aces``).

Decisions:

* "Holds a spread" counts every spread the ruleset could form from the hand,
  wild cards included; the three-aces exemption covers only a book of three
  natural aces (a book completed by a wild card is not exempt).
* Under the ``ace`` reading, "could be laid down" means a spread or hit with
  that ace is legal now under the whole ruleset (so a rule such as
  ``one-hit-per-turn`` that forbids the hit also lifts the obligation); the
  aces checked are those left in hand at the check point, and whether one
  could be laid down is judged on the hand before the discard (B-24: with
  ``after_discard``, A♠ 2♠ 3♠ Q♦ may not discard the 3♠).
* Under the ``ace`` reading with ``enforce_at_knock`` (B-24), a knock made
  before drawing (when nothing may be laid down yet, B-14) is refused when
  an ace of the hand would fit a spread formed from the hand or a hit on a
  spread on the table (the ruleset's spread and hit checks), unless the
  hand holds exactly three aces; a knock after drawing
  (``knock-before-discard``) takes the same test as a discard.
* Other players' hands are never checked (B-24).
"""

from __future__ import annotations

from ..core.cards import RANK_OF
from ..core.commands import Discard, Knock
from ..core.errors import IllegalAction
from . import OptionSpec, VariantInfo, _facts, hookimpl

VARIANT = VariantInfo(
    name="mandatory-laydown",
    summary="A turn may not end (by discarding) while the hand holds a spread, except three aces (B-24).",
    options=(
        OptionSpec("exempt_three_aces", "bool", True, "a hand of exactly three aces may keep them"),
        OptionSpec("check_point", "str", "after_discard", "which hand is checked at a discard", choices=("after_discard", "before_discard")),
        OptionSpec("enforce_at_knock", "bool", False, "also refuse a knock while holding a spread"),
        OptionSpec("reading", "str", "spread", "the seeds' rule is about spreads (default) or, literally in the Indonesian seed, aces", choices=("spread", "ace")),
    ),
    aliases=("mandatory-ace-laydown",),
    doc=__doc__,
)


def _aces(cards) -> list[str]:
    return [c for c in cards if RANK_OF[c] == "A"]


def held_spread(hand, ruleset) -> tuple[str, ...] | None:
    """A spread held in ``hand`` that the rule forbids keeping, or ``None``."""
    exempt = ruleset.options["exempt_three_aces"] and len(_aces(hand)) == 3
    for shape in ruleset.spread_candidates(hand):
        if exempt and shape.kind == "book" and not shape.jokers_as and RANK_OF[shape.cards[0]] == "A":
            continue
        return tuple(shape.cards)
    return None


def layable_ace(state, checked, ruleset) -> str | None:
    """An ace of ``checked`` that the player to act could lay down now, or ``None``.
    Before the draw (a knock, B-24) nothing may be laid down yet: then an ace that
    would fit a spread from the hand or a hit on the table counts."""
    aces = _aces(checked)
    if not aces or (ruleset.options["exempt_three_aces"] and len(aces) == 3):
        return None
    fits = _facts.can_lay_down if state.drew is not None else _would_fit
    for ace in aces:
        if fits(state, ace, ruleset):
            return ace
    return None


def _would_fit(state, card, ruleset) -> bool:
    """Whether ``card`` would fit a spread formed from the hand of the player to act
    or a hit on a spread on the table (the shape checks alone, B-24)."""
    hand = state.hands[state.to_act]
    for shape in ruleset.spread_candidates(hand):
        if card in shape.cards:
            try:
                ruleset.check_spread(list(shape.cards), dict(shape.jokers_as))
            except IllegalAction:
                continue
            return True
    for spread in state.table.values():
        for joker_as in ruleset.hit_options(spread, card):
            try:
                ruleset.check_hit(spread, card, joker_as)
            except IllegalAction:
                continue
            return True
    return False


@hookimpl
def tonk_veto(state, command, ruleset):
    t = type(command)
    opts = ruleset.options
    hand = state.hands[command.player] if t in (Discard, Knock) else None
    if t is Discard:
        checked = list(hand)
        if opts["check_point"] == "after_discard":
            checked.remove(command.card)
        ending = "end your turn"
    elif t is Knock and opts["enforce_at_knock"]:
        checked = hand
        ending = "knock"
    else:
        return None
    if opts["reading"] == "spread":
        spread = held_spread(checked, ruleset)
        if spread is not None:
            return VARIANT.illegal("MUST_LAY_DOWN_SPREAD", f"you may not {ending} holding the spread {' '.join(spread)}: lay it down first")
    else:
        ace = layable_ace(state, checked, ruleset)
        if ace is not None:
            return VARIANT.illegal("MUST_LAY_DOWN_SPREAD", f"you may not {ending} holding {ace}, which you can lay down: lay it down first")
    return None
