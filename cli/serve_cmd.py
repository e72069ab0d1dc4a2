"""``tonk serve``: the table service (HTTP + SSE) over the event store.

Litestar and uvicorn come with the extra ``serve`` (``pip install 'tonk[serve]'``)
and are imported only when the command runs, so ``tonk --help`` stays fast.
"""

from __future__ import annotations

from typing import Optional

import typer

from .app import app, fail, settings
from .options import db_option


@app.command("serve")
def serve_cmd(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", "--host", metavar="ADDRESS", help="Address to bind (loopback unless told otherwise)."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, metavar="PORT", help="TCP port."),
    rate: float = typer.Option(50.0, "--rate", min=0, metavar="N", help="Requests per second per seat token (0: no limit)."),
    public_rate: float = typer.Option(
        1.0, "--public-rate", min=0, metavar="N", help="Requests per second per client address on the routes without a token: creating and listing tables, spectating, replays, audits, adjudicating (0: no limit)."
    ),
    public_burst: int = typer.Option(30, "--public-burst", min=1, metavar="N", help="Requests a client address may make at once before --public-rate holds it back."),
    max_tables: int = typer.Option(500, "--max-tables", min=0, metavar="N", help="Tables in play on the server; a table over it is refused with 503 until a game ends (0: no cap)."),
    max_tables_per_client: int = typer.Option(
        20, "--max-tables-per-client", min=0, metavar="N", help="Tables in play that one client address may have created; over it 429 until one ends (0: no cap)."
    ),
    keepalive: float = typer.Option(10.0, "--keepalive", min=0.05, max=15, metavar="SECONDS", help="Seconds between keep-alive comments on a quiet stream."),
    stream_timeout: float = typer.Option(10.0, "--stream-timeout", min=0.1, metavar="SECONDS", help="Seconds a stream write may take before the client counts as not reading and is dropped."),
    shutdown_timeout: float = typer.Option(5.0, "--shutdown-timeout", min=0, max=3600, metavar="SECONDS", help="On SIGTERM or SIGINT: seconds for commands in flight to finish and open streams to end (each told the server stops, so its client reconnects) before the rest is cut off; then tonk serve exits with 0."),
    durable: bool = typer.Option(True, "--durable/--no-durable", help="Show nothing before it is on disk: each answer and stream event waits for an fsync that covers the commits it shows (on SQLite a group commit: one fsync of the WAL for the commands that arrive together; survives a power cut); or --no-durable, without waiting for the disk (survives a crash of tonk; faster)."),
    workers: int = typer.Option(
        1,
        "--workers",
        min=1,
        max=64,
        metavar="N",
        help="Worker processes serving the store together on the port (a SQLite store in WAL mode, or PostgreSQL); rate limits and the caps on tables in play are counted by each worker.",
    ),
    access_log: bool = typer.Option(True, "--access-log/--no-access-log", help="Log each request (method, path without query, status; never a token)."),
    db: Optional[str] = db_option(),
) -> None:
    """Serve tables over HTTP: people play from their own machines, bots are played by the server.

    SIGTERM or Ctrl-C stops it gracefully: it takes no new connection, every open stream is
    told the server stops (an SSE 'shutdown' message) and ends, commands in flight finish, and
    it exits with 0 within --shutdown-timeout seconds (and the store is closed)."""
    try:
        import litestar  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise fail("tonk serve needs the extra 'serve': pip install 'tonk[serve]'") from None
    from ..service.app import ServiceConfig
    from ..service.server import PortUnavailable, serve
    from ..storage import StoreError
    from ..storage.open import describe, is_memory, open_store

    import os

    if workers > 1 and not hasattr(os, "fork"):
        raise fail("--workers more than 1 needs a system that can fork (Linux, macOS); serve with one process here")
    db = settings(ctx).db
    if workers > 1 and is_memory(db):  # each process would hold its own, different store
        raise fail("--workers more than 1 needs a store the processes share (a SQLite file or PostgreSQL), not :memory:")
    try:  # refuse a store the server cannot use before it starts, changing nothing in it: not
        # a tonk store, or one whose write lock cannot be taken (a PostgreSQL role that may only
        # read, refused at the first write: the served tables, made at the server's start)
        with open_store(db) as store, store.evidence(write=True) as log:
            log.size()
    except StoreError as exc:
        raise fail(str(exc)) from None
    config = ServiceConfig(
        db=db,
        rate=rate,
        burst=max(int(rate * 2), 10),
        public_rate=public_rate,
        public_burst=public_burst,
        max_tables=max_tables,
        max_tables_per_client=max_tables_per_client,
        keepalive=keepalive,
        write_timeout=stream_timeout,
        durable=durable,
        shutdown_timeout=shutdown_timeout,
        workers=workers,
    )

    def announce(bound_host: str, bound_port: int) -> None:
        typer.echo(f"tonk serve: http://{bound_host}:{bound_port} (store {describe(db)}; API at /schema)", err=True)

    try:
        serve(config, host, port, access_log, workers, announce)
    except PortUnavailable as exc:
        raise fail(str(exc)) from None
