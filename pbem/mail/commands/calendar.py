"""calendar: the player's deadlines as a calendar feed (pbem.calendar_feed), at a secret
address (pbem.store.calendars). Only its hash is kept, so `calendar` makes one when the
player has none, and otherwise says so rather than replace it unasked; `calendar new`
replaces it (the old address answers 404 from then on), `calendar revoke` turns it off."""

from ...config import load
from ...i18n import N_, _
from ...store import calendars
from .base import Command, Context
from .errors import Usage

USAGE = "calendar [new | revoke]"


class Calendar(Command):
    name, help = "calendar", N_("calendar: your deadlines in your own calendar (calendar "
                                "new, calendar revoke)")
    example = "calendar"

    def process(self, ctx: Context, args: str) -> str:
        word = args.strip().lower()
        if word == "revoke":
            if calendars.remove(ctx.store, ctx.my_id):
                return _("calendar: your calendar feed is off; its address no longer works")
            return _("calendar: you had no calendar feed")
        if word not in ("", "new"):
            raise Usage(USAGE)
        if word == "":
            with ctx.store.reader() as s:
                since = calendars.since(s, ctx.my_id)
            if since is not None:
                return _("calendar: you have a calendar feed since %(day)s; its address is not "
                         "kept, so it cannot be sent again: write calendar new for a new one "
                         "(the old one then stops working) or calendar revoke to turn it off"
                         ) % {"day": since.strftime("%Y-%m-%d")}
        url = f"{load().base_url.rstrip('/')}/cal/{calendars.renew(ctx.store, ctx.my_id)}.ics"
        return _("calendar: subscribe to %(url)s in your calendar (add calendar from URL): "
                 "each deadline of yours is an event. Keep it private; any address you had "
                 "before no longer works") % {"url": url}
