"""leagues: the player's leagues, each season's status and page."""

from ...config import load
from .base import Command, Context
from .entries import my_entries


class Leagues(Command):
    name, help, example = "leagues", "list my leagues", "leagues"

    def process(self, ctx: Context, args: str) -> str:
        rows = my_entries(ctx.store, ctx.my_id)
        if not rows:
            return "leagues: you are in no league"
        base = load().base_url
        lines = [f"  league {lg.id} ({lg.name}), season {sn.number}: {sn.status}"
                 f"{', withdrawn' if e.status == 'withdrawn' else ''}  {base}/l/{lg.id}"
                 for e, sn, lg in rows]
        return "leagues:\n" + "\n".join(lines)
