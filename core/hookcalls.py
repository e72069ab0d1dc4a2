"""A ruleset's hook calls, compiled once: every hook of :class:`~tonk.core.hookspecs.TonkHooks`
as a plain function taking the spec's arguments positionally, in the spec's order.

pluggy's hook caller takes keyword arguments and walks its implementations on
every call.  A ruleset asks some hooks for every candidate action of every
position (spreads, hits), so :class:`HookCalls` resolves each hook once, when
the ruleset is built, into a function that calls the same implementations in
the same order (the last registered first) with the same semantics: a
first-answer hook returns the first answer that is not ``None``, a collected
hook the list of answers that are not ``None``.  A hook answered by one
implementation that takes every argument of the spec is that implementation
itself (one taking fewer is called with those it takes).  Only pluggy's public API is used (``get_hookimpls()`` and each
implementation's ``function`` and ``argnames``).

A hook with a wrapper, an implementation with keyword-only defaults, or a
ruleset built with ``trace=True`` is called through pluggy's hook caller
instead (where its tracing and call monitoring see every call); the answers
are the same either way (``tests/simulate/test_fastpath.py`` compares both).
Why this exists and what it saves: docs/benchmarks.md.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable

import pluggy

from .hookspecs import HOOK_NAMES

HookCall = Callable[..., Any]


class HookCalls:
    """One ruleset's call of each hook (see the module's doc): a first-answer hook's as the
    attribute of its name, with the signature of its spec; a collected hook's, which
    answers a list, in :attr:`collected` by name (so that the attribute of a collected
    hook's name, whose spec types one answer, does not exist)."""

    def __init__(self, pm: pluggy.PluginManager, *, trace: bool = False):
        self.collected: dict[str, HookCall] = {}
        for name in HOOK_NAMES:
            caller = getattr(pm.hook, name)
            call = (None if trace else _direct(caller)) or _through_pluggy(caller)
            assert caller.spec is not None  # every hook name is one of TonkHooks' specs
            if caller.spec.opts.get("firstresult"):
                setattr(self, name, call)
            else:
                self.collected[name] = call


def _through_pluggy(caller: pluggy.HookCaller) -> HookCall:
    """The hook called through pluggy, with the spec's arguments given positionally."""
    assert caller.spec is not None  # every hook name is one of TonkHooks' specs
    argnames = caller.spec.argnames

    def call(*args: Any) -> Any:
        return caller(**dict(zip(argnames, args)))

    return call


def _direct(caller: pluggy.HookCaller) -> HookCall | None:
    """A plain function calling the hook's implementations as pluggy does, or ``None`` when
    one of them needs pluggy (a wrapper, keyword-only defaults) or there is none."""
    assert caller.spec is not None
    spec_args = tuple(caller.spec.argnames)
    plan: list[tuple[HookCall, tuple[int, ...]]] = []
    for impl in reversed(caller.get_hookimpls()):  # pluggy calls the last registered first
        if impl.hookwrapper or impl.wrapper or impl.kwargnames or any(a not in spec_args for a in impl.argnames):
            return None
        plan.append((impl.function, tuple(spec_args.index(a) for a in impl.argnames)))
    if not plan:
        return None
    if caller.spec.opts.get("firstresult"):
        if len(plan) == 1:
            return _one(*plan[0], len(spec_args))

        def first(*args: Any) -> Any:
            for fn, idx in plan:
                answer = fn(*[args[i] for i in idx])
                if answer is not None:
                    return answer
            return None

        return first

    if len(plan) == 1:  # e.g. tonk_veto under one house rule: asked of every candidate action
        one = _one(*plan[0], len(spec_args))

        def collected_one(*args: Any) -> list[Any]:
            answer = one(*args)
            return [] if answer is None else [answer]

        return collected_one

    def collected(*args: Any) -> list[Any]:
        answers = (fn(*[args[i] for i in idx]) for fn, idx in plan)
        return [a for a in answers if a is not None]

    return collected


def _one(fn: HookCall, idx: tuple[int, ...], n: int) -> HookCall:
    """``fn`` called with the spec's ``n`` arguments at positions ``idx``, as a first-answer
    hook's one implementation: ``fn`` itself when it takes them all, in order."""
    if idx == tuple(range(n)):
        return fn
    if not idx:
        return lambda *args: fn()
    if len(idx) == 1:
        (i,) = idx
        return lambda *args: fn(args[i])
    if len(idx) == 2:  # e.g. tonk_settle(ending, ruleset), once a hand: two subscripts cost
        i, j = idx  # about a third less than the itemgetter's tuple and the star call
        return lambda *args: fn(args[i], args[j])
    pick = itemgetter(*idx)  # a tuple of the arguments taken
    return lambda *args: fn(*pick(args))
