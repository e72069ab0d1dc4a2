"""Write tests/core/fair_deal_vectors.json: fixed seeds and the ``tonk-deal-v1`` deck each gives.

Run once (``python tests/core/make_fair_deal_vectors.py``) and review the diff: the vectors
are the scheme's fixed points, checked by the engine and by the stand-alone verifier of
docs/fair-deal.md; a change of any deck here is a change of the scheme, never a refresh.
"""

from __future__ import annotations

import json
from pathlib import Path

from tonk.core import fair_deal
from tonk.variants import load_ruleset

OUT = Path(__file__).with_name("fair_deal_vectors.json")

CASES = [
    ("classic, three seats, a bot, hand 1", [], {}, "00" * 32, 1, ["ann", "bob", "cy"], {"ann": "11" * 16, "bob": "abcdef0123456789" * 4, "cy": ""}),
    ("classic, the same seeds, hand 2", [], {}, "00" * 32, 2, ["ann", "bob", "cy"], {"ann": "11" * 16, "bob": "abcdef0123456789" * 4, "cy": ""}),
    ("classic, another server seed", [], {}, "ff" * 32, 1, ["ann", "bob", "cy"], {"ann": "11" * 16, "bob": "abcdef0123456789" * 4, "cy": ""}),
    ("two jokers, two seats, 64-byte seeds", ["jokers-wild"], {"jokers": 2, "joker_value": 0}, bytes(range(32)).hex(), 7, ["north", "south"], {"north": "a5" * 64, "south": "5a" * 64}),
    ("forty-card deck, four seats", ["forty-card-deck"], {}, "0123456789abcdef" * 4, 12, ["p1", "p2", "p3", "p4"], {"p1": "00" * 16, "p2": "", "p3": "fe" * 20, "p4": "01" * 33}),
]


def main() -> None:
    vectors = []
    for name, variants, options, server_seed, nonce, players, seeds in CASES:
        cards = load_ruleset(variants, options).deck
        key = fair_deal.deal_key(server_seed, nonce, players, seeds)
        vectors.append(
            {
                "name": name,
                "variants": variants,
                "options": options,
                "server_seed": server_seed,
                "server_seed_hash": fair_deal.seed_hash(server_seed),
                "nonce": nonce,
                "players": players,
                "client_seeds": seeds,
                "starting_deck": list(fair_deal.starting_deck(cards)),
                "message": fair_deal.message(nonce, players, seeds).decode("utf-8"),
                "key": key.hex(),
                "deck": list(fair_deal.fair_deck(server_seed, nonce, players, seeds, cards)),
            }
        )
    # one line per field: each deck reads on one line and a diff names the field that changed
    blocks = ["  {\n" + ",\n".join(f"   {json.dumps(k)}: {json.dumps(v)}" for k, v in vector.items()) + "\n  }" for vector in vectors]
    OUT.write_text('{\n "scheme": ' + json.dumps(fair_deal.SCHEME) + ',\n "vectors": [\n' + ",\n".join(blocks) + "\n ]\n}\n")


if __name__ == "__main__":
    main()
