"""Ruleset: the resolved variants and options of a game; the only caller of ``pm.hook.*``.

A ruleset owns one pluggy ``PluginManager`` built from the plugin objects it
is given (:class:`~tonk.core.plugin.Registered`; finding them by name is
:func:`tonk.variants.load_ruleset`'s business): the base game first, then
each variant in the order given (pluggy asks the last registered first, so a later variant overrides an
earlier one and every variant overrides the base game).  Options are checked
against what the registered plugins declare: an unknown name or a bad value is
an error, never silently defaulted.

Answers that depend only on the options (deck, card points, seat range, deal
size, upcard, knock timing, wild cards) are asked once and cached.

Composition is deterministic and refused when contradictory.  Two variants
contradict each other when

* either declares the other in ``VariantInfo.conflicts`` (e.g.
  ``no-initial-tonk`` and ``initial-tonk-50-only``);
* both declare the same option differently (another default, range or
  choices), e.g. two presets of ``caught_scheme``;
* both answer an option-only first-answer hook (deck, card points, seat
  range, deal size, upcard, knock timing) with different answers.

Such a ruleset is a :class:`RulesetError` naming both variants, unless the
options say ``allow_conflicts: true``: the order of the names is then the
acknowledged precedence (the later variant named wins, as pluggy asks it
first).  ``allow_conflicts`` is an option, so it is pinned with the game.

Every seat count the ruleset allows must be dealable: ``n`` hands of the
deal size plus the upcard (if any) must leave at least one stock card
(B-22); otherwise the ruleset is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Concatenate, Iterable, Mapping, ParamSpec, Protocol, Sequence, TypeVar, cast

import msgspec
import pluggy

from .cards import RANK_OF, is_joker
from .errors import IllegalAction, RulesetError, SetupError
from .events import Payment, PluginPin, RulesetSpec
from .hookcalls import HookCalls
from .hookspecs import TonkHooks
from .plugin import PROJECT, OptionSpec, Registered, VariantInfo
from .plugin_guard import register

if TYPE_CHECKING:  # pragma: no cover
    from .commands import Command, PlayerCommand
    from .settlement import Ending
    from .spreads import SpreadShape
    from .state import Spread, State

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _check_int(name: str, value: Any, spec: OptionSpec) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesetError(f"option {name} must be a whole number, not {value!r}")
    if spec.minimum is not None and value < spec.minimum:
        raise RulesetError(f"option {name} must be at least {spec.minimum}, not {value}")
    if spec.maximum is not None and value > spec.maximum:
        raise RulesetError(f"option {name} must be at most {spec.maximum}, not {value}")
    return value


#: the types an option may have (:class:`~tonk.core.plugin.OptionSpec`)
OPTION_TYPES = ("int", "bool", "str", "int_list", "int_map")


def coerce_option(spec: OptionSpec, value: Any) -> Any:
    """Check one option value against its spec and return it in canonical form."""
    name = spec.name
    t = spec.type
    if t == "int":
        return _check_int(name, value, spec)
    if t == "bool":
        if not isinstance(value, bool):
            raise RulesetError(f"option {name} must be true or false, not {value!r}")
        return value
    if t == "str":
        if not isinstance(value, str):
            raise RulesetError(f"option {name} must be text, not {value!r}")
        if spec.choices and value not in spec.choices:
            raise RulesetError(f"option {name} must be one of {', '.join(spec.choices)}, not {value!r}")
        return value
    if t == "int_list":
        if not isinstance(value, (list, tuple)) or not value:
            raise RulesetError(f"option {name} must be a non-empty list of whole numbers, not {value!r}")
        return sorted({_check_int(name, v, spec) for v in value})
    if t == "int_map":
        if not isinstance(value, dict) or not value:
            raise RulesetError(f"option {name} must be an object mapping player counts to whole numbers, not {value!r}")
        out = {}
        for k, v in value.items():
            try:
                key = int(k)
            except (TypeError, ValueError):
                raise RulesetError(f"option {name}: key {k!r} is not a player count") from None
            out[str(key)] = _check_int(name, v, spec)
        return dict(sorted(out.items(), key=lambda kv: int(kv[0])))
    raise RulesetError(f"option {name} has an unknown type {t!r} in its variant's declaration")  # pragma: no cover


def parse_option_text(spec: OptionSpec, text: str) -> Any:
    """Parse ``K=V`` text from the command line into a value of the option's type."""
    import json

    t = spec.type
    if t == "int":
        try:
            return int(text)
        except ValueError:
            raise RulesetError(f"option {spec.name} must be a whole number, not {text!r}") from None
    if t == "bool":
        low = text.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise RulesetError(f"option {spec.name} must be true or false, not {text!r}")
    if t == "str":
        return text
    try:
        return json.loads(text) if text.strip().startswith(("[", "{")) else [int(x) for x in text.split(",")]
    except (ValueError, json.JSONDecodeError):
        raise RulesetError(f"option {spec.name}: cannot read {text!r} (give JSON, e.g. [49,50] or {{\"2\":9}})") from None


