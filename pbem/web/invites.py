"""Before a game is dealt: who has said yes and who has not, on the table of each seat that
has, and its button to send a seat's invitation again. Only a seat of the game may send
it, only to a seat still to answer, at most once a day per seat (the outbox row's key holds
the day, so two presses at once queue one mail), and within the web's hourly mail limits."""

from flask import Blueprint, abort, current_app, request
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from ..i18n import _
from ..numbers import whole
from ..store.models import Game, Player, Seat
from ..store.models import now as utcnow
from . import data, limits
from .newgame import invitation_mail
from .tables import back

bp = Blueprint("invites", __name__)


@bp.post("/t/<token>/invite")
def send_again(token):
    asker = data.seat_for(token)
    if not asker.accepted or asker.robot:
        abort(404)  # an invitee who has not said yes has no table yet
    seat_no = whole(request.form.get("seat", ""), 99)
    with data.store().reader() as s:
        game = s.get(Game, asker.game_id)
        seat = s.exec(select(Seat).where(Seat.game_id == game.id,
                                         Seat.seat == seat_no)).first() \
            if seat_no is not None else None
        invitee = s.get(Player, seat.player_id) if seat and seat.player_id else None
        creator = s.get(Player, game.created_by) if game.created_by else None
    if game.status != "open" or seat is None or seat.accepted or invitee is None:
        return back(token, error=_("Nobody there waits for an invitation: nothing was sent."))
    limits.check([invitee.email])
    key = f"invite:{game.id}:{seat.seat}:again:{utcnow().date().isoformat()}"
    mail = invitation_mail(current_app.config["PBEM_SETTINGS"], game.id, seat,
                           creator.email if creator else "A player", game.rules.get(
                               "preset", "standard"), invitee.email, key)
    try:
        with data.store().session() as s:
            s.add(mail)
            s.commit()
    except IntegrityError:  # sent today already (or a second press at the same moment)
        return back(token, error=_("Seat %(seat)s's invitation was sent again today already: "
                                   "you may send it again tomorrow.") % {"seat": seat.seat})
    limits.record([invitee.email])
    return back(token, notice=_("The invitation to seat %(seat)s (%(name)s) is sent again.")
                % {"seat": seat.seat, "name": invitee.name})
