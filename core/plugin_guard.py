"""What the engine checks of a plugin it did not ship: a house rule loaded from a file
(``--variant-file``) or from another distribution's entry point.

The catalogue's variants are tested with the engine; a house rule written by a user is
not.  When one of its hooks raises (anything but the :class:`~tonk.core.errors.TonkError`
a hook may raise, such as ``IllegalAction("INVALID_SPREAD", ...)``) or answers something
its spec in :mod:`tonk.core.hookspecs` does not allow (a string for a card's points, a
veto that is not an ``IllegalAction``, a ledger that is not a list of payments between
the seats) or changes what it is given (the state, a hand, the totals), the engine stops with a :class:`~tonk.core.errors.VariantFault` naming the
variant, where it comes from (its file), the hook and what is wrong, instead of a crash
deep in the engine or a game stored with a position or a ledger no rule gives.

:func:`guarded` gives the object a :class:`~tonk.core.ruleset.Ruleset` registers in place
of such a plugin: the same ``VARIANT`` and the same hook implementations (the same names,
arguments and markers, so pluggy and :mod:`tonk.core.hookcalls` see what they saw), each
called through a check.  The project's own plugins are registered as they are.
"""

from __future__ import annotations

import functools
import inspect
import reprlib
import traceback
from types import SimpleNamespace
from typing import Any, Callable

import msgspec
import pluggy

from .errors import IllegalAction, RulesetError, TonkError, VariantFault
from .events import Payment
from .hookspecs import COLLECTED_HOOKS, HOOK_NAMES
from .plugin import PROJECT, Registered
from .settlement import Ending
from .spreads import SpreadShape
from .state import Spread, State

_MARKER = f"{PROJECT}_impl"

#: the ways a hand may end (:class:`~tonk.core.settlement.Ending`'s ``end``)
END_TYPES = frozenset({"initial_tonk", "initial_tonk_draw", "tonk_out", "out_by_discard", "knock", "stock_exhausted", "turn_cap"})

_short = reprlib.Repr()
_short.maxstring = 60
_short.maxother = 60
_short.maxlist = 6


def _is_int(x: Any) -> bool:
    return type(x) is int


def _str_list(x: Any) -> bool:
    return isinstance(x, (list, tuple)) and all(type(c) is str for c in x)


def _ledger(x: Any, args: dict[str, Any]) -> str | None:
    if not isinstance(x, (list, tuple)) or not all(type(p) is Payment for p in x):
        return "a list of Payment(from_, to, amount, reason)"
    seats = getattr(args.get("ending"), "seats", None)
    for p in x:
        if seats is not None and (p.from_ not in seats or p.to not in seats or p.from_ == p.to):
            return f"payments between two different seats of {list(seats)} (one is {_short.repr(p)})"
        if type(p.amount) is not int or p.amount <= 0 or type(p.reason) is not str or not p.reason:
            return f"payments of a positive whole amount, each with a reason (one is {_short.repr(p)})"
    return None


# what each hook may answer besides None: a check of the answer (and the hook's arguments),
# giving what was expected when the answer is not that
_ANSWERS: dict[str, Callable[[Any, dict[str, Any]], str | None]] = {
    "tonk_deck": lambda x, a: None if _str_list(x) else "a list of cards",
    "tonk_card_points": lambda x, a: None if _is_int(x) else "a whole number of points",
    "tonk_player_range": lambda x, a: None
    if isinstance(x, (list, tuple)) and len(x) == 2 and all(_is_int(n) for n in x)
    else "a pair of whole numbers (fewest, most)",
    "tonk_deal_size": lambda x, a: None if _is_int(x) and x > 0 else "a positive whole number of cards",
    "tonk_upcard": lambda x, a: None if type(x) is bool else "True or False",
    "tonk_wild_cards": lambda x, a: None if _str_list(x) or (isinstance(x, (set, frozenset)) and all(type(c) is str for c in x)) else "a list of cards",
    "tonk_initial_tonks": lambda x, a: None
    if _str_list(x) and all(p in a.get("hands", x) for p in x)
    else "a list of players of the hands it was given",
    "tonk_check_spread": lambda x, a: None if type(x) is SpreadShape else "a SpreadShape (or raise IllegalAction INVALID_SPREAD)",
    "tonk_check_hit": lambda x, a: None if type(x) is SpreadShape else "a SpreadShape (or raise IllegalAction HIT_DOES_NOT_FIT)",
    "tonk_spread_candidates": lambda x, a: None
    if isinstance(x, (list, tuple)) and all(type(s) is SpreadShape for s in x)
    else "a list of SpreadShape",
    "tonk_hit_options": lambda x, a: None
    if isinstance(x, (list, tuple)) and all(o is None or type(o) is str for o in x)
    else "a list of cards (or None)",
    "tonk_knock_timing": lambda x, a: None if type(x) is str else "'start_of_turn' or 'before_discard'",  # which: the ruleset says
    "tonk_veto": lambda x, a: None if isinstance(x, IllegalAction) else "None or an IllegalAction (VARIANT.illegal(code, sentence))",
    "tonk_turn_end": lambda x, a: None
    if type(x) is Ending and x.end in END_TYPES
    else f"None or an Ending whose end is one of {', '.join(sorted(END_TYPES))}",
    "tonk_knock_outcome": lambda x, a: None if x in ("knocker_won", "knocker_caught") else "'knocker_won' or 'knocker_caught'",
    "tonk_settle": _ledger,
    "tonk_check_options": lambda x, a: None if type(x) is str else "None or a sentence saying what is wrong",
}


