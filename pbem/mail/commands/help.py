"""help: the answer lists the commands of the address the mail came to (the registry's)."""

from .base import Command, Context


class Help(Command):
    name, help, example = "help", "what you can write", "help"

    def process(self, ctx: Context, args: str) -> str:
        ctx.want_help = True
        return "help: the commands are below"
