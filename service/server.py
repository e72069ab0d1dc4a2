"""Running the service under uvicorn, with an access log that never shows a secret.

The access log prints the method, the path without its query string, and the
status: tokens travel in the ``Authorization`` header or a cookie (never
logged), and a token someone puts in a query string is cut off with it.
"""

from __future__ import annotations

import logging

from .app import ServiceConfig, create_app


class RedactQuery(logging.Filter):
    """Drop the query string from uvicorn's access-log lines (``args[2]`` is the full path)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], args[2].split("?", 1)[0], *args[3:])
        return True


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


def serve(config: ServiceConfig, host: str, port: int, access_log: bool = True) -> None:
    import uvicorn

    uvicorn.run(
        create_app(config),
        host=host,
        port=port,
        log_config=log_config(access_log),
        access_log=access_log,
        timeout_keep_alive=30,
        limit_concurrency=2000,
        server_header=False,
    )
