"""robot LEAGUE GAME [SEAT] [LEVEL]: the organiser has the robot make a move
(pbem.organise.care), at the rules' level or at LEVEL (easy, medium or hard)."""

from ...engine.robot import LEVELS
from ...i18n import N_, _
from ...organise import care
from .base import Command, Context
from .errors import Usage
from .organising import ask_league, check_ours, read_numbers

USAGE = "robot LEAGUE GAME [SEAT] [easy|medium|hard]"


class Robot(Command):
    name, help = "robot", N_("robot LEAGUE GAME [SEAT] [easy|medium|hard] (organisers): the "
                             "robot makes this move, at the game's level or the one named")
    example = "robot 1 12 2 hard"

    def process(self, ctx: Context, args: str) -> str:
        words = args.split()
        level = None
        if words and words[-1].lower() in LEVELS:  # (the old names too: fast, sampler)
            level = words.pop().lower()
        if len(words) not in (2, 3):
            raise Usage(USAGE)
        lid, gid, *seat = read_numbers(words, USAGE)
        check_ours(ctx, lid)
        ask_league(care.robot_move, ctx.store, lid, ctx.my_id, gid, seat[0] if seat else None,
                   level)
        return _("robot: the robot made the move in game %(game)s") % {"game": gid}

