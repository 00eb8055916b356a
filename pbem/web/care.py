"""The care of a stuck table, from the links a `wait` timeout mails to whoever looks after
the game (pbem.clock): let the robot make the move, or give the seat more hours. GET shows
what the link does and a confirm button (mail scanners fetch links); POST does it, once,
and only while the game still waits at that move."""

from flask import Blueprint, render_template
from sqlmodel import select

from ..deadlines import EXTRA, rearm
from ..engine import choose, view
from ..i18n import _
from ..play import Refused, submit
from ..signing import CARE
from ..store.models import Deadline, Game
from ..store.models import now as utcnow
from . import data, flow
from .words import link_refusal

bp = Blueprint("care", __name__)


def _read(token):
    """(the link's data, the game's table), or the page that says why not."""
    try:
        d = data.signer(CARE).loads(token)
    except ValueError as e:
        return None, _page(_("This link does not work"), link_refusal(e), 400)
    t = data.load(d["g"])
    if t.state.move_seq != d["q"] or t.state.phase == "over":
        return None, _page(_("Nothing to do"), _("Game %(game)s has moved on since this mail "
                                                 "was sent.") % {"game": t.game.id}, 409)
    return (d, t), None


def _page(title, text, status=200):
    return render_template("web/message.html", title=title, text=text), status


def _label(d, names) -> str:
    if d["a"] == "robot":
        return _("let the robot make move %(seq)s for %(name)s") % {"seq": d["q"],
                                                                     "name": names[d["s"]]}
    return _("give %(name)s %(hours)s more hours for move %(seq)s") % {
        "name": names[d["s"]], "hours": int(d["a"]), "seq": d["q"]}


@bp.get("/c/<token>")
def confirm(token):
    found, refusal = _read(token)
    if refusal:
        return refusal
    d, t = found
    return render_template("web/care.html", label=_label(d, t.names), t=t)


@bp.post("/c/<token>")
def apply_care(token):
    found, refusal = _read(token)
    if refusal:
        return refusal
    d, t = found
    done = _robot(d, t) if d["a"] == "robot" else _more_time(d)
    if done:
        return flow.told(_("That link was used already"), done, 409)
    return flow.told(_("Done"), _("Game %(game)s: done, %(what)s.") % {
        "game": t.game.id, "what": _label(d, t.names)})


def _robot(d, t) -> str | None:
    st = t.state
    action = choose(view(st, d["s"]), seed=d["q"], rules=st.rules)
    try:
        result = submit(data.store(), d["g"], d["s"], action, expect_seq=d["q"],
                        source="organiser", ref=f"care:{d['n']}")
    except Refused as e:
        return e.reason
    return "the robot made that move already" if result.duplicate else None


def _more_time(d) -> str | None:
    """A new deadline for the seat, recorded under the link's id so it works once."""
    with data.store().session() as s:
        game = s.get(Game, d["g"])
        if data.store().state(s, game).move_seq != d["q"]:
            return "the game has moved on"
        mine = select(Deadline.id).where(Deadline.game_id == d["g"], Deadline.seat == d["s"],
                                         Deadline.seq == d["q"])
        if s.exec(mine.where(Deadline.kind == EXTRA,
                             Deadline.result == f"care:{d['n']}")).first():
            return "that time was given already"
        if s.exec(mine.where(Deadline.kind == "timeout", Deadline.state == "pending")).first():
            return "that move has a deadline again already"
        now = utcnow()
        rearm(s, game, d["s"], d["q"], int(d["a"]), now)
        s.add(Deadline(game_id=d["g"], seat=d["s"], seq=d["q"], kind=EXTRA, state="done",
                       due=now, result=f"care:{d['n']}"))
        s.commit()
    return None
