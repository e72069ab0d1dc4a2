"""The ways the unseen cards of a partial-knowledge record could lie, up to what can
change a verdict (cases/README.md, "Partial knowledge").

A *world* gives every unknown place of the setup its cards.  Only some places can
matter: each player's unknown cards, and the unknown stock and discard cards that the
record's draws can reach (the first as many as there are draws of that pile).  The
rest of the unseen cards fill the other places in a fixed order: nothing in the record
can tell them apart.

Within the places that matter, cards that behave alike are enumerated once: under a
ruleset that reads an unknown card only through its points (:data:`VALUE_BLIND`
variants), two unseen cards of the same points that no action names are
interchangeable, and a place's cards count only by their total.  So a world stands for
every assignment with the same per-place totals (and the same named cards in each
place); every distinct combination of totals is enumerated exactly once.  A place's
``fixed`` cards (where the record puts a named card) are not enumerated: the caller
leaves them out of the classes.  Under any
other variant each unseen card is its own class (exact, and larger).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from .errors import HandRecordError

MAX_WORLDS = 100_000
"""More distinct worlds than this is refused with a clear error rather than run."""

PARTIAL_STATES_PER_WORLD = 4
"""The enumeration's bound on summaries of places partly filled, per world allowed: a summary
costs far less than playing a world, and hands filled one class of cards at a time pass
through many more summaries than they end in (four seats, three hands of three unknown cards:
over 100,000 on the way to 11,244 worlds)."""

PATH_BLIND_EXCEPT = frozenset({"knock-limit"})
"""Value-blind variants under which a legality still reads a total (so the course of
the record can depend on the unseen cards' points)."""

VALUE_BLIND = frozenset(
    {
        "caught-scheme",
        "cards-per-player",
        "classic",
        "deal-size-by-player-count",
        "deuces-wild",
        "double-requires-new-spread",
        "face-cards-11-12-13",
        "forty-card-deck",
        "hit-penalty",
        "hit-runs-only",
        "initial-tonk-50-only",
        "jokers-wild",
        "knock-before-discard",
        "knock-limit",
        "low-initial-tonk",
        "more-players",
        "multiple-initial-tonks-all-paid",
        "no-initial-discard",
        "no-initial-tonk",
        "no-rediscard-of-pick",
        "one-hit-per-turn",
        "stock-end-immediate",
        "stock-tie",
    }
)
"""Variants under which an unknown card in a hand matters only through its points (its
total, at a knock or an exhausted stock, or a knock limit): no legality they decide
asks which cards a hand holds.  ``mandatory-laydown`` and ``discard-pick-must-meld`` do
(a hand holding a spread, a pick usable with the hand), as may any plugin variant."""


@dataclass(frozen=True)
class Place:
    """A place whose unknown cards can matter: a player's hand, or one stock or discard
    position a draw can reach; or (merged) a player's hand with the positions the
    record's draws bring into it, its ``parts`` in the order they come into the hand."""

    name: str  # "hand P1", "stock 1", "discard 3"
    size: int
    parts: tuple[tuple[str, int], ...] = ()
    fixed: tuple[str, ...] = ()  # cards every world agreeing with the record puts here
    blind: bool = False  # only the points of its cards no action names matter (nothing reads which they are)

    def pieces(self) -> tuple[tuple[str, int], ...]:
        return self.parts or ((self.name, self.size),)


def classes_of(
    unseen: list[str], points: dict[str, int], named: set[str], by_value: bool, lump: bool = False
) -> list[tuple[object, list[str]]]:
    """The unseen cards grouped into classes of interchangeable cards: by points (unless
    named by an action, or not ``by_value``), else one class per card; with ``lump``,
    every card no action names in one class (where the named cards lie, nothing else)."""
    groups: dict[object, list[str]] = {}
    for c in unseen:
        if c in named or not by_value:
            key: object = ("card", c)
        else:
            key = ("lump", 0) if lump else ("value", points[c])
        groups.setdefault(key, []).append(c)
    return sorted(groups.items(), key=lambda kv: repr(kv[0]))


def worlds(
    places: list[Place], classes: list[tuple[object, list[str]]], points: dict[str, int], named: frozenset[str] = frozenset()
) -> Iterator[list[list[str]]]:
    """Each distinct world: the cards of each place (in ``places`` order).  Places' cards
    are summarised by their total points and the cards of single-card classes they
    hold (in a ``blind`` place, only those of the ``named`` cards); one representative
    assignment per distinct summary."""
    # state: per place (filled, total, tuple of own-class cards) -> representative cards.
    # A place a class gives nothing keeps its very tuples (shared, not copied): most do.
    start = tuple((len(p.fixed), 0, ()) for p in places)
    states: dict[tuple, tuple[tuple[str, ...], ...]] = {start: tuple(tuple(p.fixed) for p in places)}
    for key, cards in classes:
        single = key[0] == "card"  # type: ignore[index]
        value = 0 if key[0] == "lump" else points[cards[0]]  # type: ignore[index]
        kept = [single and (not p.blind or cards[0] in named) for p in places]  # is the card itself recorded there
        nxt: dict[tuple, tuple[tuple[str, ...], ...]] = {}
        for state, rep in states.items():
            for split in _splits(len(cards), [p.size - s[0] for p, s in zip(places, state)]):
                new_state = []
                used = 0
                for place, j, keep in zip(state, split, kept):
                    if j:
                        filled, total, own = place
                        place = (filled + j, total + value * j, own + tuple(cards[used : used + j]) if keep else own)
                        used += j
                    new_state.append(place)
                t = tuple(new_state)
                if t not in nxt:
                    new_rep = []
                    used = 0
                    for taken, j in zip(rep, split):
                        new_rep.append(taken + tuple(cards[used : used + j]) if j else taken)
                        used += j
                    nxt[t] = tuple(new_rep)
                    if len(nxt) > PARTIAL_STATES_PER_WORLD * MAX_WORLDS:
                        _too_many()
        states = nxt
    full = [rep for state, rep in states.items() if all(s[0] == p.size for s, p in zip(state, places))]
    if len(full) > MAX_WORLDS:
        _too_many()
    for rep in full:
        yield [list(cs) for cs in rep]


def _too_many() -> None:
    raise HandRecordError(
        f"more than {MAX_WORLDS} distinct ways the unseen cards could lie: too many to weigh one by one "
        "(name more of the cards, or leave fewer unknown)"
    )


def _splits(count: int, room: list[int]) -> Iterator[tuple[int, ...]]:
    """Every way to give up to ``count`` cards of one class to places with ``room`` free."""
    if not room:
        yield ()
        return
    for j in range(min(count, room[0]) + 1):
        for rest in _splits(count - j, room[1:]):
            yield (j, *rest)
