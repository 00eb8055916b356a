"""zone, rest, quiet, cap, merge, lang: a setting of pbem.store.prefs each, read by its own
parser there ("zone Europe/Paris", "quiet 23-7"). One class: only the words differ."""

from ...i18n import N_, _
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
        return _("%(name)s: %(value)s") % {"name": self.name,
                                           "value": prefs.describe(self.name, value)}


ZONE = Setting("zone", N_("zone Europe/Paris: your time zone, for rest days and quiet hours"),
               "zone Europe/Paris")
REST = Setting("rest", N_("rest sat sun, rest weekends, rest none: days your deadlines stand "
                          "still"),
               "rest sat sun")
QUIET = Setting("quiet", N_("quiet 23-7: no mail from us between those hours; quiet off"),
                "quiet 23-7")
CAP = Setting("cap", N_("cap 20: at most that many turn and news mails a day; cap off"),
              "cap 20")
MERGE = Setting("merge", N_("merge 30: a turn mail waits 30 minutes, so several games' turns "
                            "come as one mail; merge off; merge default (15 in league games)"),
                "merge 30")
assert prefs.LEAGUE_MERGE == 15, "merge's help names the league default"
LANG = Setting("lang", N_("lang de: the language of your mails and pages (en, de, fr, es, pt)"),
               "lang de")
