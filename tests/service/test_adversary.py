"""The adversary: given everything one seat received over HTTP and its stream, plus what the
service publishes (the table list, the spectators' stream, a checkpoint and an inclusion
proof made while hands are in play), it searches for every card hidden from it, and must
find none.

It is stronger than a real client: it is handed each event's true ``recorded_at`` and
``command_id`` (a real client can only guess them, often to the microsecond), so the
only secret left between it and a hidden stock draw is what the engine adds to hide it.
Every card of the deck is tried in the redacted event, the event is encoded exactly as
the store encodes it and hashed exactly as the chain does; a candidate that reproduces
any hash the seat or the public was given is a card recovered.
"""

from __future__ import annotations

import base64
import json
import random
import re
import time
import uuid
from typing import Any

import msgspec

from tonk.core.cards import JOKERS, STANDARD_DECK
from tonk.core.events import Event, encode
from tonk.core.views import HIDDEN
from tonk.storage import EventStore
from tonk.storage.chain import link_hash
from tonk.storage.evidence_log import leaf_bytes
from tonk.storage.merkle import leaf_hash

from .conftest import Client, cli_json, command_body
from .sse import SSE

_HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
_B64 = re.compile(r"[A-Za-z0-9+/]{43}=")


def public_values(texts: list[str]) -> set[str]:
    """Every sha256-sized value in ``texts``, as lowercase hex (hex or base64 in the text)."""
    out: set[str] = set()
    for t in texts:
        out |= set(_HEX64.findall(t))
        for b in _B64.findall(t):
            raw = base64.b64decode(b)
            if len(raw) == 32:
                out.add(raw.hex())
    return out


