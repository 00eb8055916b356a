"""The web server of `pbem serve`: waitress (pure Python, made for production), with an
access log that never writes a key, and a 413 for a body announced too large before any
of it is read.

    site = make_server(host, port, app)   # then site.run() in a thread; stop() to end
"""

import logging
import sys
import time

from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import TcpWSGIServer

from .guard import MAX_BODY, mask

THREADS = 8  # requests served at once; more wait in waitress's queue
CONNECTIONS = 200  # open connections at once (waitress's connection_limit)
log = logging.getLogger("pbem.web.access")


class _Parser(HTTPRequestParser):
    """waitress reads a request's whole body before the app sees it; a body announced past
    the app's limit is not read at all: the app answers 413 from its Content-Length, and the
    connection closes after that answer (the unread body must not be taken for a request)."""

    def parse_header(self, header_plus):
        super().parse_header(header_plus)
        if not self.chunked and self.content_length > MAX_BODY:
            self.body_rcv, self.content_length = None, 0
            self.headers["CONNECTION"] = "close"
            self.connection_close = True


class _Channel(HTTPChannel):
    parser_class = _Parser


class _Server(TcpWSGIServer):
    channel_class = _Channel

    def stop(self) -> None:
        self.close()
        self.task_dispatcher.shutdown(cancel_pending=True, timeout=5)


def access_log(app):
    """A WSGI middleware writing a line a request, as Werkzeug's server did, keys masked."""
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False

    def logged(environ, start_response):
        def start(status, headers, exc_info=None):
            size = next((v for k, v in headers if k.lower() == "content-length"), "-")
            path = environ.get("PATH_INFO", "") + (
                "?" + environ["QUERY_STRING"] if environ.get("QUERY_STRING") else "")
            line = (f'{environ.get("REMOTE_ADDR", "-")} - - '
                    f'[{time.strftime("%d/%b/%Y %H:%M:%S")}] '
                    f'"{environ.get("REQUEST_METHOD")} {path} '
                    f'{environ.get("SERVER_PROTOCOL")}" {status.split()[0]} {size}')
            log.info("%s", mask(line))
            return start_response(status, headers, exc_info)

        return app(environ, start)

    return logged


def make_server(host: str, port: int, app, threads: int = THREADS) -> _Server:
    return _Server(access_log(app), host=host, port=port, threads=max(1, min(threads, 64)),
                   connection_limit=CONNECTIONS, ident="pbem",
                   max_request_body_size=MAX_BODY + 1)  # a chunked body: waitress's 413
