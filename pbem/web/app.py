"""The Flask app factory: `create_app()` for `pbem serve`, gunicorn (wsgi.py) and tests."""

import secrets
from importlib.resources import files

from flask import Flask, abort, request, session
from sqlalchemy.exc import OperationalError

from ..config import Settings, load
from ..signing import secret_keys
from ..store.states import store_for
from . import api, league_api, leagues, links, pages, tables


def create_app(cfg: Settings | None = None, store=None, testing: bool = False) -> Flask:
    cfg = cfg or load()
    folder = str(files("pbem.templates"))
    app = Flask("pbem", template_folder=folder, static_folder=None)
    keys = secret_keys(cfg)
    app.config.update(SECRET_KEY=keys[-1], SECRET_KEY_FALLBACKS=keys[:-1], TESTING=testing,
                      PBEM_SETTINGS=cfg, PBEM_KEYS=keys,
                      PBEM_STORE=store or store_for(cfg.database_url),
                      SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_HTTPONLY=True)
    app.before_request(_check_csrf)
    app.jinja_env.globals["csrf_token"] = csrf_token
    for bp in (pages.bp, tables.bp, links.bp, api.bp, leagues.bp, league_api.bp):
        app.register_blueprint(bp)
    app.register_error_handler(OperationalError, _database_away)
    return app


def _database_away(_e):
    """The database does not answer (a restart, a lost connection): say so, and when to
    come back, rather than fail; the next request tries again."""
    text = "The game store is not answering right now. Try again in a minute."
    if request.path.startswith("/api/"):
        return {"error": text}, 503, {"Retry-After": "60"}
    page = (f"<!doctype html><title>Try again soon</title><h1>Try again soon</h1>"
            f"<p>{text}</p>")
    return page, 503, {"Retry-After": "60", "Content-Type": "text/html; charset=utf-8"}


def csrf_token() -> str:
    """A per-browser secret every form carries back (the session cookie is signed)."""
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(16)
    return session["csrf"]


def _check_csrf():
    if request.method == "POST" and not request.path.startswith("/api/"):
        sent = request.form.get("csrf", "")
        if not sent or not secrets.compare_digest(sent, session.get("csrf", "")):
            abort(400, "This form has expired: go back, reload the page and try again.")
