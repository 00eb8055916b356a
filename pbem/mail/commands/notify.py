"""notify: how the player hears of others' moves (every hand, every trick, digest)."""

from ...i18n import N_, _
from ...store import prefs
from .base import Command, Context, set_pref
from .errors import Declined


class Notify(Command):
    name, help = "notify", N_("notify every hand (the default: a mail when a hand is scored, with "
                            "your new hand), notify every trick, or notify digest (once a day): "
                            "how you hear of others' moves")
    example = "notify digest"

    def process(self, ctx: Context, args: str) -> str:
        try:
            how = prefs.parse_notify(args)
        except ValueError as e:
            raise Declined(str(e)) from None
        set_pref(ctx, "notify", how)
        return _("notify: %(how)s") % {"how": how}
