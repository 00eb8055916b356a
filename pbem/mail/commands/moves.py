"""moves: every game where it is the player's move, with a link each (pbem.digest)."""

from ...digest import your_moves
from ...i18n import N_, _
from .base import Command, Context


class Moves(Command):
    name, help = "moves", N_("list every game where it is my move, with a link for each")
    example = "moves"

    def process(self, ctx: Context, args: str) -> str:
        lines = your_moves(ctx.store, ctx.my_id)
        if not lines:
            return _("moves: it is not your move in any game")
        return _("moves:") + "\n" + "\n".join("  " + x for x in lines)
