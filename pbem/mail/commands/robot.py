"""robot LEAGUE GAME [SEAT]: the organiser has the robot make a move (pbem.organise.care)."""

from ...i18n import N_, _
from ...organise import care
from .base import Command, Context
from .errors import Usage
from .organising import ask_league, check_ours, read_numbers


class Robot(Command):
    name, help = "robot", N_("robot LEAGUE GAME [SEAT] (organisers): the robot makes this move")
    example = "robot 1 12"

    def process(self, ctx: Context, args: str) -> str:
        words = args.split()
        if len(words) not in (2, 3):
            raise Usage("robot LEAGUE GAME [SEAT]")
        lid, gid, *seat = read_numbers(words, "robot LEAGUE GAME [SEAT]")
        check_ours(ctx, lid)
        ask_league(care.robot_move, ctx.store, lid, ctx.my_id, gid, seat[0] if seat else None)
        return _("robot: the robot made the move in game %(game)s") % {"game": gid}
