"""Write the golden corpus: what the engine says today, frozen so a redesign cannot change meaning.

Run ``python tests/golden/make_corpus.py`` to (re)write ``tests/golden/corpus/``;
``test_golden.py`` builds the same files in a temporary folder and asserts they
are byte-identical.  Regenerate only for an intentional change of behaviour, and
say which change explains every differing line.

The corpus holds:

* ``public-verdicts.json``, ``referee-verdicts.json``: the adjudication of every
  public hand record (``shared/cases/public.json``) and every referee case
  (``tests/core/fixtures/referee-cases.json``);
* ``events-v1-decoded.jsonl``: the frozen format-1 event log decoded by today's
  engine (each event as plain JSON, with its type tag);
* ``sim-<name>.jsonl``: simulated games (greedy and random bots) under the base
  game and under every installed variant: the events' payloads, one a line;
* ``sim-audits.json``: the rules audit of every simulated game, of tampered
  copies of one of them (the archive audit: conservation and rules checks),
  and re-adjudications of a game under other rules.

Event hashes are deliberately left out (the hash format may change without the
rules changing).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgspec

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CORPUS = HERE / "corpus"

#: values for options a variant requires (no default)
REQUIRED = {"cards_per_player": 7, "joker_value": 0, "caught_scheme": "double_to_low_plus_others_base", "initial_tonk_totals": [49, 50, 11]}
#: players per variant, where the default table of three does not show the variant
PLAYERS = {"more-players": 4}


def public_cases_path() -> Path:
    shared = ROOT.parent / "shared" / "cases" / "public.json"
    return shared if shared.is_file() else ROOT / "examples" / "public-cases.json"


def _dump(obj: Any) -> bytes:
    return (json.dumps(obj, indent=1, ensure_ascii=False, sort_keys=False) + "\n").encode()


def _line(obj: Any) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _event_json(e: Any) -> dict:
    return {"type": e.__struct_config__.tag, **msgspec.to_builtins(e)}


def verdicts(cases: list[dict]) -> bytes:
    from tonk.application.adjudicate import adjudicate, compare

    out = []
    for i, case in enumerate(cases):
        verdict = adjudicate(case, i)
        out.append({"verdict": verdict, "differences": compare(verdict, case)})
    return _dump(out)


def v1_decoded() -> bytes:
    """The frozen format-1 log imported into a store and read back (the upcast path)."""
    from tonk.storage import EventStore
    from tonk.storage.jsonl import import_file

    fixture = ROOT / "tests" / "storage" / "fixtures" / "events-v1.jsonl"
    out = []
    with tempfile.TemporaryDirectory() as tmp, EventStore.open(Path(tmp) / "v1.db", create=True) as store:
        result = import_file(store, fixture)  # no rules check: this is about the format
        for gid in result.imported:
            for seq, e in enumerate(store.read(gid), 1):
                out.append(_line({"game_id": gid, "seq": seq, "event": _event_json(e)}))
    return b"".join(out)


def _variant_options(name: str) -> dict:
    from tonk.variants.registry import default_registry

    out = {}
    for spec in default_registry().get(name).info.options:
        if getattr(spec, "required", False):
            out[spec.name] = REQUIRED[spec.name]
    return out


def sim_configs() -> dict[str, Any]:
    from tonk.application.simulate import SimConfig
    from tonk.variants.registry import default_registry

    configs = {"classic": SimConfig(hands=60, players=3, bots=("greedy", "random"), seed=11, hands_per_game=20)}
    configs["classic-2"] = SimConfig(hands=6, players=2, bots=("random", "greedy"), seed=5, hands_per_game=6, options={"base_stake": 2})
    for name in default_registry().names():
        if name == "classic":
            continue
        configs[name] = SimConfig(
            hands=20,
            players=PLAYERS.get(name, 3),
            bots=("greedy", "random"),
            variants=(name,),
            options=_variant_options(name),
            seed=23,
            hands_per_game=10,
        )
    return configs


def simulated() -> dict[str, list]:
    from tonk.application.simulate import play_game

    games = {}
    for name, config in sim_configs().items():
        ruleset = config.check()
        games[name] = [play_game(config, ruleset, i) for i in range(config.games)]
    return games


def _tampered(events: list) -> dict[str, list]:
    """Copies of a game, each with one thing changed, as an archive might hold them."""
    from tonk.core.events import CardDiscarded, CardDrawn, HandEnded

    out = {}
    i = next(k for k, e in enumerate(events) if isinstance(e, HandEnded))
    e = events[i]
    pay = e.ledger[0]
    out["payout-edited"] = events[:i] + [msgspec.structs.replace(e, ledger=[msgspec.structs.replace(pay, amount=pay.amount + 2)] + list(e.ledger[1:]))] + events[i + 1 :]
    j = next(k for k, e in enumerate(events) if isinstance(e, CardDrawn) and e.source == "stock")
    out["draw-removed"] = events[:j] + events[j + 1 :]
    k = next(k for k, e in enumerate(events) if isinstance(e, CardDiscarded))
    d = events[k]
    other = next(c for c in events[1].deck if c != d.card)
    out["discard-swapped"] = events[:k] + [msgspec.structs.replace(d, card=other)] + events[k + 1 :]
    out["truncated"] = events[: i - 1]
    out["stray-deal"] = events[:3] + [events[1]] + events[3:]
    return out


def _as_frozen(result: dict[str, Any]) -> dict[str, Any]:
    """An archive audit as the corpus froze it: the deal check and the deals' guarantees
    (issue 22, fair deals) came later and are tested in tests/cli/test_audit_cmd.py and
    tests/service/test_fair_deal_http.py; every key frozen here keeps its meaning."""
    frozen = {k: v for k, v in result.items() if k != "deal"}
    frozen["checks"] = {k: v for k, v in result["checks"].items() if k != "deal"}
    return frozen


def audits(games: dict[str, list]) -> bytes:
    from tonk.application.audit import audit_game
    from tonk.application.audit import audit_pinned
    from tonk.application.reconsider import reconsider, to_builtins
    from tonk.variants.loading import build_ruleset
    from tonk.storage import EventStore

    out: dict[str, Any] = {"rules": {}, "archive": {}, "reconsidered": {}}
    for name, gs in games.items():
        out["rules"][name] = [msgspec.to_builtins(audit_pinned(g)) for g in gs]
    base = games["classic"][0]
    with tempfile.TemporaryDirectory() as tmp:
        for label, events in {"clean": base, **_tampered(base)}.items():
            db = Path(tmp) / f"{label}.db"
            with EventStore.open(db, create=True) as store:
                store.append(events[0].game_id, events, 0)
                result = audit_game(store, events[0].game_id)
            out["archive"][label] = _as_frozen(result)
    spec = base[0].ruleset
    for label, (variants, options) in {
        "classic-stake-3": ((), ["base_stake=3"]),
        "hit-penalty": (("hit-penalty",), []),
        "caught-scheme": (("caught-scheme",), ["caught_scheme=dropper_pays_all_stakes"]),
        "no-initial-tonk": (("no-initial-tonk",), []),
        "knock-limit": (("knock-limit",), ["max_knock_count=5"]),
        "jokers-wild": (("jokers-wild",), ["joker_value=0"]),
    }.items():
        ruleset = build_ruleset(variants, options, carry_from=spec)
        out["reconsidered"][label] = to_builtins(reconsider(base, ruleset))
    return _dump(out)


def build() -> dict[str, bytes]:
    """Every corpus file's name and bytes."""
    files: dict[str, bytes] = {}
    files["public-verdicts.json"] = verdicts(json.loads(public_cases_path().read_text())["cases"])
    referee = json.loads((ROOT / "tests" / "core" / "fixtures" / "referee-cases.json").read_text())["cases"]
    files["referee-verdicts.json"] = verdicts(referee)
    files["events-v1-decoded.jsonl"] = v1_decoded()
    games = simulated()
    for name, gs in games.items():
        files[f"sim-{name}.jsonl"] = b"".join(_line(_event_json(e)) for g in gs for e in g)
    files["sim-audits.json"] = audits(games)
    return files


def main() -> int:
    CORPUS.mkdir(exist_ok=True)
    for old in CORPUS.iterdir():
        old.unlink()
    for name, data in build().items():
        (CORPUS / name).write_bytes(data)
    print(f"wrote {len(list(CORPUS.iterdir()))} files to {CORPUS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
