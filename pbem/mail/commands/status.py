"""status: the seat's table again (every seat answer shows it)."""

from ...i18n import N_, _
from .base import Command, Context


class Status(Command):
    name, help, example = "status", N_("send my table again"), "status"

    def process(self, ctx: Context, args: str) -> str:
        return _("status: your table is below")
