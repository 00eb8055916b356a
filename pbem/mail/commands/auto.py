"""auto: which cards play themselves (the only legal one, equal ones too, or none)."""

from .base import Command, Context, set_pref
from .errors import Usage


class Auto(Command):
    name, help = "auto", ("auto on: your only legal card plays itself (the default); auto "
                          "equal: cards of equal value too, lowest first; auto off: never")
    example = "auto equal"

    def process(self, ctx: Context, args: str) -> str:
        how = {"on": "forced", "equal": "equal", "off": "off"}.get(args.lower().strip())
        if how is None:
            raise Usage("auto on, auto equal, or auto off")
        set_pref(ctx, "auto", how)
        return f"auto: {args.lower().strip()}"
