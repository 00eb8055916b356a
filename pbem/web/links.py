"""Move links from turn mails. GET shows the move and one confirm button and changes
nothing (mail scanners fetch links); POST applies it. A link applies once: its id is the
move's ref. A stale link (by the door's rule, pbem.play.stale: a move taken back since
does not count) says the game has moved on and shows the table as it is; a link whose move
was made (by it, or the same move by mail or on the table page) says "already played", the
truth, with the way to the table: not an error."""

from flask import Blueprint, render_template
from sqlmodel import Session, col, select

from ..i18n import _
from ..play import Refused, stale, submit
from ..store.models import Move, Seat
from . import data
from .tables import back
from .view import seat_view
from .words import action_label, link_refusal

bp = Blueprint("links", __name__)


def _read(token):
    try:
        return data.signer().loads(token)
    except ValueError as e:
        return e


def _seat(d):
    with data.store().session() as s:
        return s.exec(select(Seat).where(Seat.game_id == d["g"], Seat.seat == d["s"])).first()


def _link(token):
    """(the link's data, its seat), or the page that says why the link does not work."""
    d = _read(token)
    if isinstance(d, ValueError):
        return None, (render_template("web/message.html", title=_("This link does not work"),
                                      text=link_refusal(d)), 400)
    seat = _seat(d)
    if seat is None or seat.robot or data.handed_over(d["g"], d["s"], d["q"]):
        return None, (render_template("web/message.html", title=_("This link does not work"),
                                      text=_("That seat is no longer yours.")), 400)
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
        done = why is not None and played(s, d)
    if done:
        return _played(d, seat)
    if why:  # the table as it is now, with fresh moves
        return back(seat.token,
                    error=_("This mail's link no longer works: %(why)s.") % {"why": why})
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
        with data.store().reader() as s:
            if played(s, d):
                return _played(d, seat)
        return back(seat.token, error=_("Not done: %(why)s") % {"why": e.reason})
    if result.duplicate:
        return back(seat.token, notice=_("Already played: %(move)s. It was made once.")
                    % {"move": action_label(d["a"])})
    return back(seat.token, notice=_("Done: %(move)s.") % {"move": action_label(d["a"])})


def played(s: Session, d: dict) -> bool:
    """Was the link's move made: by the link itself (its ref), or as the seat's next move
    after the table the link was made from (the same bid or card, by mail or the table)?"""
    if s.exec(select(Move.id).where(Move.ref == f"link:{d['n']}")).first() is not None:
        return True
    mine = s.exec(select(Move).where(Move.game_id == d["g"], Move.seq > d["q"],
                                     Move.actor == d["s"], Move.type == d["a"]["type"])
                  .order_by(col(Move.seq)).limit(1)).first()
    return mine is not None and all(mine.payload.get(k) == v for k, v in d["a"].items()
                                    if k in ("card", "bid", "blind", "nil"))


def _played(d: dict, seat: Seat) -> object:
    """The truth about a used link: its move stands; the table is one click away."""
    return render_template("web/move.html", played=True, seat=seat, game_id=d["g"],
                           label=action_label(d["a"]))