def register(pm: pluggy.PluginManager, reg: Registered) -> None:
    """Register ``reg`` (:func:`guarded`) with ``pm``, whose hookspecs are
    :class:`~tonk.core.hookspecs.TonkHooks`; a :class:`RulesetError` naming the variant and
    where it comes from when one of its ``@hookimpl`` functions is no hook of tonk, takes an
    argument its hook does not have, or is a wrapper that is not a generator."""
    where = f"variant {reg.info.name!r} ({reg.source})"
    for name in dir(reg.plugin):
        opts = getattr(getattr(reg.plugin, name, None), _MARKER, None)
        hook = (opts or {}).get("specname") or name
        if opts is not None and hook not in HOOK_NAMES and not opts.get("optionalhook"):
            raise RulesetError(
                f"{where} implements a hook that does not exist: {name} is marked @hookimpl but tonk has no hook {hook!r}"
                f" (the hooks: {', '.join(HOOK_NAMES)})"
            )
    try:
        pm.register(guarded(reg), name=reg.info.name)
    except pluggy.PluginValidationError as exc:
        raise RulesetError(f"{where}: {exc}".replace("\n", "; ")) from None


def guarded(reg: Registered) -> Any:
    """The object to register for ``reg``: the plugin itself if it is the project's own,
    otherwise a stand-in whose hook implementations are checked (see the module's doc)."""
    if reg.dist == PROJECT:
        return reg.plugin
    where = f"variant {reg.info.name!r} ({reg.source})"
    stand_in = SimpleNamespace(VARIANT=reg.info, __name__=getattr(reg.plugin, "__name__", reg.info.name))
    for name in dir(reg.plugin):
        fn = getattr(reg.plugin, name, None)
        opts = getattr(fn, _MARKER, None)
        if callable(fn) and opts is not None:
            hook = opts.get("specname") or name
            setattr(stand_in, name, _checked(fn, hook, where) if hook in HOOK_NAMES else fn)
    return stand_in


def _checked(fn: Callable[..., Any], hook: str, where: str) -> Callable[..., Any]:
    check = _ANSWERS[hook]
    is_wrapper = inspect.isgeneratorfunction(fn)  # what it is sent and thrown passes through
    if is_wrapper and hook in COLLECTED_HOOKS:  # a wrapper of a collected hook answers the list of answers
        check = functools.partial(_each_answer, check)
    # the arguments it takes, by name (pluggy gives an implementation those it names, in its order)
    names = tuple(p.name for p in inspect.signature(fn).parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))

    def settled(before: list[Any], args: tuple[Any, ...], answer: Any) -> Any:
        """The answer, once the hook is seen to have left its arguments as they were."""
        _unchanged(before, names, args, where, hook)
        return _answer(answer, names, args, check, where, hook)

    if is_wrapper:

        @functools.wraps(fn)
        def wrapper(*args: Any) -> Any:
            before = _pictures(args)
            try:
                answer = yield from fn(*args)
            except TonkError:
                raise
            except Exception as exc:
                raise _raised(where, hook, fn, exc) from None
            return settled(before, args, answer)

        return wrapper

    @functools.wraps(fn)
    def call(*args: Any) -> Any:
        before = _pictures(args)
        try:
            answer = fn(*args)
        except TonkError:
            raise
        except Exception as exc:
            raise _raised(where, hook, fn, exc) from None
        return settled(before, args, answer)

    return call


def _each_answer(check: Callable[[Any, dict[str, Any]], str | None], x: Any, args: dict[str, Any]) -> str | None:
    if not isinstance(x, list):
        return "a list of the answers (a wrapper of a hook every plugin answers)"
    for item in x:
        expected = check(item, args) if item is not None else "no None in it (the answers that are not None)"
        if expected is not None:
            return f"a list, each of its answers {expected}"
    return None


def _picture(x: Any) -> Any:
    """Plain data standing for what a hook is given, to see whether it changed it (a ruleset,
    whose options are read-only, is not pictured)."""
    if x is None or type(x) in (str, int, bool):
        return x
    if isinstance(x, State):
        return x.snapshot()
    if isinstance(x, (list, tuple)):
        return [_picture(v) for v in x]
    if isinstance(x, dict):
        return {k: _picture(v) for k, v in x.items()}
    if isinstance(x, Spread):
        return (x.id, x.owner, x.kind, list(x.cards), dict(x.jokers_as))
    if isinstance(x, msgspec.Struct):
        return msgspec.to_builtins(x)
    return None


def _pictures(args: tuple[Any, ...]) -> list[Any]:
    return [_picture(a) for a in args]


def _unchanged(before: list[Any], names: tuple[str, ...], args: tuple[Any, ...], where: str, hook: str) -> None:
    """A hook never changes what it is given (docs/variant-authoring.md, section 4): the
    engine's position would no longer be what the events say."""
    for name, was, arg in zip(names, before, args):
        if was != _picture(arg):
            raise VariantFault(f"{where}: {hook} changed the {name} it was given (a hook must not change its arguments)")


def _answer(
    answer: Any, names: tuple[str, ...], args: tuple[Any, ...], check: Callable[[Any, dict[str, Any]], str | None], where: str, hook: str
) -> Any:
    if answer is None:
        return None
    expected = check(answer, dict(zip(names, args)))
    if expected is not None:
        raise VariantFault(f"{where}: {hook} answered {_short.repr(answer)}, not {expected}")
    return answer


def _raised(where: str, hook: str, fn: Callable[..., Any], exc: Exception) -> VariantFault:
    """The fault of a hook that raised ``exc``, naming the line of the plugin's file it was
    raised at (the innermost frame in the file that defines ``fn``)."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    line = ""
    if code is not None:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == code.co_filename]
        if frames:
            line = f" at line {frames[-1].lineno}"
    return VariantFault(f"{where}: {hook} raised {type(exc).__name__}{line}: {exc}")
