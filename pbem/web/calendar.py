"""A player's calendar feed on the web (issue 35): GET /cal/TOKEN.ics, the feed
(pbem.calendar_feed) for whoever holds the secret address, no sign-in (a calendar service
fetches it); and from the home page, signed in, POST /home/calendar to make a new address
or to turn the feed off. A new address is carried (in the session, as a new account address
is) to GET /home/calendar, which shows it once: only its hash is kept."""

from flask import (
    Blueprint,
    abort,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)

from ..calendar_feed import Site, ics, pending
from ..i18n import _, language
from ..store import calendars, prefs
from ..store.models import Player
from . import data, flow
from .home import back
from .signin import signed_in

bp = Blueprint("calendar", __name__)


@bp.get("/cal/<token>.ics")
def feed(token):
    """The feed, or 404 for any token that opens none (wrong, short, revoked alike). Never
    cached on the way (pbem.web.guard: a keyed address is `no-store`); the calendar asks
    its client to fetch it again hourly."""
    store = data.store()
    player_id = calendars.owner(store, token)
    with store.reader() as s:
        player = s.get(Player, player_id) if player_id is not None else None
    if player is None or player_id is None:
        abort(404)
    settings = current_app.config["PBEM_SETTINGS"]
    with language(prefs.language(player)):
        body = ics(pending(store, player_id), Site(settings.base_url.rstrip("/"),
                                                   settings.mail_domain))
    response = make_response(body)
    response.headers["Content-Type"] = "text/calendar; charset=utf-8"
    response.headers["Content-Disposition"] = 'inline; filename="pbem-deadlines.ics"'
    return response


@bp.post("/home/calendar")
def change():
    """`do=new`: a new feed address (any older one answers 404 from now on), carried once
    to the page that shows it; `do=off`: no feed."""
    player = signed_in()
    if player is None:
        return redirect(url_for("signin.signin"), 303)
    if request.form.get("do") == "off":
        gone = calendars.remove(data.store(), player.id)
        return back(notice=_("Your calendar feed is off: its address no longer works.")
                    if gone else _("You had no calendar feed."))
    if request.form.get("do") != "new":
        abort(400)
    token = calendars.renew(data.store(), player.id)
    url = current_app.config["PBEM_SETTINGS"].base_url.rstrip("/") + f"/cal/{token}.ics"
    return flow.to(url_for("calendar.shown"), feed=url)


@bp.get("/home/calendar")
def shown():
    """The new address, once (a reload, or any other visit, goes to the home page: only
    the address's hash is kept, so it cannot be shown again)."""
    url = flow.carried().get("feed")
    if signed_in() is None or not url:
        return redirect(url_for("home.home"))
    response = make_response(render_template("web/calendar.html", url=url))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.app_context_processor
def _on_the_home_page():
    """The home page's calendar part asks when the player's feed was made."""
    return {"calendar_since": _since}


def _since(player):
    with data.store().reader() as s:
        return calendars.since(s, player.id)