def check_declaration(info: VariantInfo) -> None:
    """A :class:`RulesetError` saying what is wrong with a variant's declaration (a field of
    the wrong type, an option of an unknown type or whose default is not of its type), so
    that a house rule's file is refused when it is loaded, not when a game first uses it."""
    try:
        msgspec.convert(msgspec.to_builtins(info), VariantInfo)
    except (msgspec.ValidationError, TypeError) as exc:
        raise RulesetError(f"its VARIANT = VariantInfo(...) is malformed: {exc}") from None
    for spec in info.options:
        if spec.type not in OPTION_TYPES:
            raise RulesetError(f"option {spec.name} has the type {spec.type!r}; an option's type is one of {', '.join(OPTION_TYPES)}")
        if not spec.required:  # a required option's default is only an example
            coerce_option(spec, spec.default)


def declared_options(plugins: Sequence[Registered]) -> tuple[dict[str, OptionSpec], dict[str, str]]:
    """The options the plugins declare (a later declaration wins: a variant may redeclare an
    option of the base game, e.g. to widen its range) and the plugin that declares each.  A
    redeclaration keeps the option's type (the rules that read it expect that type)."""
    specs: dict[str, OptionSpec] = {}
    owner: dict[str, str] = {}
    for reg in plugins:
        for spec in reg.info.options:
            prev = specs.get(spec.name)
            if prev is not None and prev.type != spec.type:
                raise RulesetError(
                    f"variant {reg.info.name} redeclares the option {spec.name} of {owner[spec.name]} as {spec.type}, but it is {prev.type}:"
                    " a redeclaration may change its default, choices, range or whether it is required, not its type"
                )
            specs[spec.name] = spec
            owner[spec.name] = reg.info.name
    return specs, owner


def unknown_option(key: str, variants: Sequence[str], specs: dict[str, OptionSpec]) -> RulesetError:
    known = ", ".join(sorted(specs))
    return RulesetError(f"unknown option {key!r} for variants [{', '.join(variants) or 'classic'}] (known: {known})")


@dataclass(frozen=True)
class RulesetDraft:
    """What the hooks answered once per ruleset (deck, card points, seat range, deal size,
    upcard, knock timing, wild cards) are given as ``ruleset``: the resolved options,
    read-only, the variants named and, once it is built, the deck.  Never a half-built
    :class:`Ruleset`."""

    options: Mapping[str, Any]
    variants: tuple[str, ...]
    deck: tuple[str, ...] = ()


