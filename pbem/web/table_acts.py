"""At the table page: talk (say), taking back one's last move (undo), and resigning
(with a partner, an offer until the partner resigns too). Each form posts with the CSRF
guard; resigning asks to confirm first, so one stray click gives nothing up."""

from flask import Blueprint, abort, render_template, request, url_for

from ..engine.acts import TALK_MAX, clean_talk
from ..numbers import whole
from ..play import Refused, submit
from . import data, flow
from .tables import back

bp = Blueprint("acts", __name__)
_MAX_FORM_TEXT = 4 * TALK_MAX  # the rest of a longer text is not even read


def _seat(token):
    seat = data.seat_for(token)
    if not seat.accepted or seat.robot:
        abort(404)
    return seat


def _do(token, seat, action, done: str):
    try:
        result = submit(data.store(), seat.game_id, seat.seat, action, source="web")
    except Refused as e:
        return back(token, error=f"Not done: {e.reason}")
    if any(ev["type"] == "resign" for ev in result.events):
        done = "You resigned: your side gave the game up."
    return back(token, notice=done)


@bp.post("/t/<token>/say")
def say(token):
    seat = _seat(token)
    text = clean_talk(request.form.get("text", "")[:_MAX_FORM_TEXT + 1])
    if not text or len(text) > TALK_MAX:
        return back(token, errors={"text": f"Not said: write something, at most {TALK_MAX} "
                                   "characters" + (f" (this was {len(text)})" if text else "")
                                   + "."}, error="Nothing was said.")
    return _do(token, seat, {"type": "say", "text": text}, "Said.")


@bp.post("/t/<token>/undo")
def undo(token):
    """Take back the move the page showed (its seq), and only that one."""
    seat = _seat(token)
    seq = whole(request.form.get("seq", ""))
    if seq is None:
        return back(token, error="Which move? Use the page's button.")
    return _do(token, seat, {"type": "undo", "undo": seq}, "Taken back: it is your "
               "turn again.")


@bp.get("/t/<token>/resign")
def ask_resign(token):
    """Are you sure? (The table's Resign… button comes here; so does a reload.)"""
    seat = _seat(token)
    t = data.load(seat.game_id)
    if t.state.phase == "over":
        return back(token, error="The game is over: there is nothing to resign.")
    mates = [t.names[s] for s in t.state.sides[t.state.side_of[seat.seat]] if s != seat.seat]
    return render_template("web/resign.html", token=token, t=t, mates=mates,
                           agree=any(m in t.state.offers for m in
                                     t.state.sides[t.state.side_of[seat.seat]]))


@bp.post("/t/<token>/resign")
def resign(token):
    seat = _seat(token)
    off = request.form.get("off") == "1"
    if off:
        return _do(token, seat, {"type": "concede", "off": True}, "Your offer to resign is "
                   "taken back.")
    if request.form.get("sure") != "yes":
        return flow.to(url_for("acts.ask_resign", token=token))
    return _do(token, seat, {"type": "concede"}, "You offered to resign: if your partner "
               "resigns too, your side gives the game up. The offer lapses at the end of "
               "the hand.")

