"""leagues: the player's leagues, each season's status and page."""

from ...config import load
from ...i18n import N_, _
from .base import Command, Context
from .entries import my_entries


class Leagues(Command):
    name, help, example = "leagues", N_("list my leagues"), "leagues"

    def process(self, ctx: Context, args: str) -> str:
        rows = my_entries(ctx.store, ctx.my_id)
        if not rows:
            return _("leagues: you are in no league")
        base = load().base_url
        lines = [f"  {_line(lg.id, lg.name, sn.number, sn.status, e.status)}  {base}/l/{lg.id}"
                 for e, sn, lg in rows]
        return _("leagues:") + "\n" + "\n".join(lines)


# a season's status as a player reads it (pbem.store.models.Season.status)
SEASON = {"open": N_("open"), "running": N_("running"), "over": N_("over")}


def _line(lid: int | None, name: str, season: int, status: str, entry: str) -> str:
    values = {"league": lid, "name": name, "season": season,
              "status": _(SEASON.get(status, status))}
    if entry == "withdrawn":
        return _("league %(league)s (%(name)s), season %(season)s: %(status)s, withdrawn"
                 ) % values
    return _("league %(league)s (%(name)s), season %(season)s: %(status)s") % values
