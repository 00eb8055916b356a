"""undo: take back the seat's last bid or card (the engine says when it may)."""

from ...i18n import N_
from .acting import act
from .base import Command, Context
from .errors import UndoTakesNoWords


class Undo(Command):
    name = "undo"
    help = N_("undo: take back your last bid or card, while no other seat has acted since")
    example = "undo"

    def process(self, ctx: Context, args: str) -> str:
        if args:
            raise UndoTakesNoWords()
        return act(ctx, "undo", {"type": "undo"})
