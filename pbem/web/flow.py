"""Post/Redirect/Get (issue 18): a POST from a page's form answers 303 to a page, and what
it has to say (a notice, an error, the form as sent with each field's error) rides in the
session to that page's next GET, once. Reloading the page after a move shows the table
again instead of sending the move a second time. A GET on an address that takes only POST
(a bookmark of /t/KEY/move) is sent on to the nearest page above it (/t/KEY).

What waits is filed under a hash of the page's path, so a page's key never sits in the
cookie, and a notice for one seat's table never shows on another's."""

import hashlib
import json
from urllib.parse import urlsplit

from flask import current_app, g, redirect, render_template, request, session
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from .guard import error_page

KEY = "flow"
MAX_PAGES = 3  # pages with something waiting in one browser's session
MAX_VALUE = 300  # characters of each form value or message carried
MAX_FIELDS = 30
# what all that waits may take of the cookie, as JSON: a browser drops a cookie past 4 KB,
# and the session (its CSRF key) with it; the longest form values give way first
BUDGET = 2000


class FormError(ValueError):
    """A refusal of one field of a form: shown beside that field."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def _slot(path: str) -> str:
    return hashlib.sha256(path.encode()).hexdigest()[:16]


def to(url: str, notice: str | None = None, error: str | None = None, form=None,
       errors: dict | None = None, **page) -> object:
    """303 to `url`; its next GET finds `notice`, `error`, the form and its errors, and any
    `page` values (small, JSON-able) in `carried()`."""
    entry = {k: v for k, v in dict(page, notice=_cut(notice), error=_cut(error),
                                   form=_bounded(form), errors=_bounded(errors)).items() if v}
    waiting = dict(session.get(KEY) or {})
    slot = _slot(urlsplit(url).path)
    waiting.pop(slot, None)
    if entry:
        waiting[slot] = _fit(entry)
    kept: dict[str, dict] = {}
    for k, v in reversed(list(waiting.items())[-MAX_PAGES:]):  # the newest, always; then
        if not kept or _size(kept) + _size({k: v}) <= BUDGET:  # older ones while they fit
            kept[k] = v
    session[KEY] = dict(reversed(kept.items()))
    return redirect(url, 303)


def told(title: str, text: str, status: int = 200) -> object:
    """303 back to this address; its next GET shows the message (the outcome of a link's
    button) in place of the page, once."""
    return to(request.path, told=[title, text, status])


def _cut(text):
    return text[:MAX_VALUE] if isinstance(text, str) else text


def _bounded(form) -> dict | None:
    if not form:
        return None
    return {k[:40]: str(v)[:MAX_VALUE] for k, v in list(form.items())[:MAX_FIELDS]
            if k != "csrf"}


def _size(value) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode())


def _fit(entry: dict) -> dict:
    """`entry` within the budget: its longest form values emptied first (the errors and
    the notice stay)."""
    form = dict(entry.get("form") or {})
    while form and _size(dict(entry, form=form)) > BUDGET:
        longest = max(form, key=lambda k: len(form[k]))
        if not form[longest]:
            break
        form[longest] = ""
    return dict(entry, form=form) if "form" in entry else entry


def carried() -> dict:
    """What the POST before left for this page (taken once, on a GET)."""
    if "flow_carried" not in g:
        g.flow_carried = {}
        waiting = (session.get(KEY) or {}) if request.method == "GET" else {}
        slot = _slot(request.path)
        if slot in waiting:  # a GET only: a HEAD (a link checker's) takes nothing
            waiting = dict(waiting)
            g.flow_carried = waiting.pop(slot)
            session[KEY] = waiting
    return g.flow_carried


def _show_told():
    """A link's outcome, shown once at its own address (see `told`)."""
    message = carried().get("told") if request.method == "GET" else None
    if message:
        title, text, status = message
        return render_template("web/message.html", title=title, text=text), status
    return None


def page_above(path: str) -> str:
    """The nearest address above `path` that a GET opens ("/" at the last)."""
    adapter = current_app.url_map.bind_to_environ(request.environ)
    parts = path.rstrip("/").split("/")
    while len(parts) > 1:
        parts.pop()
        above = "/".join(parts) or "/"
        try:
            adapter.match(above, method="GET")
            return above
        except HTTPException:
            continue
    return "/"


def _get_on_post_only(e: MethodNotAllowed):
    if request.method in ("GET", "HEAD") and not request.path.startswith("/api/"):
        return redirect(page_above(request.path), 303)
    return error_page(e)  # PUT, DELETE...: the site's 405 page


def install(app) -> None:
    app.jinja_env.globals["carried"] = carried
    app.before_request(_show_told)
    app.register_error_handler(MethodNotAllowed, _get_on_post_only)
