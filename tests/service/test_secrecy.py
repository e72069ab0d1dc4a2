"""No response and no streamed event of any seat reveals another seat's hidden cards, the
stock order or the deal's salt before the hand ends; tokens are never logged or stored."""

from __future__ import annotations

import json
import random
import uuid
from datetime import datetime, timezone

from tonk.core.cards import STANDARD_DECK
from tonk.core.events import CardDiscarded, CardDrawn, CardHit, HandDealt, HandEnded, SpreadLaid
from tonk.core.views import visible_cards
from tonk.storage import EventStore
from tonk.storage.chain import AT_FORMAT

from .conftest import Client, play_until_over
from .sse import SSE


def secrets_at(events: list, version: int, seat: str) -> tuple[set[str], set[str]]:
    """(cards ``seat`` may not know of, texts it may not see) after ``version`` events: the
    stock and the other hands, less every card that was ever in the open this hand."""
    hidden: set[str] = set()
    public: set[str] = set()
    words: set[str] = set()
    dealt = None
    for e in events[:version]:
        t = type(e)
        if t is HandDealt:
            dealt, public = e, set(e.hands[seat]) | set(e.discard[:1])
            hidden = set(e.stock) | {c for p, h in e.hands.items() if p != seat for c in h} | set(e.discard[1:])
        elif t is CardDrawn and e.player == seat:
            public.add(e.card)
        elif t is CardDrawn and e.source == "discard":
            public.add(e.card)
        elif t in (CardDiscarded, CardHit):
            public.add(e.card)
        elif t is SpreadLaid:
            public |= set(e.cards)
        elif t is HandEnded:
            hidden, dealt = set(), None
    if dealt is not None:
        words = {dealt.salt, " ".join(dealt.deck)}
    return hidden - public, words


def ended_decks(events: list, version: int) -> set[str]:
    """The deck orders of the hands that had ended by ``version`` (open to every seat)."""
    decks, dealt = set(), None
    for e in events[:version]:
        if type(e) is HandDealt:
            dealt = " ".join(e.deck)
        elif type(e) is HandEnded and dealt is not None:
            decks.add(dealt)
            dealt = None
    return decks


def check_revealed(data: dict, events: list, version: int, seat: str, where: str) -> int:
    """A ``deal`` (with a hand_ended) or a ``last_hand`` shows a whole hand: it must be one
    that had ended by then."""
    deals = [data.get("deal"), (data.get("last_hand") or {}).get("deal")]
    for deal in (d for d in deals if d):
        shown = " ".join(deal["deck"])
        assert shown in ended_decks(events, version), f"{where}: {seat} was shown the deal of a hand in play at version {version}"
    return sum(1 for d in deals if d)


def check(text: str, data, events: list, version: int, seat: str, where: str) -> None:
    hidden, words = secrets_at(events, version, seat)
    leaked = visible_cards(data) & hidden
    assert not leaked, f"{where}: {seat} was shown {sorted(leaked)} at version {version}"
    for w in words:
        assert w not in text, f"{where}: {seat} was shown the salt or the deck order"


def check_fair_secrets(text: str, events: list, version: int, seat: str, client_seeds: dict[str, str], where: str) -> int:
    """The fair deal's secrets (docs/fair-deal.md): the server seed, and every other seat's
    client seed, are in nothing a seat is given while the game is live: before the append
    that ends it (its last hand_ended and game_ended; every later answer may show them).
    ``version`` is the table's version when ``text`` was made: a hand's deal made after the
    game's end shows every seed, whichever hand it is (an answer or a stream catching up)."""
    last_end = max(i + 1 for i, e in enumerate(events) if type(e) is HandEnded)
    if version >= last_end:
        return 0
    server_seed = events[-1].server_seed
    assert len(server_seed) == 64, "the game's end reveals its server seed"
    assert server_seed not in text, f"{where}: {seat} was shown the server seed at version {version}"
    for other, seed in client_seeds.items():
        if other != seat:
            assert seed not in text, f"{where}: {seat} was shown {other}'s client seed at version {version}"
    return 1


def _epoch(recorded_at: str) -> float:
    """A recorded time (``2026-12-02T02:38:44.123456Z``) as seconds since the epoch."""
    return datetime.strptime(recorded_at, AT_FORMAT).replace(tzinfo=timezone.utc).timestamp()


