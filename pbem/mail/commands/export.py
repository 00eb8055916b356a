"""export: everything we hold about the player, as JSON, attached to a mail to their own
address (pbem.privacy)."""

from ...i18n import N_, _
from ...privacy.mailed import mail_export
from .base import Command, Context
from .errors import Usage


class Export(Command):
    name, help = "export", N_("export: everything we hold about you, mailed to you as JSON")
    example = "export"

    def process(self, ctx: Context, args: str) -> str:
        if args.strip():
            raise Usage("export (nothing after it)")
        if not mail_export(ctx.store, ctx.me):
            return _("export: mailed to you today already: the next tomorrow")
        return _("export: your data goes to %(address)s as an attachment") % {
            "address": ctx.me.email}