class Ruleset:
    """The rules of one game: base game plus variants, with resolved options."""

    def __init__(self, plugins: Sequence[Registered], options: dict[str, Any] | None = None, *, trace: bool = False):
        """``plugins``: the base game first, then the variants in the order named.
        ``trace``: every hook call goes through pluggy's hook caller (so its tracing and
        call monitoring see it) instead of the compiled direct calls (:mod:`.hookcalls`)."""
        regs = list(plugins)
        if not regs:
            raise RulesetError("a ruleset needs the base game's plugin")
        names: list[str] = []
        for reg in regs[1:]:
            if reg.info.name in names or reg.info.name == regs[0].info.name:
                raise RulesetError(f"variant {reg.info.name!r} is named twice")
            names.append(reg.info.name)
        self.trace = trace
        self.variants: tuple[str, ...] = tuple(names)
        self.registered: tuple[Registered, ...] = tuple(regs)
        self.base: Registered = regs[0]

        pm = pluggy.PluginManager(PROJECT)
        pm.add_hookspecs(TonkHooks)
        for reg in regs:  # a house rule the project did not ship is registered with its hooks checked
            register(pm, reg)
        self.pm = pm
        self.hook = pm.hook
        self._calls = HookCalls(pm, trace=trace)
        #: every first-answer hook, compiled once: ``ruleset.hooks.tonk_settle(ending, state, ruleset)``
        #: (the spec's arguments, positionally, typed by its spec in :class:`TonkHooks`);
        #: the collected hooks are asked through :meth:`collect`
        self.hooks: TonkHooks = cast(TonkHooks, self._calls)

        self.option_specs, self.option_owner = declared_options(regs)
        given = dict(options or {})
        resolved: dict[str, Any] = {}
        for key in given:
            if key not in self.option_specs:
                raise unknown_option(key, self.variants, self.option_specs)
        for name, spec in self.option_specs.items():
            if name not in given and spec.required:
                choices = f" (one of {', '.join(spec.choices)})" if spec.choices else ""
                raise RulesetError(f"variant {self.option_owner[name]} needs the option {name} to be given{choices}: {spec.help}")
            value = given[name] if name in given else spec.default
            resolved[name] = coerce_option(spec, value)
        #: the resolved options, read-only (hooks are given them and must not change them)
        self.options: Mapping[str, Any] = MappingProxyType(resolved)
        self.allow_conflicts: bool = bool(resolved.get("allow_conflicts", False))
        if not self.allow_conflicts:
            self._refuse_declared_conflicts()
        complaints = self._option_complaints()
        if complaints:
            raise RulesetError("; ".join(complaints))

        # --- answers that depend only on the options, asked once, of a read-only draft
        draft = RulesetDraft(self.options, self.variants)
        self.deck: tuple[str, ...] = tuple(self.hooks.tonk_deck(draft))
        if len(set(self.deck)) != len(self.deck):
            raise RulesetError("the deck built by the variants holds a card twice")
        unknown = [c for c in self.deck if c not in RANK_OF]
        if unknown:
            raise RulesetError(
                f"the deck built by the variants holds {' '.join(map(str, unknown))}, which {'is' if len(unknown) == 1 else 'are'} no card"
                " (a rank A 2-10 J Q K and a suit S H D C, or a joker X1 X2)"
            )
        jokers = sum(1 for c in self.deck if is_joker(c))
        if self.options.get("jokers", 0) != jokers:
            raise RulesetError(
                f"option jokers={self.options.get('jokers')} needs a variant that puts that many jokers in the deck (jokers-wild)"
            )
        #: the ruleset's deck as a set (a deal's deck must be exactly it)
        self.deck_set: frozenset[str] = frozenset(self.deck)
        draft = self.draft = RulesetDraft(self.options, self.variants, self.deck)
        self.points: dict[str, int] = {c: self.hooks.tonk_card_points(c, draft) for c in self.deck}
        unvalued = [c for c, v in self.points.items() if v is None]
        if unvalued:  # the base game values no joker: a variant that deals them says what they count
            raise RulesetError(
                f"no variant says what {' '.join(unvalued)} count{'s' if len(unvalued) == 1 else ''} in a hand total"
                " (tonk_card_points answered None; jokers-wild values its jokers with the option joker_value)"
            )
        lo, hi = self.hooks.tonk_player_range(draft)
        self.player_range: tuple[int, int] = (lo, hi)
        self.upcard: bool = bool(self.hooks.tonk_upcard(draft))
        self.knock_timing: str = self.hooks.tonk_knock_timing(draft)
        if self.knock_timing not in ("start_of_turn", "before_discard"):
            raise RulesetError(f"knock timing {self.knock_timing!r} is neither start_of_turn nor before_discard")
        self._deal_sizes: dict[int, int] = {}
        self.wild_cards: frozenset[str] = frozenset(c for answer in self.collect(TonkHooks.tonk_wild_cards, draft) for c in answer or ())
        if not self.wild_cards <= set(self.deck):
            raise RulesetError("a variant declares wild cards that are not in the deck: " + " ".join(sorted(self.wild_cards - set(self.deck))))
        # --- what the engine may skip: facts read off the registered implementations
        self.has_vetoes = bool(self.hook.tonk_veto.get_hookimpls())
        self._vetoes = self._calls.collected["tonk_veto"]  # asked of every candidate action under a veto
        #: a variant may end the hand after a discard (the base game's answer is always None)
        self.has_turn_end = not self._base_alone("tonk_turn_end")
        #: the ledger depends on the final position, not only on the ending (no implementation
        #: of ``tonk_settle`` takes ``state``: the base game's does not)
        self.settle_reads_state = any("state" in impl.argnames for impl in self.hook.tonk_settle.get_hookimpls())
        #: spreads and hits are the base game's alone (the rules of :mod:`tonk.core.spreads`), so
        #: :mod:`tonk.core.legal` may screen candidates with its predicates before asking the hooks
        self.natural_spreads = self._base_alone("tonk_spread_candidates")
        self.natural_hits = self._base_alone("tonk_check_hit") and self._base_alone("tonk_hit_options")
        self.max_turns: int = int(self.options.get("max_turns_per_hand", 0))
        #: the legal turn-start commands by player, then by whether the discard pile is empty
        #: (``[pile holds a card, pile empty]``), kept by :mod:`tonk.core.legal` (without veto
        #: hooks they depend on nothing else)
        self.turn_start_legal: dict[str, list[tuple[PlayerCommand, ...] | None]] = {}
        if not self.allow_conflicts:
            self._refuse_contradicting_answers()
        self._check_capacity()

    def _base_alone(self, hook_name: str) -> bool:
        """Whether hook ``hook_name`` is answered by the base game's implementation alone (no
        variant implements it or wraps it)."""
        impls = getattr(self.hook, hook_name).get_hookimpls()
        return len(impls) == 1 and impls[0].plugin is self.base.plugin and not (impls[0].hookwrapper or impls[0].wrapper)

    def collect(self, spec: Callable[Concatenate[TonkHooks, _P], _R], *args: _P.args, **kwargs: _P.kwargs) -> list[_R]:
        """Every answer (``None`` dropped) of the collected hook ``spec`` (e.g.
        ``TonkHooks.tonk_veto``), last registered first, typed by its spec."""
        call: Callable[..., list[_R]] = self._calls.collected[spec.__name__]
        return call(*args, **kwargs)

    # --- composition checks ------------------------------------------------------------
    def _option_complaints(self) -> list[str]:
        """Each variant's ``tonk_check_options`` complaint, in the order the variants are
        named, told with the variant's name unless it already starts with it."""
        impls = self.hook.tonk_check_options.get_hookimpls()
        if any(impl.wrapper or impl.hookwrapper for impl in impls):  # a wrapper sees all the answers: pluggy asks
            return [c for c in self.collect(TonkHooks.tonk_check_options, self.options, list(self.variants)) if c]
        given: dict[str, Any] = {"options": self.options, "variants": list(self.variants)}
        complaints: list[str] = []
        for impl in impls:
            said = cast("str | None", impl.function(*(given[a] for a in impl.argnames)))
            if said:
                name = impl.plugin_name
                complaints.append(said if said.startswith(name) else f"variant {name}: {said}")
        return complaints

    def _conflict(self, a: str, b: str, why: str) -> RulesetError:
        first, later = (a, b) if self.variants.index(a) < self.variants.index(b) else (b, a)
        return RulesetError(
            f"variants {first} and {later} contradict each other ({why}); name only one of them, "
            f"or set the option allow_conflicts: true to let the later one named ({later}) win"
        )

    def _refuse_declared_conflicts(self) -> None:
        infos = [r.info for r in self.registered[1:]]
        for i, a in enumerate(infos):
            for b in infos[i + 1 :]:
                if b.name in a.conflicts or a.name in b.conflicts:
                    raise self._conflict(a.name, b.name, "declared conflicting")
        declared: dict[str, tuple[str, OptionSpec]] = {}
        for info in infos:
            for spec in info.options:
                prev = declared.get(spec.name)
                if prev is not None and prev[1] != spec:
                    raise self._conflict(prev[0], info.name, f"both set the option {spec.name} differently")
                declared[spec.name] = (info.name, spec)

    def _refuse_contradicting_answers(self) -> None:
        """Two variants answering an option-only first-answer hook differently."""
        questions: list[tuple[str, dict[str, Any], str]] = [
            ("tonk_deck", {}, "the deck"),
            ("tonk_player_range", {}, "the number of seats"),
            ("tonk_upcard", {}, "the upcard"),
            ("tonk_knock_timing", {}, "when a knock is allowed"),
        ]
        questions += [("tonk_deal_size", {"num_players": n}, f"the deal size for {n} players") for n in range(2, self.player_range[1] + 1)]
        questions += [("tonk_card_points", {"card": c}, f"the value of {c}") for c in self.deck]
        for hook_name, kwargs, what in questions:
            answers: dict[str, Any] = {}
            for impl in getattr(self.hook, hook_name).get_hookimpls():
                if impl.plugin is self.base.plugin or impl.hookwrapper or getattr(impl, "wrapper", False):
                    continue
                args = {**kwargs, "ruleset": self.draft}
                answer = impl.function(*[args[a] for a in impl.argnames])
                if answer is None:
                    continue
                for other, theirs in answers.items():
                    if theirs != answer:
                        raise self._conflict(other, impl.plugin_name, f"they decide {what} differently: {theirs!r} against {answer!r}")
                answers[impl.plugin_name] = answer

    def _check_capacity(self) -> None:
        """B-22: every seat count allowed must leave a stock after the deal."""
        lo, hi = self.player_range
        if lo < 2 or hi < lo:
            raise RulesetError(f"the variants allow {lo} to {hi} seats; a table needs at least 2")
        extra = 1 + (1 if self.upcard else 0)
        for n in range(lo, hi + 1):
            size = self.deal_size(n)
            if n * size + extra > len(self.deck):
                # the seats can only be lowered where an option sets them (more-players' max_players)
                fewer = "seat fewer players (max_players) or deal fewer cards" if "max_players" in self.option_specs else "deal fewer cards"
                raise RulesetError(
                    f"this ruleset seats up to {hi} players, but {n} players dealt {size} cards each"
                    f"{' plus the upcard' if self.upcard else ''} leave no stock from a {len(self.deck)}-card deck (B-22): {fewer}"
                )

    def check_seats(self, n: int) -> None:
        """A table of ``n`` players is one this ruleset seats (A2, C1 more-players), or :class:`SetupError`."""
        lo, hi = self.player_range
        if not lo <= n <= hi:
            hint = " (more need variant more-players)" if n > hi and "more-players" not in self.variants else ""
            raise SetupError(f"this ruleset seats {lo} to {hi} players, not {n}{hint}")

    # --- the pinned form --------------------------------------------------------------
    @property
    def spec(self) -> RulesetSpec:
        return RulesetSpec(
            variants=self.variants,
            options=dict(self.options),
            plugins={r.info.name: PluginPin(r.dist, r.version) for r in self.registered},
        )

    def infos(self) -> list[VariantInfo]:
        return [r.info for r in self.registered]

    # --- typed hook calls: the answers the engine and the variants ask for ----------------
    def deal_size(self, num_players: int) -> int:
        size = self._deal_sizes.get(num_players)
        if size is None:
            size = int(self.hooks.tonk_deal_size(num_players, self.draft))
            self._deal_sizes[num_players] = size
        return size

    def hand_total(self, cards: Iterable[str]) -> int:
        pts = self.points
        return sum(pts[c] for c in cards)

    def initial_tonks(self, hands: dict[str, tuple[str, ...]], totals: dict[str, int]) -> list[str]:
        return self.hooks.tonk_initial_tonks(hands, totals, self) or []

    def check_spread(self, cards: list[str], jokers_as: dict[str, str]) -> SpreadShape:
        return self.hooks.tonk_check_spread(cards, jokers_as, self)

    def check_hit(self, spread: Spread, card: str, joker_as: str | None) -> SpreadShape:
        return self.hooks.tonk_check_hit(spread, card, joker_as, self)

    def spread_candidates(self, hand: list[str]) -> list[SpreadShape]:
        return self.hooks.tonk_spread_candidates(hand, self) or []

    def hit_options(self, spread: Spread, card: str) -> list[str | None]:
        return self.hooks.tonk_hit_options(spread, card, self) or [None]

    def veto(self, state: State, command: Command) -> IllegalAction | None:
        """The first veto of the command (the last registered variant's first), or ``None``."""
        if not self.has_vetoes:
            return None
        for v in self._vetoes(state, command, self):  # TonkHooks.tonk_veto's answers, None dropped
            return v
        return None

    def turn_end(self, state: State, player: str) -> Ending | None:
        if not self.has_turn_end:
            return None
        return self.hooks.tonk_turn_end(state, player, self)

    def knock_outcome(self, knocker: str, totals: dict[str, int]) -> str:
        return self.hooks.tonk_knock_outcome(knocker, totals, self)

    def settle(self, ending: Ending, state: State) -> list[Payment]:
        return self.hooks.tonk_settle(ending, state, self) or []

    def __repr__(self) -> str:
        return f"Ruleset(variants={list(self.variants)!r}, options={self.options!r})"


class RulesetLoader(Protocol):
    """What the application layer needs to turn names or a pinned spec into a ruleset
    (implemented by :func:`tonk.variants.load_ruleset`)."""

    def __call__(self, spec: RulesetSpec | Iterable[str] = (), options: dict[str, Any] | None = None) -> Ruleset: ...
