"""help: the answer lists the commands of the address the mail came to (the registry's)."""

from ...i18n import N_, _
from .base import Command, Context


class Help(Command):
    name, help, example = "help", N_("what you can write"), "help"

    def process(self, ctx: Context, args: str) -> str:
        ctx.want_help = True
        return _("help: the commands are below")
