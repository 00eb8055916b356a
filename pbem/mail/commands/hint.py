"""hint: the card the hard robot would play now, for the seat to play only (issue 33).
Answered in the reply to this seat alone; counted on the score pad."""

from ...engine import pretty
from ...i18n import N_, _
from ...store import hints
from .base import Command, Context
from .errors import Declined


class Hint(Command):
    name = "hint"
    help = N_("hint: the card the hard robot would play now (your turn only; counted on "
              "the score pad)")
    example = "hint"

    def process(self, ctx: Context, args: str) -> str:
        seat = ctx.my_seat
        try:
            card = hints.hint(ctx.store, seat.game_id, seat.seat)
        except hints.HintRefused as e:
            raise Declined(str(e)) from None
        return _("hint: the hard robot would play %(card)s") % {"card": pretty(card)}
