"""name Ann Smith: the name every table, mail and page shows for the player, in place of
the address's local part (pbem.store.names: bounded and cleaned); `name` alone says it."""

from ...i18n import _
from ...store.names import set_name
from .base import Command, Context
from .errors import Declined


class Name(Command):
    name, help = "name", "name Ann Smith: the name others see at your tables"
    example = "name Ann Smith"

    def process(self, ctx: Context, args: str) -> str:
        if not args.strip():
            return _("name: you are shown as %(name)s") % {"name": ctx.me.name}
        try:
            ctx.player = set_name(ctx.store, ctx.my_id, args)
        except ValueError as e:
            raise Declined(str(e)) from None
        return _("name: you are shown as %(name)s") % {"name": ctx.me.name}
