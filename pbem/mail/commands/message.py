"""message LEAGUE [season N]: TEXT: the organiser mails every player (pbem.organise.care)."""

from ...i18n import N_, _
from ...organise import care
from .base import Command, Context
from .errors import Usage
from .organising import ask_league, check_ours, read_league_and_season

USAGE = "message LEAGUE [season N]: TEXT"


class Message(Command):
    name = "message"
    help = N_("message LEAGUE [season N]: TEXT (organisers): mail every player")
    example = "message 1: round 2 starts on Monday"

    def process(self, ctx: Context, args: str) -> str:
        head, colon, text = args.partition(":")
        if not colon:
            raise Usage(USAGE)
        lid, season = read_league_and_season(head.split(), USAGE)
        check_ours(ctx, lid)
        n = ask_league(care.message, ctx.store, lid, ctx.my_id,
                       "a message from the organiser", text, season)
        return _("message: mailed to %(count)s player(s)") % {"count": n}
