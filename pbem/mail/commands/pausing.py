"""pause and resume LEAGUE [season N]: stop or restart a league's deadlines
(pbem.league.pause). One class: the two differ only in their words and service."""

from collections.abc import Callable

from ...league.pause import pause, resume
from .base import Command, Context
from .organising import ask_league, check_ours, read_league_and_season


class Pausing(Command):
    def __init__(self, name: str, fn: Callable[..., list[int]], what: str):
        self.name, self.fn, self.done = name, fn, name + "d"
        self.help = f"{name} LEAGUE [season N] (organisers): {what}"
        self.example = f"{name} 1"

    def process(self, ctx: Context, args: str) -> str:
        lid, season = read_league_and_season(args.split(), f"{self.name} LEAGUE [season N]")
        check_ours(ctx, lid)
        numbers = ask_league(self.fn, ctx.store, lid, ctx.my_id, season)
        return f"{self.name}: season(s) {', '.join(map(str, numbers))} of league {lid} " \
            f"{self.done}"


PAUSE = Pausing("pause", pause, "stop its deadlines")
RESUME = Pausing("resume", resume, "restart its deadlines")
