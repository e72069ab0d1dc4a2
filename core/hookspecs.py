"""The hooks a house rule can implement.

Every hook is a pure function of its arguments: no I/O, no clocks, no
randomness, no mutation of what it is given (a test watches every hook call
of every installed variant).  ``ruleset`` is the :class:`tonk.core.ruleset.Ruleset`
being played; the hooks answered once per ruleset (deck, card points, player
range, deal size, upcard, knock timing, wild cards) get a read-only
:class:`tonk.core.ruleset.RulesetDraft` instead (options, variants, deck), never
a half-built ruleset.  Read options with ``ruleset.options["name"]``: the
options are a read-only mapping.

Two kinds of hook:

* **first answer wins** (``firstresult``): the plugins are asked in reverse
  order of registration (the last variant named first, the classic base game
  last), and the first answer that is not ``None`` is used.  Return ``None``
  to leave the decision to the rules below you.
* **collected**: every plugin's answer (``None`` dropped) is gathered in a
  list, in the same order.

Order: the classic base game is registered first, then each variant in the
order the ruleset names them; that order is recorded in the game's first
event (``RulesetSpec.variants``), so a replayed or audited game asks its
plugins in the same order.  Two variants that contradict each other are
refused unless the options say ``allow_conflicts: true`` (see
:mod:`tonk.core.ruleset`).

A variant that wants to *adjust* the answer of the rules below it rather
than replace it may implement a first-answer hook as a pluggy wrapper
(``@hookimpl(wrapper=True)``: ``answer = yield`` gives the answer of the
plugins below; return the adjusted one).  ``jokers-wild`` and
``forty-card-deck`` build the deck that way, so both compose.

Hooks answered once per ruleset (deck, card points, player range, deal size,
upcard, knock timing) are cached by the ruleset: they may depend only on the
options.

Violations: a hook that forbids something raises or returns
:class:`tonk.core.errors.IllegalAction` with a code of ``cases/README.md``
and the rule id (``V:<variant>`` for a house rule).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Protocol

from .plugin import PROJECT, hookspec

if TYPE_CHECKING:  # pragma: no cover
    from .commands import Command
    from .errors import IllegalAction
    from .events import Payment
    from .ruleset import Ruleset, RulesetDraft
    from .settlement import Ending
    from .spreads import SpreadShape
    from .state import Spread, State


class TonkHooks(Protocol):
    """The hooks, one method each (a plugin implements them as plain functions, without
    ``self``): the hookspecs pluggy registers, and the type of a ruleset's compiled calls
    (:attr:`tonk.core.ruleset.Ruleset.hooks`), so every call is checked against its spec."""

    # --- deck, values and the deal ---------------------------------------------------

    @hookspec(firstresult=True)
    def tonk_deck(self, ruleset: "RulesetDraft") -> list[str]:
        """The cards of a fresh deck, in a fixed order (it is shuffled by the host).

        First answer wins.  Classic: the 52 cards of a standard deck (A1.1).
        """

    @hookspec(firstresult=True)
    def tonk_card_points(self, card: str, ruleset: "RulesetDraft") -> int:
        """The point value of one card in a hand total.

        First answer wins; asked once per card of the deck and cached.
        Classic: ace 1, 2-10 face value, J/Q/K 10 (A1.2).
        """

    @hookspec(firstresult=True)
    def tonk_player_range(self, ruleset: "RulesetDraft") -> tuple[int, int]:
        """The smallest and largest number of seats at a table.

        First answer wins.  Classic: (2, 3) (A2.1).
        """

    @hookspec(firstresult=True)
    def tonk_deal_size(self, num_players: int, ruleset: "RulesetDraft") -> int:
        """How many cards each player is dealt.

        First answer wins.  Classic: the option ``cards_per_player`` (5, A4.1).
        """

    @hookspec(firstresult=True)
    def tonk_upcard(self, ruleset: "RulesetDraft") -> bool:
        """Whether the card after the deal is turned up to start the discard pile.

        First answer wins.  Classic: True (A4.2).
        """

    @hookspec
    def tonk_wild_cards(self, ruleset: "RulesetDraft") -> list[str]:
        """The cards of the deck that are wild (may stand for another card in a spread or hit).

        Collected: the wild cards of a ruleset are the union of every answer,
        asked once and cached as ``ruleset.wild_cards``.  A wild card is named
        in a spread's ``jokers_as`` (or a hit's ``joker_as``) with the card it
        stands for; a wild card that is also a natural card (a deuce under
        ``deuces-wild``) stands for itself when it is not named.
        Classic: none.
        """

    @hookspec(firstresult=True)
    def tonk_initial_tonks(self, hands: dict[str, tuple[str, ...]], totals: dict[str, int], ruleset: "Ruleset") -> list[str]:
        """The players whose dealt hand is an initial tonk, in seat order.

        ``hands`` are the dealt hands (as the ``hand_dealt`` event holds them), ``totals``
        their point totals.  First answer wins.
        Classic: totals in the option ``initial_tonk_totals`` ([49, 50], A5.1).
        """

    # --- validity of spreads and hits ----------------------------------------------

    @hookspec(firstresult=True)
    def tonk_check_spread(self, cards: list[str], jokers_as: dict[str, str], ruleset: "Ruleset") -> "SpreadShape":
        """Check a new spread and return its shape (kind, cards in order, wild-card map).

        Raise ``IllegalAction("INVALID_SPREAD", rule, why)`` if it is not a
        spread.  First answer wins.  Classic: a book of 3-4 cards of one rank or
        a run of 3+ consecutive cards of one suit, ace low (A8).
        """

    @hookspec(firstresult=True)
    def tonk_check_hit(self, spread: "Spread", card: str, joker_as: str | None, ruleset: "Ruleset") -> "SpreadShape":
        """Check a hit of ``card`` on ``spread`` and return the spread's shape after it.

        Raise ``IllegalAction("HIT_DOES_NOT_FIT", rule, why)`` if the card does
        not fit.  First answer wins.  Classic: a book takes the missing rank up to
        4 cards; a run takes the next card of its suit at either end, ace low (A9.2).
        """

    @hookspec(firstresult=True)
    def tonk_spread_candidates(self, hand: list[str], ruleset: "Ruleset") -> list["SpreadShape"]:
        """Every spread that could be laid from ``hand`` (for legal-action generation).

        First answer wins.  Must list every spread of natural cards that
        ``tonk_check_spread`` accepts; with wild cards it lists every set of
        represented cards that can be formed, using a held natural card for
        itself and the wild cards in sorted order (other assignments of the same
        wild cards are legal too, but are not listed).  Classic: every book and
        every run of natural cards.
        """

    @hookspec(firstresult=True)
    def tonk_hit_options(self, spread: "Spread", card: str, ruleset: "Ruleset") -> list[str | None]:
        """The ``joker_as`` values under which ``card`` may be tried on ``spread``.

        First answer wins.  Classic: ``[None]`` (natural cards stand for
        themselves); a wild-card variant lists what a wild card may stand for.
        """

    # --- turn structure and vetoes ----------------------------------------------------

    @hookspec(firstresult=True)
    def tonk_knock_timing(self, ruleset: "RulesetDraft") -> str:
        """When a player may knock: ``start_of_turn`` or ``before_discard``.

        First answer wins.  Classic: the option ``knock_timing``
        (``start_of_turn``, A7.1 and B-08).
        """

    @hookspec
    def tonk_veto(self, state: "State", command: "Command", ruleset: "Ruleset") -> "IllegalAction | None":
        """Forbid a command the base game would allow.

        Collected; the first veto (last registered variant first) is raised.
        Asked after the base game's own checks have passed (turn, draw order,
        cards held, spread validity), except that for ``draw_discard`` it is
        asked before the empty-pile check so that a variant which removes the
        upcard can name its own rule.  ``state`` is the position before the
        command.  Return ``None`` to allow it.  Classic: no vetoes.
        """

    @hookspec(firstresult=True)
    def tonk_turn_end(self, state: "State", player: str, ruleset: "Ruleset") -> "Ending | None":
        """After a discard that leaves cards in hand, whether the hand ends now.

        ``state`` is the position after the discard (the next player not yet to
        act).  Return an :class:`~tonk.core.settlement.Ending` (``end``,
        ``player``) to end the hand; its totals, outcome and ledger are filled in
        by the engine.  First answer wins.  Classic: ``None`` (play goes on).
        """

    # --- end of hand and payments --------------------------------------------------------

    @hookspec(firstresult=True)
    def tonk_knock_outcome(self, knocker: str, totals: dict[str, int], ruleset: "Ruleset") -> str:
        """``knocker_won`` or ``knocker_caught``.

        First answer wins.  Classic: won only when strictly lower than every
        other player (A12.4, B-01).
        """

    @hookspec(firstresult=True)
    def tonk_settle(self, ending: "Ending", state: "State", ruleset: "Ruleset") -> list["Payment"]:
        """The ledger of a finished hand, in base-stake units.

        ``ending`` says how the hand ended (type, player, outcome, totals);
        ``state`` is the position at the end, including the hand's events
        (``state.hand_log``).  First answer wins.  Classic: A12 with the options
        ``caught_scheme`` and ``stock_tie`` (B-02, B-03, B-06).
        """

    # --- options -------------------------------------------------------------------------

    @hookspec
    def tonk_check_options(self, options: Mapping[str, Any], variants: list[str]) -> "str | None":
        """Check the resolved options as a whole; return a sentence saying what is wrong.

        Collected; every complaint is reported.  Used for combinations a single
        option's type cannot express (e.g. ``initial-tonk-50-only`` refuses
        ``initial_tonk_totals`` other than [50]).  Called before the deck is
        built; the ruleset itself then checks that every seat count it allows can
        be dealt and leave a stock (B-22).  Classic: no complaint.
        """


#: the hook names, in the order above (a plugin's hooks are listed in this order)
HOOK_NAMES: tuple[str, ...] = tuple(name for name in vars(TonkHooks) if name.startswith("tonk_"))
#: the hooks every plugin answers (no ``firstresult``): the caller gets the list of answers
COLLECTED_HOOKS: frozenset[str] = frozenset(
    name for name in HOOK_NAMES if not (getattr(vars(TonkHooks)[name], f"{PROJECT}_spec", None) or {}).get("firstresult")
)
