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

from .. import logs
from .guard import MAX_BODY, mask

THREADS = 8  # requests served at once; more wait in waitress's queue
CONNECTIONS = 200  # open connections at once (waitress's connection_limit)
log = logging.getLogger("pbem.web.access")

Wsgi = Callable[[dict, Callable], Iterable[bytes]]


class Site:
    """A waitress server made by `make_server`: run() serves until stop().

    Waitress documents how to start a server (`serve`, `create_server(...).run()`) and no way
    to stop one from another thread (its `run()` returns on SystemExit or Ctrl-C in its own
    thread only). So stop() is ours where it can be: a WSGI layer of ours answers 503 to
    every request that reaches the app from then on and waits for those in it to finish (a
    move's write commits or rolls back whole); waitress's request threads then stay idle
    until the process ends (`pbem serve` ends right after stop()). Only the closing of the
    listening socket reaches an undocumented part, `server.trigger.pull_trigger(thunk)`, to
    run the server's public `close()` in the serving thread: called from here, `close()`
    closes the socket under that thread's select(), which then fails (EBADF) and ends
    run() with an error, or leaves it asleep on a closed socket until its timeout."""

    def __init__(self, app: Wsgi, **adjustments: object) -> None:
        self.busy, self.stopping = 0, False  # requests in the app; stop() was called
        self.calm = threading.Condition()
        self.server = create_server(self._counted(app), **adjustments)

    def run(self) -> None:
        self.server.run()

    def stop(self, wait: float = 5.0) -> None:
        """No request reaches the app any more; those in it finish (up to `wait` seconds);
        the listening socket is closed (the port is free, no connection is accepted)."""
        with self.calm:
            self.stopping = True
            self.calm.wait_for(lambda: self.busy == 0, timeout=wait)
        closed = threading.Event()

        def close() -> None:
            self.server.close()
            closed.set()

        try:
            self.server.trigger.pull_trigger(close)
        except OSError:  # its pipe already gone (seen 1 run in 10 of test_operator_log,
            pass  # cause not found): close from here, as when nothing serves
        if not closed.wait(5):  # not serving: nothing selects on it
            self.server.close()

    def _counted(self, app: Wsgi) -> Wsgi:
        """`app`, counting the requests in it, and refusing them once the site stops."""
        def counted(environ: dict, start_response: Callable) -> Iterable[bytes]:
            with self.calm:
                if self.stopping:
                    start_response("503 Service Unavailable", [
                        ("Content-Type", "text/plain; charset=utf-8"), ("Retry-After", "10")])
                    return [b"The server is restarting: try again in a moment.\n"]
                self.busy += 1
            try:
                return app(environ, start_response)  # pages are made here, not iterated
            finally:
                with self.calm:
                    self.busy -= 1
                    self.calm.notify_all()

        return counted


def make_server(host: str, port: int, app: Wsgi, threads: int = THREADS) -> Site:
    return Site(access_log(app), host=host, port=port, threads=max(1, min(threads, 64)),
                connection_limit=CONNECTIONS, ident="pbem",
                max_request_body_size=MAX_BODY + 1,
                # a proxy's X-Forwarded-For reaches the app (as under gunicorn): /metrics
                # then knows a proxied request is not loopback's
                clear_untrusted_proxy_headers=False)


def access_log(app: Wsgi) -> Wsgi:
    """A WSGI middleware writing a line a request, as Werkzeug's server did, keys masked."""
    if not log.handlers and not logs.configured():  # else through pbem.logs' handler
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