def test_many_random_hands_over_http_reveal_nothing_hidden_to_any_seat(server, client: Client):
    rng = random.Random(42)
    # (table, seat, version of what the text shows, version the table had when it was made, text)
    seen: list[tuple[str, str, int, int, str]] = []
    tables = []
    for seats, bots in ((["ann", "bob", "cy"], {}), (["ann", "bob", "cy"], {"cy": "greedy"}), (["ann", "bob"], {})):
        created = client.create(seats=seats, bots=bots, hand_limit=6)
        streams = {s: SSE(f"{server.url}/tables/{created['table']}/events", {"Authorization": f"Bearer {t}"}) for s, t in created["tokens"].items()}
        last_version = {"v": created["version"]}

        def on_response(seat, r, created=created, last_version=last_version):
            body = r.json()
            v = body.get("version")
            if r.status_code == 200 and "events" in body:
                for item in body["events"]:  # made with the answer, at its version
                    seen.append((created["table"], seat, item["seq"], max(item["seq"], v if isinstance(v, int) else 0), json.dumps(item)))
            else:
                known = v if isinstance(v, int) else last_version["v"]
                seen.append((created["table"], seat, known, known, r.text))
            if isinstance(v, int) and "view" in body:
                last_version["v"] = v
            # now and then a wrong move, so that error bodies are checked too
            if rng.random() < 0.1 and "view" in body:
                tok = created["tokens"][seat]
                # a card not in the seat's hand, from the whole deck (a hand of six cards can
                # hold all five of any five cards named here, and in time a deck deals it)
                card = rng.choice([c for c in STANDARD_DECK if c not in body["view"]["hand"]])
                bad = {"action": "discard", "card": card, "version": v, "command_id": uuid.uuid4().hex}
                er = client.act(created["table"], tok, bad)
                assert er.status_code in (409, 410, 422), er.text
                seen.append((created["table"], seat, v, v, er.text))

        play_until_over(client, created, rng, on_response)
        tables.append((created, streams))

    with EventStore.open(server.db) as store:
        logs = {created["table"]: store.read(created["table"]) for created, _ in tables}
        ended_at = {created["table"]: _epoch(list(store.records(created["table"]))[-1].recorded_at) for created, _ in tables}
    for created, streams in tables:
        gid = created["table"]
        for seat, s in streams.items():
            s.wait_for(lambda s: s.ended)
            for m, received in zip(s.messages, s.received):
                version = m["data"]["version"] if m["event"] == "snapshot" else m["data"]["seq"]
                # a stream sends what it has not sent yet as it finds it: what arrived after the
                # game's end may have been made then (e.g. a stream behind by two appends)
                made = len(logs[gid]) if received >= ended_at[gid] else version
                seen.append((gid, seat, version, made, json.dumps(m["data"])))
            s.close()
    checked = revealed = fair = 0
    seeds = {created["table"]: created["client_seeds"] for created, _ in tables}
    for gid, seat, version, made, text in seen:
        fair += check_fair_secrets(text, logs[gid], made, seat, seeds[gid], f"table {gid}")
        data = json.loads(text)
        if isinstance(data, dict):
            # an ended hand is open to all (its deal in full with a hand_ended, and the last
            # ended hand in a view): only what is left is checked
            revealed += check_revealed(data, logs[gid], version, seat, f"table {gid}")
            data = {k: v for k, v in data.items() if k not in ("deal", "last_hand")}
            text = json.dumps(data)
        check(text, data, logs[gid], version, seat, f"table {gid}")
        checked += 1
    hands = sum(type(e) is HandEnded for log in logs.values() for e in log)
    assert hands == 18 and checked > 300 and revealed > 18 and fair > 300


def test_tokens_are_never_logged_nor_stored(server, client: Client):
    created = client.create(seats=["ann", "bob"], hand_limit=1)
    tok = created["tokens"]["ann"]
    client.http.get(f"/tables/{created['table']}/view", params={"token": tok})  # a token put in a URL
    play_until_over(client, created, random.Random(1))
    secrets = [*created["tokens"].values(), created["host_token"]]
    log = server.log()
    assert "/view" in log and "GET" in log
    raw = b"".join(p.read_bytes() for p in server.db.parent.glob(server.db.name + "*"))
    for t in secrets:
        assert t not in log
        assert t.encode() not in raw

