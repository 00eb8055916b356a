"""remind LEAGUE GAME: the organiser asks a table's players to act now (pbem.organise.care)."""

from ...i18n import N_, _
from ...organise import care
from .base import Command, Context
from .errors import Usage
from .organising import ask_league, check_ours, read_numbers


class Remind(Command):
    name, help = "remind", N_("remind LEAGUE GAME (organisers): ask the players to act now")
    example = "remind 1 12"

    def process(self, ctx: Context, args: str) -> str:
        if len(args.split()) != 2:
            raise Usage("remind LEAGUE GAME")
        lid, gid = read_numbers(args.split(), "remind LEAGUE GAME")
        check_ours(ctx, lid)
        n = ask_league(care.remind, ctx.store, lid, ctx.my_id, gid)
        return _("remind: %(count)s player(s) of game %(game)s reminded") % {
            "count": n, "game": gid}
