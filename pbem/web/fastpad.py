"""The score pad's fast lane (issue 15): GET /g/ID from a browser without a session cookie
(a reader not signed in, a mail scanner, a crawler) is answered from the rendered pads
(pbem.web.pad_cache) before Flask sees it: no request context, session, routing or hooks,
only the one read of what the page depends on (pbem.web.data.head). Anything else (a
session cookie, a pad not rendered yet, a private or unknown game, a query string) goes to
the app, which answers as before and renders the pad into the cache. The headers are the
app's own for the page (pages._tagged, guard.headers); a test holds the two alike."""

import re

from werkzeug.http import parse_etags

from . import data, guard, pad_cache
from .guard import AWAY, CSP, MAX_ID

PATH = re.compile(r"/g/([0-9]{1,10})\Z")
FIXED = [("Cache-Control", "no-cache"), ("Vary", "Cookie"), ("Content-Security-Policy", CSP),
         ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")]


class FastPad:
    """WSGI middleware in front of the Flask app `app` (its `wsgi_app` is `inner`)."""

    def __init__(self, app, inner):
        self.app, self.inner = app, inner
        self.cookie = app.config["SESSION_COOKIE_NAME"]

    def __call__(self, environ, start_response):
        try:
            answer = self.answer(environ)
        except AWAY as e:  # the app answers with its 503 page, not after a second wait
            environ[guard.AWAY_KEY], answer = e, None
        except Exception:  # the app answers it with its own page
            answer = None
        if answer is None:
            return self.inner(environ, start_response)
        status, headers, body = answer
        start_response(status, headers)
        return [body]

    def answer(self, environ) -> tuple[str, list, bytes] | None:
        if environ.get("REQUEST_METHOD") != "GET" or environ.get("QUERY_STRING"):
            return None
        match = PATH.match(environ.get("PATH_INFO", ""))
        if match is None or self.cookie in environ.get("HTTP_COOKIE", ""):
            return None  # any cookie named like the session's: the app decides who reads
        game_id = int(match.group(1))
        store = self.app.config["PBEM_STORE"]
        head = data.read_head(store, game_id) if game_id <= MAX_ID else None
        if head is None or not head[0]:
            return None  # the app's 404
        k = pad_cache.key(store.url, game_id, head[1], head[2], False)
        body = pad_cache.body(k)
        if body is None:
            return None
        tag = pad_cache.etag(k)
        headers = [("ETag", f'"{tag}"'), *FIXED]
        if parse_etags(environ.get("HTTP_IF_NONE_MATCH")).contains(tag):
            return "304 NOT MODIFIED", headers, b""
        return "200 OK", [("Content-Type", "text/html; charset=utf-8"),
                          ("Content-Length", str(len(body))), *headers], body
