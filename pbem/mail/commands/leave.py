"""leave LEAGUE: take the player's entry out of its season (robots play its tables)."""

from ...i18n import N_, _
from ...league.manage import LeagueError, withdraw
from .base import Command, Context
from .entries import league_number, my_entries
from .errors import Declined, NoEntry


class Leave(Command):
    name, help = "leave", N_("leave LEAGUE: take your entry out (robots play your tables)")
    example = "leave 3"

    def process(self, ctx: Context, args: str) -> str:
        lid = league_number(args.strip() or "?")
        live = [(e, sn) for e, sn, _ in my_entries(ctx.store, ctx.my_id, lid)
                if sn.status != "over" and e.status != "withdrawn"]
        if not live:
            raise NoEntry(lid)
        entry, season = live[0]
        assert entry.id is not None  # read from its table
        try:
            withdraw(ctx.store, lid, ctx.my_id, entry.id)
        except LeagueError as e:
            raise Declined(str(e)) from None
        return _("leave %(league)s: %(name)s is out of season %(season)s") % {
            "league": lid, "name": entry.name, "season": season.number}
