"""pause and resume LEAGUE [season N]: stop or restart a league's deadlines
(pbem.league.pause). One class: the two differ only in their words and service."""

from collections.abc import Callable

from ...i18n import N_, listing, ngettext
from ...league.pause import pause, resume
from .base import Command, Context
from .organising import ask_league, check_ours, read_league_and_season


class Pausing(Command):
    def __init__(self, name: str, fn: Callable[..., list[int]], help: str):
        self.name, self.fn = name, fn
        self.help = help
        self.example = f"{name} 1"

    def process(self, ctx: Context, args: str) -> str:
        lid, season = read_league_and_season(args.split(), f"{self.name} LEAGUE [season N]")
        check_ours(ctx, lid)
        numbers = ask_league(self.fn, ctx.store, lid, ctx.my_id, season)
        values = {"seasons": listing([str(n) for n in numbers]), "league": lid}
        if self.name == "pause":
            return ngettext("pause: season %(seasons)s of league %(league)s paused",
                            "pause: seasons %(seasons)s of league %(league)s paused",
                            len(numbers)) % values
        return ngettext("resume: season %(seasons)s of league %(league)s resumed",
                        "resume: seasons %(seasons)s of league %(league)s resumed",
                        len(numbers)) % values


PAUSE = Pausing("pause", pause, N_("pause LEAGUE [season N] (organisers): stop its deadlines"))
RESUME = Pausing("resume", resume,
                 N_("resume LEAGUE [season N] (organisers): restart its deadlines"))
