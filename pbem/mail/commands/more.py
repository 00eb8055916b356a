"""more LEAGUE GAME HOURS: the organiser gives a table more hours (pbem.organise.care)."""

from ...i18n import N_, _
from ...organise import care
from .base import Command, Context
from .errors import Usage
from .organising import ask_league, check_ours, read_numbers


class More(Command):
    name, help = "more", N_("more LEAGUE GAME HOURS (organisers): give a table more hours")
    example = "more 1 12 24"

    def process(self, ctx: Context, args: str) -> str:
        if len(args.split()) != 3:
            raise Usage("more LEAGUE GAME HOURS")
        lid, gid, hours = read_numbers(args.split(), "more LEAGUE GAME HOURS")
        check_ours(ctx, lid)
        ask_league(care.more_hours, ctx.store, lid, ctx.my_id, gid, hours)
        return _("more: game %(game)s has %(hours)s more hours") % {"game": gid, "hours": hours}
