"""zone, rest, quiet, cap, merge: a setting of pbem.store.prefs each, read by its own
parser there ("zone Europe/Paris", "quiet 23-7"). One class: only the words differ."""

from ...store import prefs
from .base import Command, Context, set_pref
from .errors import Declined


class Setting(Command):
    def __init__(self, name: str, help: str, example: str):
        self.name, self.help, self.example = name, help, example

    def process(self, ctx: Context, args: str) -> str:
        try:
            value = prefs.PARSERS[self.name](args)
        except ValueError as e:
            raise Declined(str(e)) from None
        set_pref(ctx, self.name, value)
        return f"{self.name}: {prefs.describe(self.name, value)}"


ZONE = Setting("zone", "zone Europe/Paris: your time zone, for rest days and quiet hours",
               "zone Europe/Paris")
REST = Setting("rest", "rest sat sun, rest weekends, rest none: days your deadlines stand still",
               "rest sat sun")
QUIET = Setting("quiet", "quiet 23-7: no mail from us between those hours; quiet off",
                "quiet 23-7")
CAP = Setting("cap", "cap 20: at most that many turn and news mails a day; cap off", "cap 20")
MERGE = Setting("merge", "merge 30: a turn mail waits 30 minutes, so several games' turns come "
                f"as one mail; merge off; merge default ({prefs.LEAGUE_MERGE} in league games)",
                "merge 30")
