"""The Flask app factory: `create_app()` for `pbem serve`, gunicorn (wsgi.py) and tests."""

import secrets
from importlib.resources import files
from pathlib import Path

from flask import Flask, abort, request, session
from flask.sessions import SecureCookieSessionInterface

from ..config import Settings, load
from ..engine.view import plural
from ..i18n import _
from ..signing import secret_keys
from ..store.states import store_for
from . import (
    account_link,
    api,
    calendar,
    care,
    data,
    flow,
    guard,
    health,
    home,
    invites,
    lang,
    league_api,
    leagues,
    links,
    live,
    my_data,
    newgame,
    newleague,
    organiser_acts,
    pad_cache,
    pages,
    push,
    seeks,
    signin,
    table_acts,
    tables,
    unsubscribe,
    words,
)

TEMPLATES = files("pbem.templates")
SOURCE = Path(__file__).resolve().parent.parent  # the pbem package


def create_app(cfg: Settings | None = None, store=None, testing: bool = False) -> Flask:
    cfg = cfg or load()
    folder = Path(str(TEMPLATES))
    app = Site("pbem", template_folder=str(folder), static_folder=None)
    app.extensions["pbem.pads"] = pad_cache.Pads(pad_cache.code_digest(folder, SOURCE))
    app.session_interface = Sessions()
    keys = secret_keys(cfg)
    store = store or store_for(cfg.database_url)
    app.config.update(SECRET_KEY=keys[-1], SECRET_KEY_FALLBACKS=keys[:-1], TESTING=testing,
                      PBEM_SETTINGS=cfg, PBEM_KEYS=keys, PBEM_STORE=store,
                      SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_HTTPONLY=True)
    signin.configure(app)
    lang.install(app)  # first: every hook after it, and every error page, speaks its language
    guard.install(app, secure_cookie=cfg.base_url.lower().startswith("https://"),
                  driver_error=store.engine.dialect.dbapi.OperationalError)
    app.before_request(_check_csrf)
    app.after_request(_no_store_redirects)
    flow.install(app)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.filters["plural"] = plural  # "1 bag", "2 bags"
    app.jinja_env.globals.update(bid_text=words.bid_text, status_words=words.status_words,
                                 duration=words.duration)
    app.jinja_env.globals["site_links"] = cfg.site_links  # the footer's privacy, terms
    app.jinja_env.globals["signed_in"] = lambda: "player" in session  # the header's link
    for bp in (pages.bp, newgame.bp, tables.bp, links.bp, care.bp, unsubscribe.bp, api.bp,
               leagues.bp, newleague.bp, league_api.bp, signin.bp, home.bp, live.bp,
               table_acts.bp, organiser_acts.bp, invites.bp, account_link.bp, health.bp,
               my_data.bp, seeks.bp, calendar.bp):
        app.register_blueprint(bp)
    push.install(app)  # its key for the pages, its worker, script and forms
    return app


class Site(Flask):
    """Flask, whose log of an unhandled error names the path with its keys masked (Flask's
    own writes `Exception on /t/<the seat's token> [GET]`)."""

    def log_exception(self, exc_info) -> None:
        self.logger.error("Exception on %s [%s]", guard.mask(request.path), request.method,
                          exc_info=exc_info)


class Sessions(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, with its serializer made once per set of keys:
    Flask made a new one for every request, a tenth of a cached page's time."""

    _made = None

    def get_signing_serializer(self, app):
        data.keys(app)  # a rotated key file: the cookie's keys follow it
        keys = (app.secret_key, tuple(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        if self._made is None or self._made[0] != keys:
            self._made = (keys, super().get_signing_serializer(app))
        return self._made[1]


def csrf_token() -> str:
    """A per-browser secret every form carries back (the session cookie is signed)."""
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(16)
    return session["csrf"]


def _no_store_redirects(response):
    """A redirect is never kept: a cached one (/home to /signin) would outlive the session
    it was made for, and some carry a notice or a key's page in their Location."""
    if 300 <= response.status_code < 400 and response.status_code != 304:
        response.headers["Cache-Control"] = "no-store"
    return response


def _check_csrf():
    # the API takes no forms; a one-click unsubscribe comes from a mail provider, keyed by
    # its signed link (RFC 8058)
    if request.method == "POST" and not request.path.startswith(("/api/", "/u/")):
        sent = request.form.get("csrf", "")
        if not sent or not secrets.compare_digest(sent, session.get("csrf", "")):
            abort(400, _("This form has expired: go back, reload the page and try again."))
