"""At the table page: talk (say), taking back one's last move (undo), resigning (with a
partner, an offer until the partner resigns too), and one's own private notes (no move).
Each form posts with the CSRF guard; resigning asks to confirm first, so one stray click
gives nothing up."""

from flask import Blueprint, abort, render_template, request, url_for

from ..engine import pretty
from ..engine.acts import TALK_MAX, clean_talk
from ..i18n import _
from ..numbers import whole
from ..play import Refused, submit
from ..store import hints, notes
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
        return back(token, error=_("Not done: %(why)s") % {"why": e.reason})
    if any(ev["type"] == "resign" for ev in result.events):
        done = _("You resigned: your side gave the game up.")
    return back(token, notice=done)


@bp.post("/t/<token>/say")
def say(token):
    seat = _seat(token)
    text = clean_talk(request.form.get("text", "")[:_MAX_FORM_TEXT + 1])
    if not text or len(text) > TALK_MAX:
        why = (_("Not said: write something, at most %(most)s characters (this was %(n)s).")
               if text else _("Not said: write something, at most %(most)s characters."))
        return back(token, errors={"text": why % {"most": TALK_MAX, "n": len(text)}},
                    error=_("Nothing was said."))
    return _do(token, seat, {"type": "say", "text": text}, _("Said."))


@bp.post("/t/<token>/undo")
def undo(token):
    """Take back the move the page showed (its seq), and only that one."""
    seat = _seat(token)
    seq = whole(request.form.get("seq", ""))
    if seq is None:
        return back(token, error=_("Which move? Use the page's button."))
    return _do(token, seat, {"type": "undo", "undo": seq},
               _("Taken back: it is your turn again."))


@bp.get("/t/<token>/resign")
def ask_resign(token):
    """Are you sure? (The table's Resign… button comes here; so does a reload.)"""
    seat = _seat(token)
    t = data.load(seat.game_id)
    if t.state.phase == "over":
        return back(token, error=_("The game is over: there is nothing to resign."))
    mates = [t.names[s] for s in t.state.sides[t.state.side_of[seat.seat]] if s != seat.seat]
    return render_template("web/resign.html", token=token, t=t, mates=mates,
                           agree=any(m in t.state.offers for m in
                                     t.state.sides[t.state.side_of[seat.seat]]))


@bp.post("/t/<token>/resign")
def resign(token):
    seat = _seat(token)
    off = request.form.get("off") == "1"
    if off:
        return _do(token, seat, {"type": "concede", "off": True},
                   _("Your offer to resign is taken back."))
    if request.form.get("sure") != "yes":
        return flow.to(url_for("acts.ask_resign", token=token))
    return _do(token, seat, {"type": "concede"}, _(
        "You offered to resign: if your partner resigns too, your side gives the game up. "
        "The offer lapses at the end of the hand."))



@bp.post("/t/<token>/hint")
def hint(token):
    """The card the hard robot would play now, shown to this seat alone (issue 33)."""
    seat = _seat(token)
    try:
        card = hints.hint(data.store(), seat.game_id, seat.seat)
    except hints.HintRefused as e:
        return back(token, error=_("Not done: %(why)s.") % {"why": e})
    return back(token, notice=_("Hint: the hard robot would play %(card)s.")
                % {"card": pretty(card)})


@bp.post("/t/<token>/note")
def note(token):
    """Keep a private note on the game, or delete one (`delete`: its id): the seat's
    player's own, which only they see (pbem.store.notes). No move, no log."""
    seat = _seat(token)
    if seat.player_id is None:
        abort(404)
    form = request.form
    if "delete" in form:
        note_id = whole(form.get("delete", ""))
        if note_id is None or not notes.remove(data.store(), note_id, seat.player_id):
            return back(token, error=_("Not deleted: that note is not one of yours."))
        return back(token, notice=_("The note is deleted."))
    try:
        kept = notes.add(data.store(), seat.game_id, seat.player_id, form.get("note", ""))
    except notes.NoteRefused as e:
        return back(token, errors={"note": _("Not kept: %(why)s.") % {"why": e}},
                    error=_("The note was not kept."))
    return back(token, notice=_("The note is kept (%(n)s of at most %(most)s on this "
                                "game): only you see it.") % {"n": kept,
                                                              "most": notes.MAX_NOTES})
