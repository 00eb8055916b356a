"""What every request is held to and every response carries (issue 12, "Open to the
internet"): a size limit, ids a database column can hold, strict headers, no caching or
Referer for pages whose address is a key, error pages for people, and access logs that
never write a key."""

import logging
import re

from flask import Response, abort, jsonify, make_response, render_template, request
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException
from werkzeug.routing import BaseConverter, IntegerConverter

from ..i18n import N_, _
from ..store.masking import SECRET_PATH, MaskKeys, mask

log = logging.getLogger(__name__)
MAX_BODY = 64 * 1024  # the largest form (a league's, with rule options) is a few KB
MAX_ID = 2**31 - 1  # PostgreSQL's integer; a larger id names nothing (404, never a 500)
# one script, served by the site itself (/live.js: a table follows its game); no inline one
CSP = ("default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; "
       "img-src 'self' data:; form-action 'self'; frame-ancestors 'none'")


class IdConverter(IntegerConverter):
    """`<int:...>` for this site: at most ten digits and at most MAX_ID, so a huge id
    matches no route (404) instead of overflowing the database's integer (a 500)."""

    regex = r"[0-9]{1,10}"  # (\d would take other scripts' digits)

    def __init__(self, map, fixed_digits=0, min=None, max=MAX_ID, signed=False):
        super().__init__(map, fixed_digits, min, max, signed)


class KeyConverter(BaseConverter):
    """A path's key (a seat's token, a signed move link, a league's links): URL-safe
    characters only, at most 512, so anything else is a plain 404 (a NUL byte would be a
    500 on PostgreSQL)."""

    regex = r"[A-Za-z0-9_.\-]{1,512}"


class LinkConverter(KeyConverter):
    """`<link:...>`: a mailed confirmation's key, which carries the request it confirms
    (pbem.asks.MAX_LINK characters at most)."""

    regex = r"[A-Za-z0-9_.\-]{1,2000}"


AWAY = (OperationalError, PoolTimeout)  # SQLAlchemy's errors for a database not answering


CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def install(app, secure_cookie: bool, driver_error: type[Exception] = OperationalError) -> None:
    """Before any blueprint is registered (rules take their converters when added).
    `driver_error`: the database driver's own OperationalError (psycopg's, sqlite3's),
    which reaches a page unwrapped from SQL run outside SQLAlchemy's execution."""
    app.url_map.converters.update(int=IdConverter, default=KeyConverter, link=LinkConverter)
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY, SESSION_COOKIE_SECURE=secure_cookie)
    app.before_request(refuse_controls)
    app.after_request(headers)
    app.register_error_handler(HTTPException, error_page)
    for away in (*AWAY, driver_error):  # one answer, whatever layer raised it
        app.register_error_handler(away, database_away)
    mask_access_log()  # `flask run` (Werkzeug's server) logs the path as it came
    mask_logs(app)


def refuse_controls():
    """No one types a NUL or an escape into a form: refuse such a POST whole (the database
    may not even store it)."""
    if request.method == "POST" and any(CONTROLS.search(v) for _, v
                                        in request.form.items(multi=True)):  # every value
        abort(400, _("The form held characters no one types (control characters): nothing "
                     "was changed."))


def holds_key() -> bool:
    """Does this request's address carry a key (so it must not be cached or leak)?"""
    args = request.view_args or {}
    return (any("token" in k for k in args) or "token" in request.args
            or bool(SECRET_PATH.match(request.path)))


def headers(response):
    h = response.headers
    h["Content-Security-Policy"] = CSP
    h["X-Content-Type-Options"] = "nosniff"
    h["Referrer-Policy"] = "no-referrer"  # no page needs to tell another where it came from
    if holds_key():
        h["Cache-Control"] = "no-store"
    return response


TEXTS = {  # each page's title and words, translated where shown (N_: marked here)
    400: (N_("That did not work"), N_("The request was not understood, and nothing was "
                                      "changed.")),
    403: (N_("Not yours"), N_("This page is not for you: if a link of yours led here, use the "
                              "newest mail about it. Nothing was changed.")),
    404: (N_("Not found"), N_("There is no such page. The link may be mistyped or out of date, "
                              "or the game is private.")),
    405: (N_("Not here"), N_("This address does not take that kind of request: use the "
                             "buttons on the page.")),
    409: (N_("Already done"), N_("That was done already, or the game has moved on since the "
                                 "page was shown: nothing was changed. Reload the page to see "
                                 "it as it is.")),
    429: (N_("Too many"), N_("This site has sent as much mail as it may for now: try again in "
                             "an hour. Nothing was sent or changed.")),
    413: (N_("Too large"), N_("That was more than this site takes (%(kb)s KB): nothing was "
                              "read or saved. Shorten it and try again.")),
    500: (N_("Something went wrong"), N_("Something went wrong on our side and nothing was "
                                         "changed. Please try again in a while.")),
}


def error_page(e: HTTPException):
    """An error in the site's own page (or JSON under /api/), never Werkzeug's bare one.
    Our own abort(400, "why") keeps its words; Werkzeug's stock texts are replaced."""
    code = e.code or 500
    title, text = TEXTS.get(code, (e.name, N_("That did not work.")))
    title, text = _(title), _(text)
    if code == 413:
        text %= {"kb": MAX_BODY // 1024}
    if e.description and e.description != type(e).description:
        text = e.description  # our own abort's words, translated where it was called
    response = message(code, title, text)
    for key, value in e.get_headers():
        if key.lower() in ("allow", "retry-after"):  # a 405 says what the address takes
            response.headers[key] = value
    return response


def database_away(e: Exception):
    """The database does not answer (a restart, a lost connection, a silent host, every
    pooled connection busy): say so and when to come back, rather than fail; the next
    request tries again. The log says what and where, keys masked, and not the error's
    text (it may quote a statement)."""
    log.warning("the database is not answering (%s): 503 for %s %s", type(e).__name__,
                request.method, mask(request.path))
    response = message(503, _("Try again soon"),
                       _("The game store is not answering: try again in a minute."))
    response.headers["Retry-After"] = "60"
    return response


def message(code: int, title: str, text: str) -> Response:
    """The site's page saying `title` and `text` (JSON under /api/), with status `code`."""
    if request.path.startswith("/api/"):
        return make_response(jsonify(error=title, message=text, status=code), code)
    return make_response(render_template("web/message.html", title=title, text=text), code)


def mask_logs(app) -> None:
    """Every line Flask logs for the site (an unexpected error's, its traceback) masked,
    whatever handler writes it (a logger's filter sees each line logged on it)."""
    if not any(isinstance(f, MaskKeys) for f in app.logger.filters):
        app.logger.addFilter(MaskKeys())


def mask_access_log() -> None:
    log = logging.getLogger("werkzeug")
    if not any(isinstance(f, MaskKeys) for f in log.filters):
        log.addFilter(MaskKeys())
