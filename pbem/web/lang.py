"""The language of a page (issue 32): the signed-in player's `lang` setting, else the
visitor's own choice (a cookie, from the language menu of the home pages), else what the
browser asks for (Accept-Language), else English. Every request runs in its language
(`pbem.i18n.set_current`), so `_()` in Python and `{% trans %}`/`_()` in templates give its
words; each page says its language (`<html lang>`, Content-Language). docs/translating.md.
"""

import re
from contextvars import Token

from flask import Blueprint, Flask, g, make_response, redirect, request, session

from .. import i18n
from ..store import prefs
from . import data, flow
from .signin import signed_in

bp = Blueprint("lang", __name__)
COOKIE = "lang"
# a path of this site, with its query: never "//host" or "/\\host" (another site)
_LOCAL = re.compile(r"/(?![/\\])[A-Za-z0-9_.~\-/?=&%]{0,2100}")
YEAR = 365 * 24 * 3600
MACHINE = ("/api/", "/healthz", "/readyz", "/metrics", "/live.js")


def choose() -> str:
    """This request's language (a shipped one)."""
    player = signed_in() if "player" in session else None
    if player is not None and (player.prefs or {}).get("lang"):
        return prefs.language(player)
    cookie = request.cookies.get(COOKIE, "")[:20]
    if cookie in i18n.LANGUAGES:
        return cookie
    return request.accept_languages.best_match(list(i18n.LANGUAGES)) or i18n.DEFAULT


def _enter() -> None:
    # what machines ask (JSON, health, a table's poll of its move number) shows no words:
    # English, and no read of the player for it
    machine = request.path.startswith(MACHINE) or request.path.endswith("/seq")
    g.lang_token = i18n.set_current(i18n.DEFAULT if machine else choose())


def _leave(_exc: BaseException | None) -> None:
    token: Token[str] | None = g.pop("lang_token", None)
    if token is not None:
        i18n.reset_current(token)


def _label(response):
    response.headers["Content-Language"] = i18n.current()
    response.vary.update(("Cookie", "Accept-Language"))  # a shared cache keeps each apart
    return response


@bp.post("/lang")
def set_language():
    """The language menu: a visitor's choice in a cookie, a signed-in player's also in their
    settings (their mails follow it). Back to the page it was chosen on."""
    lang = request.form.get("lang", "")[:20]
    back = local_path(request.form.get("next", ""))
    if lang not in i18n.LANGUAGES:
        return flow.to(back, error=i18n._("That language is not one of this site's."))
    player = signed_in()
    if player is not None:
        prefs.update(data.store(), player.id, lang=lang)
    response = make_response(redirect(back, 303))
    response.set_cookie(COOKIE, lang, max_age=YEAR, samesite="Lax", httponly=True,
                        secure=request.is_secure)
    return response


def local_path(path: str) -> str:
    """A page of this site to go back to ("/" for anything else: no open redirect)."""
    return path if _LOCAL.fullmatch(path) else "/"


def install(app: Flask) -> None:
    """Before the other hooks, so their error pages speak the request's language too."""
    app.jinja_env.add_extension("jinja2.ext.i18n")
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        i18n.gettext, i18n.ngettext, newstyle=True, pgettext=i18n.pgettext)
    app.jinja_env.globals["lang"] = i18n.current
    app.jinja_env.globals["languages"] = i18n.LANGUAGES
    app.jinja_env.globals["here"] = lambda: request.full_path.rstrip("?")
    app.before_request(_enter)
    app.teardown_request(_leave)
    app.after_request(_label)
    app.register_blueprint(bp)
