"""mail off, mail on: no mail from us at all (as an unsubscribe), or again."""

from ...i18n import N_, _
from .base import Command, Context, set_pref
from .errors import Usage


class Mail(Command):
    name, help = "mail", N_("mail off: no mail from us at all (as an unsubscribe); mail on: again")
    example = "mail off"

    def process(self, ctx: Context, args: str) -> str:
        how = args.lower().strip()
        if how not in ("on", "off"):
            raise Usage("mail off, or: mail on")
        set_pref(ctx, "mail", how)
        return _("mail: off (this is the last; write mail on to hear from us again)") \
            if how == "off" else _("mail: on")
