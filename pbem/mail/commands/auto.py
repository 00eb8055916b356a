"""auto: which cards play themselves (the only legal one and the rest of a settled hand,
equal ones too, or none)."""

from ...i18n import N_, _
from .base import Command, Context, set_pref
from .errors import Usage


class Auto(Command):
    name, help = "auto", N_("auto on: your only legal card plays itself, and so does the rest "
                          "of a hand no play can change (the default); auto equal: cards of "
                          "equal value too, lowest first; auto off: never, and no hand at "
                          "your tables plays itself")
    example = "auto equal"

    def process(self, ctx: Context, args: str) -> str:
        how = {"on": "forced", "equal": "equal", "off": "off"}.get(args.lower().strip())
        if how is None:
            raise Usage("auto on, auto equal, or auto off")
        set_pref(ctx, "auto", how)
        return _("auto: %(how)s") % {"how": args.lower().strip()}
