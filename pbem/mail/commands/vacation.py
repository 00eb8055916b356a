"""vacation N days, vacation off: the player's deadlines stand still (pbem.vacation)."""

from ...i18n import N_, _
from ...numbers import whole
from ...vacation import end_vacation, start_vacation
from .base import Command, Context
from .errors import Declined, Usage, VacationLength


class Vacation(Command):
    name, help = "vacation", N_("vacation N days, or vacation off: your deadlines stand still")
    example = "vacation 5 days"

    def process(self, ctx: Context, args: str) -> str:
        words = args.lower().split()
        if words == ["off"]:
            back = end_vacation(ctx.store, ctx.my_id)
            return _("vacation: off (%(days)s days back in your bank)") % {"days": back}
        days = whole(words[0]) if len(words) in (1, 2) else None
        if days is None or words[1:] not in ([], ["days"], ["day"]):
            raise Usage("vacation 5 days, or: vacation off")
        if not 1 <= days <= 60:
            raise VacationLength()
        try:
            until = start_vacation(ctx.store, ctx.my_id, days)
        except ValueError as e:
            raise Declined(str(e)) from None
        return _("vacation: until %(day)s") % {"day": until.isoformat()}
