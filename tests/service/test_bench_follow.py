"""The follow clients of ``bench.bench_service --clients follow``: what they read from a seat's
stream (``?view=turn``), over a chunked HTTP/1.1 answer cut anywhere by the network."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout: bench/ is not in the package
from bench.bench_service import _Stream, read_block  # noqa: E402


def _message(event: str, data: object, id: int | None = None) -> bytes:
    return (f"id: {id}\n" if id is not None else "").encode() + f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _chunked(*bodies: bytes) -> bytes:
    return b"".join(b"%x\r\n" % len(b) + b + b"\r\n" for b in bodies) + b"0\r\n\r\n"


def test_a_block_gives_its_snapshot_its_last_view_and_whether_the_game_ended() -> None:
    block = (
        _message("snapshot", {"version": 3}, 3)
        + _message("card_drawn", {"seq": 4, "event": {"type": "card_drawn", "text": "event: view"}}, 4)
        + _message("view", {"version": 4, "legal": [1]}, 4)
        + b": keep-alive\n\n"
        + _message("view", {"version": 5, "legal": [2]}, 5)
    )
    got = read_block(block)
    assert got.messages == 4 and got.snapshot == {"version": 3} and got.view == {"version": 5, "legal": [2]} and not got.game_ended
    assert read_block(_message("game_ended", {"seq": 9}, 9)).game_ended
    assert read_block(b": keep-alive\n\n").messages == 0


def test_a_stream_cut_anywhere_gives_whole_messages_then_none_at_its_end() -> None:
    body = _chunked(
        _message("snapshot", {"version": 1}, 1),
        b": keep-alive\n\n",
        _message("card_drawn", {"seq": 2}, 2) + _message("view", {"version": 2}, 2),
        _message("game_ended", {"seq": 3}, 3),
    )

    async def main() -> list[object]:
        reader = asyncio.StreamReader()
        for i in range(0, len(body), 7):  # the network cuts the answer into pieces of 7 bytes
            reader.feed_data(body[i : i + 7])
        reader.feed_eof()
        stream = _Stream(reader)
        seen: list[object] = []
        while (b := await stream.batch()) is not None:
            seen.append(b)
        seen.append(stream.messages)
        return seen

    got = asyncio.run(main())
    snapshot, drawn, ended, count = got
    assert snapshot.snapshot == {"version": 1} and snapshot.view is None  # type: ignore[attr-defined]
    assert drawn.messages == 2 and drawn.view == {"version": 2} and not drawn.game_ended  # type: ignore[attr-defined]
    assert ended.game_ended and count == 4  # type: ignore[attr-defined]
