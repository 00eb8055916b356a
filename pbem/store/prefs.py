"""A player's settings (`Player.prefs`, a JSON object): the keys players set themselves, read
from plain words ("zone Europe/Paris", "rest sat sun", "quiet 23-7"), with their defaults, and
one writer that locks the player's row, so two writers never lose each other's keys.

    zone    the player's time zone (an IANA name): rest days and quiet hours are in it
    rest    weekdays (0 Monday .. 6 Sunday) on which the player's deadlines stand still
    quiet   [from, to] local hours in which no mail is sent (held until `to`), or None
    cap     at most this many turn and news mails a local day (past it turn mails wait for
            the next day and news is not sent), or None
    merge   minutes a turn mail waits, so that several games' turns go out as one mail
            (unset, or `merge default`: LEAGUE_MERGE in a league's games, else 0)
    notify  how the player hears of others' moves: a mail when a hand is scored (with the new
            hand, to bid ahead on; the default), a mail at every trick, or a daily digest
    lang    the language of the player's mails and pages (pbem.i18n.LANGUAGES), English unset
pbem.store.pacing applies quiet, cap and merge as the outbox sends.
"""

from datetime import datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from sqlmodel import select

from ..i18n import DEFAULT as DEFAULT_LANGUAGE
from ..i18n import LANGUAGES, N_, _, ngettext
from .models import Player
from .states import Store

DEFAULTS: dict[str, Any] = {"zone": "UTC", "rest": [], "quiet": None, "cap": None, "merge": 0,
            "notify": "every hand", "lang": DEFAULT_LANGUAGE}
NOTIFY = ("every hand", "every trick", "digest")
_OLD_NOTIFY = {"every turn": "every trick"}  # the name `notify every trick` had first
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_FULL = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_NAMES = {name: i for i, d in enumerate(DAYS) for name in (d, _FULL[i], _FULL[i] + "s")} \
    | {"tues": 1, "thur": 3, "thurs": 3}
MAX_REST_DAYS = 3  # more would let one player stand a game still most of the week
MAX_QUIET_HOURS = 12
CAP_RANGE, MERGE_RANGE = (1, 100), (0, 240)
LEAGUE_MERGE = 15  # minutes a league game's turn mail waits while `merge` is unset


def get(player: Player | None, key: str) -> Any:
    value = (player.prefs or {}).get(key) if player is not None else None
    return DEFAULTS[key] if value is None else value


def zone(player: Player | None) -> ZoneInfo:
    try:
        return ZoneInfo(get(player, "zone"))
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")  # a zone the system no longer knows: never fail a move on it


def local(player: Player | None, when: datetime) -> datetime:
    """`when` (aware, UTC) on the player's own clock."""
    return when.astimezone(zone(player))


def notify(player: Player | None) -> str:
    how = get(player, "notify")
    return _OLD_NOTIFY.get(how, how)


def parse_notify(text: str) -> str:
    how = " ".join(text.lower().split())
    how = _OLD_NOTIFY.get(how, how)
    if how not in NOTIFY:
        raise ValueError(_("write: notify every hand, notify every trick, or notify digest"))
    return how


def language(player: Player | None) -> str:
    """The player's language, a shipped one (a language no longer shipped reads as unset)."""
    lang = get(player, "lang")
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def parse_lang(text: str) -> str:
    """A shipped language by its code or its own name: "de", "Deutsch", "pt-BR"."""
    word = text.strip().lower()
    by_name = {name.lower(): code for code, name in LANGUAGES.items()}
    code = by_name.get(word) or word.replace("_", "-").split("-")[0]
    if code not in LANGUAGES:
        raise ValueError(_("%(word)s is not a language here: write one of %(codes)s")
                         % {"word": repr(text.strip()[:20]), "codes": ", ".join(LANGUAGES)})
    return code


def clock_words(player: Player | None, when: datetime) -> str:
    """`when` on the player's own clock, named: "Mon 23 Nov 14:00 Europe/Paris"."""
    return local(player, when).strftime("%a %d %b %H:%M ") + get(player, "zone")


def rest_days(player: Player | None) -> frozenset[int]:
    return frozenset(get(player, "rest"))


def quiet_hours(player: Player | None) -> tuple[int, int] | None:
    q = get(player, "quiet")
    return (q[0], q[1]) if q else None


# -- reading settings from words ------------------------------------------------------------

@lru_cache(maxsize=1)
def _zones() -> dict[str, str]:
    return {z.lower(): z for z in available_timezones()} | {"utc": "UTC"}


