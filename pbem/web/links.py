"""Move links from turn mails. GET shows the move and one confirm button and changes
nothing (mail scanners fetch links); POST applies it. A link applies once: its id is the
move's ref. A stale link (by the door's rule, pbem.play.stale: a move taken back since
does not count) says the game has moved on and shows the table as it is."""

from flask import Blueprint, render_template
from sqlmodel import select

from ..play import Refused, stale, submit
from ..store.models import Seat
from . import data
from .tables import back
from .view import action_label, seat_view

bp = Blueprint("links", __name__)


def _read(token):
    try:
        return data.signer().loads(token)
    except ValueError as e:
        return str(e)


def _seat(d):
    with data.store().session() as s:
        return s.exec(select(Seat).where(Seat.game_id == d["g"], Seat.seat == d["s"])).first()


def _link(token):
    """(the link's data, its seat), or the page that says why the link does not work."""
    d = _read(token)
    if isinstance(d, str):
        return None, (render_template("web/message.html", title="This link does not work",
                                      text=d), 400)
    seat = _seat(d)
    if seat is None or seat.robot or data.handed_over(d["g"], d["s"], d["q"]):
        return None, (render_template("web/message.html", title="This link does not work",
                                      text="That seat is no longer yours."), 400)
    return (d, seat), None


@bp.get("/m/<token>")
def confirm(token):
    found, refusal = _link(token)
    if refusal:
        return refusal
    d, seat = found
    t = data.load(d["g"])
    with data.store().reader() as s:  # the door's own rule: its POST would be refused
        why = stale(s, t.state, d["g"], d["s"], d["q"])
    if why:  # the table as it is now, with fresh moves
        return back(seat.token, error=f"This mail's link no longer works: {why}.")
    return render_template("web/move.html", token=token, label=action_label(d["a"]),
                           stale=False, seat=seat, t=t,
                           v=seat_view(t, seat.seat), chosen=d["a"].get("card"))  # beside it


@bp.post("/m/<token>")
def apply_link(token):
    found, refusal = _link(token)
    if refusal:
        return refusal
    d, seat = found
    try:
        result = submit(data.store(), d["g"], d["s"], d["a"], expect_seq=d["q"], source="web",
                        ref=f"link:{d['n']}")
    except Refused as e:  # stale or otherwise: the table as it is now, and why
        return back(seat.token, error=f"Not done: {e.reason}")
    if result.duplicate:
        return back(seat.token, error="That link was used already: the move was made once.")
    return back(seat.token, notice=f"Done: {action_label(d['a'])}.")
