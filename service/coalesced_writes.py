"""One socket write for what a connection sends in one turn of the event loop.

uvicorn's HTTP protocols write a response's status line and headers, then its body, with two
``transport.write`` calls, and uvloop sends each at once: two system calls and two TCP
segments for every small JSON answer (the reader wakes up twice).  Here the connection's
transport gathers the writes of one loop turn and sends them together at its end
(``loop.call_soon``): the same bytes in the same order, one ``send``.  A stream's event is held
for no longer than the rest of that turn.  Closing the connection first sends what is gathered.
"""

from __future__ import annotations

import asyncio
from typing import Any

try:  # the protocol uvicorn's "auto" picks: httptools when installed, else h11
    import httptools  # noqa: F401

    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _Protocol
except ImportError:  # pragma: no cover - the serve extra installs httptools
    from uvicorn.protocols.http.h11_impl import H11Protocol as _Protocol  # type: ignore[assignment]


class CoalescingTransport:
    """A transport that gathers the writes of one loop turn into one write of ``transport``;
    everything else is the transport's own."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self._transport = transport
        self._loop = loop
        self._parts: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if not self._parts:
            self._loop.call_soon(self.flush)
        self._parts.append(bytes(data))

    def writelines(self, lines: Any) -> None:
        for data in lines:
            self.write(data)

    def flush(self) -> None:
        if not self._parts:
            return
        parts, self._parts = self._parts, []
        if not self._transport.is_closing():
            self._transport.write(parts[0] if len(parts) == 1 else b"".join(parts))

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class CoalescingHTTPProtocol(_Protocol):  # type: ignore[misc,valid-type]
    """uvicorn's HTTP protocol over a :class:`CoalescingTransport`."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, asyncio.get_running_loop()))  # type: ignore[arg-type]
