"""Running the service under uvicorn, with an access log that never shows a secret, and a
graceful stop.

The access log prints the method, the path without its query string, and the
status: tokens travel in the ``Authorization`` header or a cookie (never
logged), and a token someone puts in a query string is cut off with it.

SIGTERM or SIGINT stops the server gracefully (:class:`GracefulServer`): it stops
accepting connections, tells every open stream to say so to its client and end
(``service.streams``: a ``shutdown`` message, then the end of the response), lets
requests in flight (commands) finish, and after at most ``shutdown_timeout``
seconds cuts off what is left; then the application's shutdown runs (the turn
timer, the store follower, the store closed) and the process exits with 0.  A
second SIGINT stops it at once (uvicorn's force exit).

``workers`` > 1 (``tonk serve --workers N``): the process binds the port, then forks N
worker processes that accept on it, each a whole server with its own connection to the store
(a SQLite file in WAL mode takes several processes; every append still checks its expected
version, so two workers never both append at one version).  A table's state reaches another
worker's streams through its store follower; what each worker keeps in memory (rate limits,
the caps on tables in play) is its own.  SIGTERM or SIGINT to the first process is passed to
every worker, each stops gracefully; the process exits with 0 when all did.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import socket
import sys
import threading
from typing import Callable, Iterator

import uvicorn

from .app import ServiceConfig, create_app
from .coalesced_writes import CoalescingHTTPProtocol


class RedactQuery(logging.Filter):
    """Drop the query string from uvicorn's access-log lines (``args[2]`` is the full path)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], args[2].split("?", 1)[0], *args[3:])
        return True


class GracefulServer(uvicorn.Server):
    """uvicorn's server, which on SIGTERM or SIGINT first sets ``stopping`` (every open stream
    ends: uvicorn would otherwise wait for them for ever) and exits with 0 when done."""

    def __init__(self, config: uvicorn.Config, stopping: asyncio.Event):
        super().__init__(config)
        self.stopping = stopping

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets)
        settle_collector()

    async def shutdown(self, sockets=None) -> None:
        self.stopping.set()  # before uvicorn waits for the connections to close
        await super().shutdown(sockets)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """uvicorn's, without raising the signal again once stopped: a stop asked for by a
        signal, and done, is a clean exit (0), not death by that signal."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        original = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)


#: the collector's thresholds while serving (Python's default: 700, 10, 10): a request makes a few
#: thousand short-lived container objects, so the default runs a young-generation collection
#: several times per command, and promotes whatever a request in flight holds at that moment
GC_THRESHOLDS = (20_000, 20, 20)


def settle_collector() -> None:
    """Once the server has started (the application, its routes and the store are loaded):
    those long-lived objects are moved out of the collector's sight (``gc.freeze``, never
    freed, never scanned again by a full collection), and the collector runs less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def log_config(access_log: bool) -> dict:
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"redact": {"()": RedactQuery}},
        "formatters": {
            "default": {"()": "uvicorn.logging.DefaultFormatter", "fmt": "%(levelprefix)s %(message)s", "use_colors": None},
            "access": {"()": "uvicorn.logging.AccessFormatter", "fmt": '%(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s'},
        },
        "handlers": {
            "default": {"formatter": "default", "class": "logging.StreamHandler", "stream": "ext://sys.stderr"},
            "access": {"formatter": "access", "class": "logging.StreamHandler", "stream": "ext://sys.stdout", "filters": ["redact"]},
        },
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"handlers": ["access"], "level": "INFO" if access_log else "WARNING", "propagate": False},
            "tonk.service": {"handlers": ["default"], "level": "INFO", "propagate": False},
        },
    }


def _server(config: ServiceConfig, host: str, port: int, access_log: bool) -> GracefulServer:
    app = create_app(config)
    return GracefulServer(
        uvicorn.Config(
            app,
            host=host,
            port=port,
            http=CoalescingHTTPProtocol,  # a response's headers and body in one socket write
            log_config=log_config(access_log),
            access_log=access_log,
            timeout_keep_alive=30,
            limit_concurrency=2000,
            server_header=False,
            timeout_graceful_shutdown=config.shutdown_timeout,  # type: ignore[arg-type]  # any number of seconds (asyncio.wait_for)
        ),
        app.state.stopping,
    )


def serve(config: ServiceConfig, host: str, port: int, access_log: bool = True, workers: int = 1, announce: Callable[[str, int], None] | None = None) -> None:
    """Bind the port (``0``: one the system picks), tell ``announce`` the address bound, then
    serve on it: one server in this process, or ``workers`` forked ones.  A port that cannot be
    bound raises :class:`PortUnavailable` before anything is served."""
    sock = listening_socket(host, port)
    if announce is not None:
        announce(host, int(sock.getsockname()[1]))  # the port the system picked, for port 0
    if workers <= 1:
        try:
            _server(config, host, port, access_log).run(sockets=[sock])
        finally:
            sock.close()
        return
    children: list[int] = []
    parent = os.getpid()
    for _ in range(workers):
        pid = os.fork()
        if pid == 0:  # a worker: a whole server on the shared socket
            code = 1
            try:
                _stop_with(parent)
                _server(config, host, port, access_log).run(sockets=[sock])
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                logging.getLogger("tonk.service").exception("a worker of tonk serve failed")
            finally:
                os._exit(code)
        children.append(pid)
    sock.close()

    def stop(signum: int, frame: object) -> None:
        for child in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGTERM)

    original = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    failed = 0
    try:
        for child in children:
            while True:
                try:
                    _, status = os.waitpid(child, 0)
                    break
                except InterruptedError:  # pragma: no cover - PEP 475 retries
                    continue
            failed += os.waitstatus_to_exitcode(status) != 0
    finally:
        for sig, handler in original.items():
            signal.signal(sig, handler)
    if failed:
        raise SystemExit(1)


def _stop_with(parent: int) -> None:
    """A worker is sent SIGTERM (a graceful stop) when the first process dies, even killed
    (Linux's PR_SET_PDEATHSIG); elsewhere only a stop of the first process stops it."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it died before that was asked
        raise SystemExit(0)


class PortUnavailable(OSError):
    """The address to serve on cannot be bound (in use, not this machine's, not permitted)."""


def listening_socket(host: str, port: int) -> socket.socket:
    """The port bound once, before serving (and before workers are forked: they all accept on
    it), so the address in use is known and a busy port is refused before anything starts."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise PortUnavailable(f"cannot serve on host {host!r}: {exc.strerror}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise PortUnavailable(f"cannot serve on {host} port {port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock
