"""Web push on the pages (issue 35): the service worker `/sw.js` and the small script that
subscribes (`/push.js`), both the site's own files (the CSP allows no other script); the
forms they post, at a seat's table (`/t/TOKEN/push`) and on the signed-in home page
(`/home/push`): `do=on` with the browser's subscription, `do=off` with its endpoint, `do=all`
(home only) turns every browser of the player off. pbem.store.push checks and keeps them."""

from importlib.resources import files

from flask import Blueprint, abort, current_app, make_response, redirect, request, url_for

from ..i18n import _
from ..store import push
from . import data, flow
from .home import back
from .signin import signed_in

bp = Blueprint("push", __name__)

STATIC = files("pbem.web") / "static"


def key() -> str:
    """The site's VAPID public key for the page ('' without one: no push button)."""
    return push.public_key(current_app.config["PBEM_SETTINGS"].vapid_key)


def install(app) -> None:
    app.jinja_env.globals["push_key"] = key
    app.register_blueprint(bp)


def _script(name: str):
    response = make_response((STATIC / name).read_bytes())
    response.headers["Content-Type"] = "text/javascript; charset=utf-8"
    response.headers["Cache-Control"] = "no-cache"  # a new worker reaches browsers at once
    return response


@bp.get("/sw.js")
def worker():
    return _script("sw.js")


@bp.get("/push.js")
def script():
    return _script("push.js")


def _act(player_id: int, may_all: bool) -> tuple[str | None, str | None]:
    """(notice, error) of the form's `do`."""
    form, store = request.form, data.store()
    what = form.get("do", "")
    if what == "on":
        try:
            push.subscribe(store, player_id, push.Subscription(
                form.get("endpoint", ""), form.get("p256dh", ""), form.get("auth", "")),
                current_app.config["PBEM_SETTINGS"])
        except push.PushRefused as e:
            return None, str(e)
        return _("This browser now tells you when it is your turn."), None
    if what == "off" and form.get("endpoint"):
        push.unsubscribe(store, player_id, form["endpoint"])
        return _("This browser no longer tells you when it is your turn."), None
    if what == "all" and may_all:
        push.unsubscribe(store, player_id)
        return _("No browser tells you when it is your turn any more."), None
    return None, _("Nothing was changed.")


@bp.post("/t/<token>/push")
def at_table(token):
    seat = data.seat_for(token)
    if seat.player_id is None:
        abort(404)  # a robot's seat
    notice, error = _act(seat.player_id, may_all=False)
    return flow.to(url_for("tables.table", token=token), notice=notice, error=error)


@bp.post("/home/push")
def at_home():
    player = signed_in()
    if player is None:
        return redirect(url_for("signin.signin"), 303)
    notice, error = _act(player.id, may_all=True)
    return back(notice=notice, error=error)
