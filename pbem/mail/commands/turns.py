"""turns daily, turns each: one mail a day listing the player's moves, or a mail a turn."""

from ...i18n import N_, _
from .base import Command, Context, set_pref
from .errors import Usage


class Turns(Command):
    name = "turns"
    help = N_("turns daily, or turns each: one mail a day listing your moves, or a mail a turn")
    example = "turns daily"

    def process(self, ctx: Context, args: str) -> str:
        how = args.strip().lower()
        if how not in ("daily", "each"):
            raise Usage("turns daily, or: turns each")
        set_pref(ctx, "turns", how)
        return _("turns: %(how)s") % {"how": how}