def parse_zone(text: str) -> str:
    name = _zones().get(text.strip().lower())
    if name is None:
        raise ValueError(_("%(word)s is not a time zone: write a name such as Europe/Paris, "
                           "America/New_York or UTC") % {"word": repr(text.strip()[:40])})
    return name


def parse_rest(text: str) -> list[int]:
    words = text.lower().replace(",", " ").replace(" and ", " ").split()
    if words in (["none"], ["off"], ["no"]):
        return []
    if words in (["weekend"], ["weekends"]):
        return [5, 6]
    days = set()
    for w in words:
        day = _DAY_NAMES.get(w)
        if day is None:
            raise ValueError(_("%(word)s is not a day: write e.g. rest sat sun, rest weekends, "
                               "or rest none") % {"word": repr(w[:20])})
        days.add(day)
    if not days or len(days) > MAX_REST_DAYS:
        raise ValueError(_("rest on 1 to %(most)s days a week, or none") % {"most": MAX_REST_DAYS})
    return sorted(days)


def _hour(text: str) -> int:
    h, _colon, m = text.strip().partition(":")
    if not h.isdigit() or m not in ("", "00") or not 0 <= int(h) <= 24:
        raise ValueError(_("%(word)s is not an hour: write e.g. quiet 23-7")
                         % {"word": repr(text.strip()[:10])})
    return int(h) % 24


def parse_quiet(text: str) -> list[int] | None:
    t = text.strip().lower()
    if t in ("off", "none", "no"):
        return None
    start, sep, end = t.replace(" to ", "-").replace(" ", "").partition("-")
    if not sep:
        raise ValueError(_("write e.g. quiet 23-7 (no mail from 23:00 to 07:00), or quiet off"))
    a, b = _hour(start), _hour(end)
    if a == b or (b - a) % 24 > MAX_QUIET_HOURS:
        raise ValueError(_("quiet hours are 1 to %(most)s hours") % {"most": MAX_QUIET_HOURS})
    return [a, b]


def _number(text: str, lo: int, hi: int, what: str, off: int | None = None) -> int | None:
    t = text.strip().lower().split()
    if t and t[0] in ("off", "none", "no"):
        return off
    if not t or not t[0].isdigit() or not lo <= int(t[0]) <= hi:
        raise ValueError(_("%(what)s is a number from %(lo)s to %(hi)s, or off")
                         % {"what": _(what), "lo": lo, "hi": hi})
    return int(t[0])


def parse_cap(text: str) -> int | None:
    return _number(text, *CAP_RANGE, N_("the daily cap"))


def parse_merge(text: str) -> int | None:
    """Minutes; `default` (None: the key is removed) is LEAGUE_MERGE in a league's games."""
    if text.strip().lower() == "default":
        return None
    return _number(text, *MERGE_RANGE, N_("the minutes a turn mail waits"), off=0)


PARSERS = {"zone": parse_zone, "rest": parse_rest, "quiet": parse_quiet, "cap": parse_cap,
           "merge": parse_merge, "lang": parse_lang}


def describe(key: str, value: Any) -> str:
    """A setting as the player reads it back."""
    if key == "rest":  # the days as the command writes them
        return " ".join(DAYS[d] for d in value) or "none"
    if key == "quiet":
        return f"{value[0]:02d}:00-{value[1]:02d}:00" if value else _("off")
    if key == "cap":
        return ngettext("%(num)s mail a day", "%(num)s mails a day", value) % {"num": value} \
            if value else _("off")
    if key == "merge":
        if value is None:
            return _("default (%(minutes)s minutes in a league's games, else at once)") % {
                "minutes": LEAGUE_MERGE}
        return ngettext("%(num)s minute", "%(num)s minutes", value) % {"num": value} \
            if value else _("off (each turn mail at once)")
    if key == "lang":
        return LANGUAGES.get(value, str(value))
    return str(value)


def update(store: Store, player_id: int, **values: Any) -> Player:
    """Set keys of a player's prefs in one transaction, the row locked (PostgreSQL), so a
    concurrent writer of other keys is not undone. A value None removes the key."""
    with store.session() as s:
        player = s.exec(select(Player).where(Player.id == player_id).with_for_update()).one()
        prefs = dict(player.prefs or {}, **values)
        player.prefs = {k: v for k, v in prefs.items() if v is not None}
        s.add(player)
        s.commit()
        s.refresh(player)
        return player
