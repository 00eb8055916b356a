"""resign, and resign off: give the game up, or take the offer back."""

from ...i18n import N_
from .acting import act
from .base import Command, Context
from .errors import Usage


class Resign(Command):
    name = "resign"
    help = N_("resign: give the game up (with a partner, it is an offer until your partner "
            "resigns too); resign off: take your offer back")
    example = "resign"

    def process(self, ctx: Context, args: str) -> str:
        off = args.lower().strip()
        if off not in ("", "off"):
            raise Usage("resign, or: resign off")
        action = {"type": "concede", "off": True} if off else {"type": "concede"}
        return act(ctx, f"resign {off}".strip(), action)
