"""say: table talk that every seat, and the game's log, sees."""

from ...i18n import N_
from .acting import act
from .base import Command, Context


class Say(Command):
    name = "say"
    help = N_("say and your words: table talk that every seat (and the game's log) sees")
    example = "say Good luck all"

    def claims(self, line: str) -> bool:  # before orders: "say play the ace" is talk
        return line.split(" ", 1)[0].lower().rstrip(":") == "say"

    def process(self, ctx: Context, args: str) -> str:
        line = args  # the whole line (claimed)
        text = line.split(" ", 1)[1] if " " in line else ""
        short = line if len(line) <= 40 else line[:39] + "…"
        return act(ctx, short, {"type": "say", "text": text})