def candidates(event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each completion of a redacted event with one card of the deck where it shows ``??``."""
    paths = [k for k, v in event.items() if v == HIDDEN]
    assert paths, event
    return [(card, {**event, **{k: card for k in paths}}) for card in (*STANDARD_DECK, *JOKERS)]


def attack(item: dict[str, Any], prev_hash: str, recorded_at: str, command_id: str, game_id: str, public: set[str]) -> list[str]:
    """The cards that reproduce the event's hash (or a published value made from it)."""
    found = []
    for card, filled in candidates(item["event"]):
        try:
            event = msgspec.convert(filled, Event)
        except msgspec.ValidationError:
            continue
        h = link_hash(prev_hash, encode(event), 2, recorded_at, command_id)
        leaf = leaf_hash(leaf_bytes(game_id, item["seq"], h)).hex()
        if h == item["hash"] or h in public or leaf in public:
            found.append(card)
    return found


def hidden_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [i for i in items if HIDDEN in json.dumps(i["event"]) and i["event"]["type"] != "hand_dealt"]


def play_as_ann(server, client: Client, created: dict[str, Any], rng: random.Random, received: list[str], public: list[str]) -> None:
    """Ann plays random legal actions until the game ends; every answer she gets is kept,
    and while a hand is in play a checkpoint and a proof are published now and then."""
    table, tok = created["table"], created["tokens"]["ann"]
    published = 0
    deadline = time.monotonic() + 300  # a safety net; the game ends long before
    while time.monotonic() < deadline:
        r = client.view(table, tok)
        received.append(r.text)
        assert r.status_code == 200, r.text
        view = r.json()
        if view["status"] == "ended":
            return
        if not view["legal"]:
            time.sleep(0.05)  # another person's turn (its timer plays it)
            continue
        if published < 4 and view["view"]["in_hand"] and rng.random() < 0.3:
            public.append(json.dumps(cli_json("--db", str(server.db), "checkpoint", "--json")))
            public.append(json.dumps(cli_json("--db", str(server.db), "prove", table, "--json")))
            published += 1
        # ann knocks only when she must: the longer a hand, the more hidden draws to attack
        choices = [a for a in view["legal"] if a["action"] != "knock"] or view["legal"]
        r = client.act(table, tok, command_body(rng.choice(choices), view["version"]))
        received.append(r.text)
        if r.status_code in (409, 410):
            continue  # a turn timer played this turn first (ann was slow: the checkpoint)
        assert r.status_code == 200, r.text
        rr = client.receipts(table, tok)
        received.append(rr.text)
    raise AssertionError("the game did not end")


def attack_one_game(server, client: Client, created: dict[str, Any], rng: random.Random) -> tuple[list[str], list[str]]:
    """Play the game as ann, then attack each stock draw hidden from her: the descriptions of
    the draws attacked (with their command ids) and of the cards recovered."""
    table = created["table"]
    received: list[str] = [json.dumps({k: v for k, v in created.items() if k != "client_seeds"})]  # the seeds the test sent are its own record
    public: list[str] = []
    stream = SSE(f"{server.url}/tables/{table}/events", {"Authorization": f"Bearer {created['tokens']['ann']}", "Last-Event-ID": "0"})
    spectator = SSE(f"{server.url}/tables/{table}/spectate", {"Last-Event-ID": "0"})
    play_as_ann(server, client, created, rng, received, public)
    live_answers = list(received)
    stream.wait_for(lambda s: s.ended, timeout=60)
    spectator.wait_for(lambda s: s.ended, timeout=60)
    public.append(client.http.get("/tables").text)
    public += [json.dumps(m["data"]) for m in spectator.messages]
    received += [json.dumps(m["data"]) for m in stream.messages]
    stream.close()
    spectator.close()

    items = [m["data"] for m in stream.messages if m["event"] != "snapshot"]
    with EventStore.open(server.db) as store:
        records = {r.seq: r for r in store.records(table)}
        server_seed = store.read(table)[-1].server_seed
    # the fair deal's secrets: the server seed and every other seat's client seed appear in
    # nothing ann or the public was given while the game was live (docs/fair-deal.md); the
    # answers of the request that ended it (and the stream items of that append) reveal them
    secrets = [server_seed] + [seed for seat, seed in created["client_seeds"].items() if seat != "ann"]
    assert len(server_seed) == 64
    last_end = max(seq for seq, r in records.items() if b'"hand_ended"' in bytes(r.payload))
    live = [t for t in live_answers if '"game_ended"' not in t and '"status":"ended"' not in t]
    live += [json.dumps(m["data"]) for m in stream.messages + spectator.messages if m["data"].get("seq", 0) < last_end]
    live.append(public[-1 - len(spectator.messages)])  # the table list, read after the end: names who sat, no seed
    leaks = [secret for secret in secrets if any(secret in t for t in live)]
    assert not leaks, f"a fair deal's secret reached ann or the public before the game ended: {leaks}"
    assert [i["seq"] for i in items] == list(range(1, len(records) + 1)), "ann's stream from Last-Event-ID 0 holds every event once"
    # what the seat knows of each event's neighbours: every hash it was sent
    hash_of = {i["seq"]: i["hash"] for i in items}
    known = public_values(received) | public_values(public)
    attacked, recovered = [], []
    shapes = set()
    for item in hidden_items(items):
        rec = records[item["seq"]]
        found = attack(item, hash_of[item["seq"] - 1], rec.recorded_at, rec.command_id, table, known)
        what = f"table {table[:8]} seq {item['seq']} ({item['event']['player']}, command id {rec.command_id!r})"
        attacked.append(what)
        if found:
            recovered.append(f"{what}: {found}")
        shapes.add(json.dumps({k: v for k, v in item["event"].items() if k not in ("player", "timed_out")}, sort_keys=True))
    # nothing about a hidden draw varies with the card: every one reads the same
    assert len(shapes) <= 1, shapes
    return attacked, recovered


def test_no_hidden_card_is_computable_from_what_a_seat_or_the_public_is_given(start_server):
    server = start_server("--rate", "0")  # ann asks as fast as she can: no per-token rate
    client = Client(server.url)
    rng = random.Random(18)
    scenarios = [
        # bots' stock draws within ann's own commands
        ("bots' draws", dict(seats=["ann", "bob", "cy"], bots={"bob": "greedy", "cy": "greedy"}, hand_limit=3), lambda draw: True),
        # a person who never acts: the turn timer's stand-in plays bob's draws (command id "")
        ("timer-played draws", dict(seats=["ann", "bob"], bots={}, hand_limit=2, turn_timer=1), lambda draw: "command id ''" in draw),
    ]
    recovered: list[str] = []
    attacked = 0
    for name, settings, wanted in scenarios:
        # a deal is the server's secret shuffle: a game may end before the draws it is meant
        # to attack happen (an initial tonk, a quick knock); then another is played
        for _ in range(5):
            draws, found = attack_one_game(server, client, client.create(**settings), rng)
            attacked += len(draws)
            recovered += found
            if any(wanted(d) for d in draws):
                break
        else:
            raise AssertionError(f"five games in a row had no {name} to attack")
    # short hands have few draws (an initial tonk, a bot's early knock on a low deal): the
    # bots' draws of more games are attacked until at least 10 were in all, 10 games at most
    for _ in range(10):
        if attacked >= 10:
            break
        draws, found = attack_one_game(server, client, client.create(**scenarios[0][1]), rng)
        attacked += len(draws)
        recovered += found
    assert attacked >= 10
    assert not recovered, "hidden cards computed from what the seat was given:\n" + "\n".join(recovered)


def test_an_illegal_command_says_the_same_whoever_holds_the_card(start_server):
    """A clever client may probe with illegal commands: a discard or a spread of a card it
    does not hold is refused in the same words whether the card lies in another hand, in
    the stock or under the discard top (the card's name aside)."""
    server = start_server("--rate", "0")  # ann asks as fast as she can: no per-token rate
    client = Client(server.url)
    for _ in range(10):  # the secret deal may end the game before ann's turn (a tonk, a bot's knock): another
        created = client.create(seats=["ann", "bob", "cy"], bots={"bob": "greedy", "cy": "greedy"}, hand_limit=1)
        table, tok = created["table"], created["tokens"]["ann"]
        view = client.view(table, tok).json()
        if view["legal"]:
            break
    else:
        raise AssertionError("ten tables in a row ended before ann's turn")
    while not any(c["action"] == "discard" for c in view["legal"]):
        draw = next(c for c in view["legal"] if c["action"] in ("draw_stock", "draw_discard"))
        assert client.act(table, tok, command_body(draw, view["version"])).status_code == 200
        view = client.view(table, tok).json()
    mine = view["view"]["hand"]
    with EventStore.open(server.db) as store:
        events = store.read(table)
    dealt = next(e for e in reversed(events) if type(e).__name__ == "HandDealt")
    where = {c: "stock" for c in dealt.stock} | {c: p for p, h in dealt.hands.items() for c in h}
    answers: dict[str, set[str]] = {}
    for card in (c for c in (*STANDARD_DECK, *JOKERS) if c not in mine):
        for body in (
            {"action": "discard", "card": card},
            {"action": "spread", "cards": [card, *mine[:2]]},
        ):
            r = client.act(table, tok, {**body, "version": view["version"], "command_id": uuid.uuid4().hex})
            assert r.status_code in (400, 422), r.text
            answers.setdefault(body["action"], set()).add(f"{r.status_code} {r.text.replace(card, '<card>')}")
    assert client.view(table, tok).json()["version"] == view["version"], "a refused command changed the table"
    assert {"stock", "bob", "cy"} <= set(where.values())
    assert all("not in ann's hand" in b for bodies in answers.values() for b in bodies), answers
    for action, bodies in answers.items():
        assert len(bodies) == 1, f"{action}: the answer depends on where the card lies: {sorted(bodies)[:3]}"


def test_an_ended_hand_is_verifiable_by_a_seat_from_what_it_was_sent(start_server):
    """Hiding the draws must not cost the check the docs promise: once a hand has ended, a
    seat rebuilds each hidden draw from the revealed deal (the stock order, and the blind
    drawn from the salt) and every hash of the hand matches what it was sent.  The fair
    deal's ``hand_dealt`` names every seat's client seed, which no seat sees but its own
    before the game ends (docs/fair-deal.md): its hash is checked when the game has ended,
    from the deals the seat's stream gives whole then."""
    from tonk.core.commitment import draw_blind

    server = start_server("--rate", "0")  # ann asks as fast as she can: no per-token rate
    client = Client(server.url)
    rng = random.Random(7)
    # a game with a draw hidden from ann to rebuild: the deck can end every hand before a bot
    # draws from the stock (an initial tonk, a bot's knock at its first turn); another then
    for _ in range(5):
        created = client.create(seats=["ann", "bob", "cy"], bots={"bob": "greedy", "cy": "greedy"}, hand_limit=3)
        table, tok = created["table"], created["tokens"]["ann"]
        stream = SSE(f"{server.url}/tables/{table}/events", {"Authorization": f"Bearer {tok}", "Last-Event-ID": "0"})
        play_as_ann(server, client, created, rng, [], [])
        stream.wait_for(lambda s: s.ended, timeout=60)
        items = [m["data"] for m in stream.messages if m["event"] != "snapshot"]
        if hidden_items(items):
            break
        stream.close()
    else:
        raise AssertionError("five games in a row had no draw hidden from ann")
    with EventStore.open(server.db) as store:
        meta = {r.seq: (r.recorded_at, r.command_id) for r in store.records(table)}
    rebuilt = 0
    deal: dict[str, Any] | None = None
    pending: list[dict[str, Any]] = []
    prev = "0" * 64
    deferred: dict[int, str] = {}  # seq of each hand_dealt -> the hash before it
    for item in items:
        pending.append(item)
        if item["event"]["type"] != "hand_ended":
            continue
        deal = item["deal"]
        if item is not items[-2]:  # the last hand ends in the append that ends the game: whole then
            assert deal["client_seeds"] == {"ann": created["client_seeds"]["ann"]}, "ann sees her own seed only while the game is live"
        stock = list(deal["stock"])  # top first
        drawn = 0  # the stock draws of the hand so far
        for p in pending:
            ev = dict(p["event"])
            if ev["type"] == "hand_dealt":
                deferred[p["seq"]] = prev
                prev = p["hash"]
                continue
            elif ev["type"] == "card_drawn" and ev["source"] == "stock":
                card = stock.pop(0)
                if ev["card"] == HIDDEN:
                    ev["card"] = card
                    rebuilt += 1
                ev["blind"] = draw_blind(deal["salt"], deal["hand_no"], drawn)
                drawn += 1
            payload = encode(msgspec.convert(ev, Event))
            assert link_hash(prev, payload, 2, *meta[p["seq"]]) == p["hash"], f"seq {p['seq']} does not hash to what ann was sent"
            prev = p["hash"]
        pending = []
    hidden = len(hidden_items(items))
    assert deal is not None and rebuilt == hidden > 0
    assert items[-1]["event"]["type"] == "game_ended" and prev == items[-2]["hash"]
    # the game has ended: ann's stream read again gives every deal whole, seeds and all
    again = SSE(f"{server.url}/tables/{table}/events", {"Authorization": f"Bearer {tok}", "Last-Event-ID": "0"})
    again.wait_for(lambda s: s.ended, timeout=60)
    deals = {m["data"]["deal"]["hand_no"]: m["data"]["deal"] for m in again.messages if m["event"] != "snapshot" and m["data"].get("deal")}
    assert deferred and len(deals) == len(deferred)
    for seq, before in deferred.items():
        whole = next(d for d in deals.values() if d["hand_no"] == items[seq - 1]["event"]["hand_no"])
        assert set(whole["client_seeds"]) == {"ann", "bob", "cy"} and whole["client_seeds"]["bob"] == ""
        payload = encode(msgspec.convert(whole, Event))
        assert link_hash(before, payload, 2, *meta[seq]) == items[seq - 1]["hash"], f"hand_dealt at seq {seq} does not hash to what ann was sent"
