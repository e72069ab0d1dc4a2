"""The base game of ``rules.md`` section A with the defaults of section B, as the default plugin.

Registered first in every ruleset, so it answers each first-answer hook only
when no variant does.  The rules themselves live in :mod:`tonk.core.spreads`
(books, runs, hits) and :mod:`tonk.core.settlement` (payouts); the turn
structure (knock, draw, spread, hit, discard) is in :mod:`tonk.core.turn`.
"""

from __future__ import annotations

from ..core.cards import BASE_POINTS, RANK_OF, STANDARD_DECK, is_joker
from ..core.errors import IllegalAction
from ..core.settlement import CAUGHT_SCHEMES, STOCK_TIES, initial_tonkers, knock_outcome_strict, settle_classic
from ..core.spreads import check_natural_hit, check_natural_spread, natural_spread_candidates
from . import OptionSpec, VariantInfo, hookimpl

VARIANT = VariantInfo(
    name="classic",
    summary="The base game: 52 cards, 2-3 players, 5 cards each, knock at the start of a turn (rules.md A, B).",
    options=(
        OptionSpec("base_stake", "int", 1, "the agreed basic stake; ledger amounts are in these units", minimum=1),
        OptionSpec("cards_per_player", "int", 5, "cards dealt to each player (A4.1)", minimum=1, maximum=25),
        OptionSpec("initial_tonk_totals", "int_list", [49, 50], "dealt totals that are an initial tonk (A5.1)", minimum=0),
        OptionSpec("caught_scheme", "str", "pagat", "how a caught knocker pays (B-02, C6 caught-scheme)", choices=CAUGHT_SCHEMES),
        OptionSpec("stock_tie", "str", "split_as_catch", "a tie for lowest when the stock runs dry (B-06)", choices=STOCK_TIES),
        OptionSpec("knock_timing", "str", "start_of_turn", "when a knock is allowed (A7.1, B-08)", choices=("start_of_turn", "before_discard")),
        OptionSpec("jokers", "int", 0, "jokers in the deck (0 unless a variant adds them)", minimum=0, maximum=2),
        OptionSpec(
            "allow_conflicts",
            "bool",
            False,
            "accept variants that contradict each other; the later variant named wins (see tonk.core.ruleset)",
        ),
        OptionSpec(
            "max_turns_per_hand",
            "int",
            0,
            "host safeguard (B-31): end a hand with no payments after this many turns; 0 = no cap",
            minimum=0,
        ),
    ),
)


@hookimpl
def tonk_deck(ruleset):
    return list(STANDARD_DECK)


@hookimpl
def tonk_card_points(card, ruleset):
    if is_joker(card):
        return None
    return BASE_POINTS[RANK_OF[card]]


@hookimpl
def tonk_player_range(ruleset):
    return (2, 3)


@hookimpl
def tonk_deal_size(num_players, ruleset):
    return ruleset.options["cards_per_player"]


@hookimpl
def tonk_upcard(ruleset):
    return True


@hookimpl
def tonk_wild_cards(ruleset):
    return []


@hookimpl
def tonk_initial_tonks(hands, totals, ruleset):
    return initial_tonkers(totals, ruleset.options["initial_tonk_totals"])


def _no_wild_cards(cards, stand_ins) -> str | None:
    """Why a spread or hit that names a joker or a stand-in is refused by the base game (A1.1:
    no jokers, no wild cards), naming what it named; ``None`` when it names neither."""
    jokers = [c for c in cards if is_joker(c)]
    if jokers:
        return f"{' '.join(jokers)}: jokers are not part of the base game (variant jokers-wild)"
    if stand_ins:
        return f"{' '.join(stand_ins)} cannot stand for another card: the base game has no wild cards"
    return None


@hookimpl
def tonk_check_spread(cards, jokers_as, ruleset):
    why = _no_wild_cards(cards, list(jokers_as or ()))
    if why is not None:
        raise IllegalAction("INVALID_SPREAD", "A8.1", why)
    return check_natural_spread(cards)


@hookimpl
def tonk_check_hit(spread, card, joker_as, ruleset):
    why = _no_wild_cards([card], [card] if joker_as else [])
    if why is not None:
        raise IllegalAction("HIT_DOES_NOT_FIT", "A9.2", why)
    return check_natural_hit(spread.kind, spread.cards, card)


@hookimpl
def tonk_spread_candidates(hand, ruleset):
    return natural_spread_candidates(hand)


@hookimpl
def tonk_hit_options(spread, card, ruleset):
    return [None]


@hookimpl
def tonk_knock_timing(ruleset):
    return ruleset.options["knock_timing"]


@hookimpl
def tonk_knock_outcome(knocker, totals, ruleset):
    return knock_outcome_strict(knocker, totals)


@hookimpl
def tonk_settle(ending, ruleset):
    # the ledger follows from the ending alone: without ``state`` among its arguments the
    # engine knows it need not build the final position for it
    return settle_classic(ending, ruleset.options)


@hookimpl
def tonk_turn_end(state, player, ruleset):
    return None


@hookimpl
def tonk_check_options(options, variants):
    return None
