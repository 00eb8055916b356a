"""The web server of `pbem serve`: waitress (pure Python, made for production) through its
public `create_server` and documented adjustments, with an access log that never writes a
key.

A body larger than MAX_BODY is waitress's own 413 (`max_request_body_size`): announced by
its Content-Length, it is refused as soon as the headers are read, before any of it is
read; sent chunked, once it grows past the limit. Either way the connection closes and the
app never sees the request (so the access log below has no line for it).

    site = make_server(host, port, app)   # then site.run() in a thread; stop() to end
"""

import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable

from waitress import create_server

from .guard import MAX_BODY, mask

THREADS = 8  # requests served at once; more wait in waitress's queue
CONNECTIONS = 200  # open connections at once (waitress's connection_limit)
log = logging.getLogger("pbem.web.access")

Wsgi = Callable[[dict, Callable], Iterable[bytes]]


class Site:
    """A waitress server made by `make_server`: run() serves until stop()."""

    def __init__(self, server) -> None:
        self.server = server

    def run(self) -> None:
        self.server.run()

    def stop(self) -> None:
        """No new connections, and the requests waiting for a thread dropped. The socket is
        closed in the serving thread (waitress's trigger runs it there): closed from here,
        that thread's select() would fail on it."""
        closed = threading.Event()

        def close() -> None:
            self.server.close()
            closed.set()

        self.server.trigger.pull_trigger(close)
        if not closed.wait(5):  # not serving: nothing selects on it
            self.server.close()
        self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)


def make_server(host: str, port: int, app: Wsgi, threads: int = THREADS) -> Site:
    return Site(create_server(access_log(app), host=host, port=port,
                              threads=max(1, min(threads, 64)), connection_limit=CONNECTIONS,
                              ident="pbem", max_request_body_size=MAX_BODY + 1))


def access_log(app: Wsgi) -> Wsgi:
    """A WSGI middleware writing a line a request, as Werkzeug's server did, keys masked."""
    if not log.handlers:
        log.addHandler(logging.StreamHandler(sys.stderr))
        log.setLevel(logging.INFO)
        log.propagate = False

    def logged(environ: dict, start_response: Callable) -> Iterable[bytes]:
        def start(status: str, headers: list[tuple[str, str]], exc_info=None):
            log.info("%s", mask(access_line(environ, status, headers)))
            return start_response(status, headers, exc_info)

        return app(environ, start)

    return logged


def access_line(environ: dict, status: str, headers: list[tuple[str, str]]) -> str:
    """Werkzeug's line: `ADDR - - [TIME] "METHOD PATH?QUERY PROTOCOL" STATUS SIZE`."""
    size = next((v for k, v in headers if k.lower() == "content-length"), "-")
    query = environ.get("QUERY_STRING")
    path = environ.get("PATH_INFO", "") + (f"?{query}" if query else "")
    return (f'{environ.get("REMOTE_ADDR", "-")} - - [{time.strftime("%d/%b/%Y %H:%M:%S")}] '
            f'"{environ.get("REQUEST_METHOD")} {path} {environ.get("SERVER_PROTOCOL")}" '
            f'{status.split()[0]} {size}')
