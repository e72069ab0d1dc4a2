"""Auditing an archive: every stored game checked for an intact chain, conserved cards and
lawful events under its own pinned rules (``tonk audit``), and the strict import's rules
check.  Rulesets are loaded through a :class:`~tonk.core.ruleset.RulesetLoader`
(by default :func:`tonk.variants.load_ruleset`); the store is any object with
``iter_verified_games`` (:class:`tonk.storage.EventStore`).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..core.audit import AuditReport, Finding, audit_events, conservation_check
from ..core.deal_audit import check_deals
from ..core.errors import RulesetError
from ..core.events import Event, GameStarted, HandDealt
from ..core.ruleset import RulesetLoader
from ..variants import load_ruleset


def audit_pinned(events: list[Event], load_ruleset: RulesetLoader = load_ruleset) -> AuditReport:
    """The rules audit of one game under the ruleset it pins."""
    return audit_events(events, load_ruleset=load_ruleset)


def first_rules_finding(events: list[Event]) -> Finding | None:
    """The strict import's rules check: the game's first audit finding, or ``None``."""
    findings = audit_pinned(events).findings
    return findings[0] if findings else None


def _finding(gid: str, check: str, seq: int | None, hand_no: int | None, rule: str, message: str, expected: Any = None, recorded: Any = None) -> dict[str, Any]:
    return {
        "game_id": gid,
        "check": check,
        "seq": seq,
        "hand_no": hand_no,
        "rule": rule,
        "message": message,
        "expected": expected,
        "recorded": recorded,
    }


def hand_at(events: list, seq: int | None) -> int | None:
    """The number of the hand event ``seq`` belongs to (0 before the first deal)."""
    if seq is None:
        return None
    hand = 0
    for e in events[:seq]:
        if type(e) is HandDealt:
            hand = e.hand_no
    return hand


def conservation_findings(gid: str, events: list) -> list[dict[str, Any]]:
    """The archive's conservation check (:func:`tonk.core.audit.conservation_check`) as findings."""
    f = conservation_check(events)
    return [] if f is None else [_finding(gid, "conservation", f.seq, f.hand_no, f.rule, f.message)]


def audit_game(store, gid: str, rulesets: dict | None = None, load_ruleset: RulesetLoader = load_ruleset) -> dict[str, Any]:
    """Every check on one stored game, as the documented JSON object."""
    (game,) = store.iter_verified_games([gid])
    return audit_verified(game, rulesets, load_ruleset)


def audit_verified(game, rulesets: dict | None = None, load_ruleset: RulesetLoader = load_ruleset) -> dict[str, Any]:
    """Every check on one game read by ``EventStore.iter_verified_games`` (its chain
    already checked in the same pass as its decoding), as the documented JSON object.

    ``rulesets``: a cache of built rulesets by pinned spec, shared across games (a
    ruleset is built once per distinct spec; building one registers plugins)."""
    gid = game.game_id
    result: dict[str, Any] = {
        "game_id": gid,
        "verdict": "clean",
        "events": game.version,
        "hands": 0,
        "checks": {"chain": "ok", "conservation": "not run", "rules": "not run", "deal": "not run"},
        "findings": [],
        "error": None,
        "deal": None,
    }
    findings = result["findings"]
    events = game.events
    decoded = game.decode_error is None
    if not decoded:
        seq = len(events) + 1
        findings.append(_finding(gid, "decode", seq, hand_at(events, seq), "log", str(game.decode_error)))
    for c in game.chain:
        findings.insert(0, _finding(gid, "chain", c.seq, hand_at(events, c.seq), "chain", c.message, c.expected, c.found))
        result["checks"]["chain"] = "failed"
    if decoded:
        cons = conservation_findings(gid, events)
        findings.extend(cons)
        result["checks"]["conservation"] = "failed" if cons else "ok"
        try:
            ruleset = None
            first = events[0] if events else None
            if rulesets is not None and type(first) is GameStarted:
                key = msgspec.json.encode(first.ruleset)
                ruleset = rulesets.get(key)
                if ruleset is None:
                    ruleset = rulesets[key] = load_ruleset(first.ruleset)
            report = audit_events(events, ruleset=ruleset, load_ruleset=load_ruleset)
        except RulesetError as exc:
            result["verdict"] = "error"
            result["error"] = str(exc)
        else:
            result["hands"] = report.hands
            for f in report.findings:
                findings.append(_finding(gid, "rules", f.seq, f.hand_no, f.rule, f.message, _plain(f.expected, msgspec), _plain(f.recorded, msgspec)))
            result["checks"]["rules"] = "failed" if report.findings else "ok"
        result["deal"] = deal_document(gid, events, findings, result["checks"])
    if findings and result["verdict"] != "error":
        result["verdict"] = "findings"
    return result


def deal_document(gid: str, events: list, findings: list[dict[str, Any]], checks: dict[str, str]) -> dict[str, Any]:
    """Which guarantees the game's deals have (``core.deal_audit``); a fair deal's deck that
    does not follow from its seeds is a finding (check ``deal``), one per hand."""
    deals = check_deals(events)
    for f in deals.findings:
        findings.append(_finding(gid, "deal", f.seq, f.hand_no, f.rule, f.message, f.expected, f.recorded))
    if deals.findings:
        checks["deal"] = "failed"
    elif deals.decks_recomputed:
        checks["deal"] = "ok"
    return {
        "guarantees": deals.guarantees,
        "statement": deals.statement,
        "schemes": deals.schemes,
        "fair_hands": deals.fair_hands,
        "decks_recomputed": deals.decks_recomputed,
    }


_SUMMARY_KEY = {"clean": "clean", "findings": "with_findings", "error": "errors"}


def new_summary() -> dict[str, int]:
    """The ``summary`` of an audit's JSON document, before any game (docs/cli-json.md)."""
    return {"games": 0, "clean": 0, "with_findings": 0, "errors": 0}


def count_verdict(summary: dict[str, int], verdict: str) -> None:
    """Count one game's verdict (``clean``, ``findings`` or ``error``) in ``summary``."""
    summary["games"] += 1
    summary[_SUMMARY_KEY[verdict]] += 1


def audit_document(store, gid: str) -> dict[str, Any]:
    """One stored game's audit as the document ``tonk audit GAME_ID --json`` prints."""
    result = audit_game(store, gid)
    summary = new_summary()
    count_verdict(summary, result["verdict"])
    return {"games": [result], "summary": summary}


def _plain(value: Any, msgspec) -> Any:
    return msgspec.to_builtins(value) if value is not None else None
