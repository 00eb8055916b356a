"""A player's own data on the web (issue 31): from the home page, signed in, the download of
everything we hold about them (pbem.privacy.export), and `forget` behind a confirm page; and
the mailed link of `forget me` (pbem.privacy.mailed), whose GET shows the button (mail
scanners fetch links) and whose POST forgets. Forgetting signs every browser out."""

from flask import (
    Blueprint,
    current_app,
    make_response,
    redirect,
    render_template,
    session,
    url_for,
)

from ..asks import LinkError, read
from ..i18n import N_, _
from ..privacy.export import as_json, player_data
from ..privacy.forget import forget
from ..privacy.mailed import FORGET
from ..store.models import Player
from . import data, flow
from .signin import signed_in

bp = Blueprint("my_data", __name__)

WHAT = N_("We send you no more mail. Your address and name are replaced everywhere by an "
          "anonymous handle; your games' logs and your league results stay, under that "
          "handle, and robots take your seats in games still in play. It cannot be undone.")


@bp.get("/home/data.json")
def download():
    player = signed_in()
    if player is None:
        return redirect(url_for("signin.signin"))
    response = make_response(as_json(player_data(data.store(), player.id)))
    response.headers["Content-Type"] = "application/json; charset=utf-8"
    response.headers["Content-Disposition"] = (
        f'attachment; filename="pbem-player-{player.id}.json"')
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/home/forget")
def confirm():
    player = signed_in()
    if player is None:
        return redirect(url_for("signin.signin"))
    return _ask(player)


@bp.post("/home/forget")
def do():
    player = signed_in()
    if player is None:
        return redirect(url_for("signin.signin"), 303)
    return _forgotten(player.id)


@bp.get("/forget/<token>")
def link(token):
    player, refusal = _by_link(token)
    return refusal or _ask(player)


@bp.post("/forget/<token>")
def link_do(token):
    player, refusal = _by_link(token)
    return refusal or _forgotten(player.id)


def _ask(player: Player):
    response = make_response(render_template(
        "web/confirm_new.html", title=_("Forget me"), button=_("Forget me for good"),
        rows=[(_("Address"), player.email), (_("Name"), player.name),
              (_("What happens"), _(WHAT))]))
    response.headers["Cache-Control"] = "no-store"
    return response


def _by_link(token: str):
    """(the link's player, None), or (None, the page that says why the link does not work:
    expired, forged, or its player forgotten already)."""
    try:
        d = read(token[:2000], FORGET, current_app.config["PBEM_SETTINGS"])
    except LinkError as e:
        return None, _page(_("This link does not work: %(why)s.") % {"why": e}, 400)
    with data.store().reader() as s:
        player = s.get(Player, d.get("p"))
    if player is None or player.email != d.get("e"):
        return None, _page(_("This link does not work any more: it was used already."), 409)
    return player, None


def _forgotten(player_id: int):
    forget(data.store(), player_id)
    session.clear()
    return flow.to(url_for("pages.index"), notice=_("You are forgotten: we will not write to "
                                                    "you again. Thank you for playing."))


def _page(text: str, status: int):
    return render_template("web/account_done.html", title=_("Forget me"), text=text), status
