"""The commitment of the hand in play (``hand_no``, ``scheme``, ``commitment``) is in the
creation answer, in a seat's view and in its stream's snapshot, from the first hand on (not
only in a replay of the stream from ``Last-Event-ID: 0``): the very commitment of the
``hand_dealt`` that the seat is shown in full when the hand has ended, and never with the
salt or the deck while the hand is in play."""

from __future__ import annotations

import hashlib
import json
import random

from tonk.core.events import HandDealt
from tonk.storage import EventStore

from .conftest import Client, auth, create_in_play, play_until_over
from .sse import SSE


def test_the_creation_answer_the_view_and_the_snapshot_carry_the_commitment_of_the_hand_in_play(server, client: Client):
    # in play once seated: the deck can end both hands before a person acts (an initial tonk,
    # cy's knock), and then there is no hand in play whose commitment could be shown
    created = create_in_play(client, seats=["ann", "bob", "cy"], bots={"cy": "greedy"}, hand_limit=2)
    tid = created["table"]
    shown: list[tuple[str, dict, str]] = []  # (where, commitment, the whole answer's text)
    revealed: dict[int, dict] = {}  # hand_no -> the deal as a seat is shown it once the hand has ended

    def note(where: str, body: dict, text: str) -> None:
        c = body["commitment"]
        if "view" in body:
            last = body["last_hand"]
            if last is not None:
                revealed[last["deal"]["hand_no"]] = last["deal"]
            if c is None:
                assert not body["view"]["in_hand"] and body["status"] == "ended", body
                return
            assert c["hand_no"] == body["view"]["hand_no"] and body["view"]["in_hand"], (c, body["view"]["hand_no"])
        if c is not None:
            assert set(c) == {"hand_no", "scheme", "commitment"}, c
            shown.append((where, c, text))

    note("POST /tables", created, json.dumps(created))
    stream = SSE(f"{server.url}/tables/{tid}/events", auth(created["tokens"]["ann"]))
    stream.wait_for(lambda s: s.messages)
    snapshot = stream.messages[0]
    assert snapshot["event"] == "snapshot"
    note("ann's snapshot", snapshot["data"], json.dumps(snapshot["data"]))
    stream.close()

    def on_response(seat: str, r) -> None:
        body = r.json()
        if r.status_code == 200 and "view" in body:
            note(f"{seat}'s view", body, r.text)

    play_until_over(client, created, random.Random(18), on_response)
    with EventStore.open(server.db) as store:
        dealt = {e.hand_no: e for e in store.read(tid) if isinstance(e, HandDealt)}
    assert set(dealt) == {1, 2}
    # a seat is shown the last hand that ended; hand 1 only if a view was asked for between the
    # hands (the fair deal's deck decides whether both can end on one command), the last always
    assert 2 in revealed and set(revealed) <= set(dealt)
    for hand_no, deal in revealed.items():
        real = dealt[hand_no]
        assert (deal["salt"], tuple(deal["deck"]), deal["commitment"]) == (real.salt, real.deck, real.commitment), hand_no
    for where, c, text in shown:
        deal = dealt[c["hand_no"]]
        assert c == {"hand_no": deal.hand_no, "scheme": deal.commitment_scheme, "commitment": deal.commitment}, where
        assert c["scheme"] == "sha256-salted"
        opened = hashlib.sha256((deal.salt + "\n" + " ".join(deal.deck)).encode("utf-8")).hexdigest()
        assert opened == c["commitment"], where
        assert deal.salt not in text and " ".join(deal.deck) not in text, f"{where} showed the salt or the deck of the hand in play"
    # a hand that ended at its deal (an initial tonk) is never in play: the creation answer
    # then shows the next one's; so only that something was checked is asserted here
    assert [where for where, _, _ in shown][:2] == ["POST /tables", "ann's snapshot"] and len(shown) >= 3
