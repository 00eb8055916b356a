"""Open seeks on the web (issue 34, pbem.organise.seeks): `/seeks` lists them for a
signed-in player, with a button to take a seat (or to withdraw one's own); the small form
on the home page posts one. The same checks as by mail: the form's fields are the new-game
form's, read by its readers."""

from flask import Blueprint, make_response, render_template, request, url_for

from ..i18n import _
from ..mail.commands.seeks import describe
from ..organise.seeks import SeekError, cancel, join, open_seeks, post, rating_of, read_spec
from . import data, flow
from .home import _player_or_signin
from .home import back as back_home

bp = Blueprint("seeks", __name__)
FIELDS = ("preset", "move_hours", "on_timeout", "rating_min", "rating_max", "robot_days")


@bp.get("/seeks")
def seeks():
    player, away = _player_or_signin()
    if away:
        return away
    with data.store().reader() as s:
        rating = rating_of(s, player.id)
    listed = open_seeks(data.store())
    body = render_template("web/seeks.html", player=player, rating=rating,
                           seeks=[(x, describe(x)) for x in listed])
    response = make_response(body)
    response.headers["Cache-Control"] = "no-store"  # a player's own view
    return response


@bp.post("/seeks/new")
def new():
    """The home page's form: the seek is posted, or the home page says why not."""
    player, away = _player_or_signin()
    if away:
        return away
    form = {k: request.form.get(k, "")[:20] for k in FIELDS}
    try:
        seek_id = post(data.store(), player.id, read_spec(form))
    except ValueError as e:  # SeekError, and the new-game readers' refusals
        return back_home(error=_("No seek was posted: %(why)s.") % {"why": str(e).rstrip(".")})
    return _back(_("Seek %(seek)s is open.") % {"seek": seek_id})


@bp.post("/seeks/<int:seek_id>/accept")
def accept(seek_id):
    player, away = _player_or_signin()
    if away:
        return away
    try:
        done = join(data.store(), seek_id, player.id)
    except SeekError as e:
        return _back(error=_("No seat was taken: %(why)s.") % {"why": e})
    if done.game_id is not None:
        return _back(_("The table is full: game %(game)s is dealt. Its mail comes to you, and "
                       "it is on your home page.") % {"game": done.game_id})
    return _back(_("You have a seat in seek %(seek)s.") % {"seek": seek_id})


@bp.post("/seeks/<int:seek_id>/cancel")
def withdraw(seek_id):
    player, away = _player_or_signin()
    if away:
        return away
    try:
        cancel(data.store(), seek_id, player.id)
    except SeekError as e:
        return _back(error=_("Nothing was withdrawn: %(why)s.") % {"why": e})
    return _back(_("Seek %(seek)s is withdrawn.") % {"seek": seek_id})


def _back(notice=None, error=None):
    return flow.to(url_for("seeks.seeks"), notice=notice, error=error)
