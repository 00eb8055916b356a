"""status: the seat's table again (every seat answer shows it)."""

from .base import Command, Context


class Status(Command):
    name, help, example = "status", "send my table again", "status"

    def process(self, ctx: Context, args: str) -> str:
        return "status: your table is below"
