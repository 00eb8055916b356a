"""forget me: a mailed link, whose button forgets the player for good (pbem.privacy.forget):
as irreversible as it is, it is confirmed from the player's own mailbox."""

from ...i18n import N_, _
from ...privacy.mailed import ask_to_forget
from .base import Command, Context
from .errors import Usage


class Forget(Command):
    name, help = "forget", N_("forget me: no more mail, your address and name replaced everywhere")
    example = "forget me"

    def process(self, ctx: Context, args: str) -> str:
        if args.strip().lower() != "me":
            raise Usage("forget me")
        ask_to_forget(ctx.store, ctx.me)
        return _("forget me: a link to confirm went to %(address)s; nothing is forgotten "
                 "until you press its button") % {"address": ctx.me.email}
