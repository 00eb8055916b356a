"""Open seeks by mail (pbem.organise.seeks): `seek` posts one, `seeks` lists the open ones,
`accept N` takes a seat in one (`join N` is a league's entry), `unseek N` withdraws your
own. At the account address (and a seat's), from the player's own address, as every
account command: a stranger's mail changes nothing.

    seek PRESET [KEY=VALUE ...] [clock HOURS [robot|forfeit|wait] [weekends]]
                [clock bank HOURS INCREMENT CAP ...] [rating LOW-HIGH] [robots after N days]

The words go into the new-game form's fields and are read by its readers, so a seek by
mail takes exactly what the web's form takes."""

from ...i18n import N_, _, ngettext
from ...numbers import whole
from ...organise.seeks import Listed, SeekError, cancel, join, open_seeks, post, read_spec
from .base import Command, Context
from .errors import Declined, Usage

SEEK_USAGE = ("seek PRESET [clock 48h] [rating 1400-1700] [robots after 3 days], e.g. "
              "seek standard clock 72h rating 1400-1700 robots after 3 days")
KEYWORDS = ("clock", "rating", "robots")
TIMEOUTS = ("robot", "forfeit", "wait")


class Seek(Command):
    name = "seek"
    help = N_("seek PRESET [clock 48h] [rating 1400-1700] [robots after 3 days]: ask for a "
              "game with anyone")
    example = "seek standard clock 48h rating 1400-1700 robots after 3 days"

    def process(self, ctx: Context, args: str) -> str:
        form = seek_form(args)
        try:
            seek_id = post(ctx.store, ctx.my_id, read_spec(form))
        except ValueError as e:  # SeekError, and the new-game readers' RulesError too
            raise Declined(str(e)) from None
        return _("seek %(seek)s is open: others see it with seeks, and take a seat with "
                 "accept %(seek)s") % {"seek": seek_id}


class Seeks(Command):
    name, help = "seeks", N_("seeks: the open seeks, each with its number")
    example = "seeks"

    def process(self, ctx: Context, args: str) -> str:
        if args.strip():
            raise Usage("seeks")
        listed = open_seeks(ctx.store)
        if not listed:
            return _("seeks: none is open; post one with seek PRESET")
        return _("seeks:") + "".join("\n  " + describe(x) for x in listed)


class Accept(Command):
    name, help = "accept", N_("accept N: take a seat in open seek N (see seeks)")
    example = "accept 3"

    def process(self, ctx: Context, args: str) -> str:
        seek_id = _number(args, "accept N")
        try:
            done = join(ctx.store, seek_id, ctx.my_id)
        except SeekError as e:
            raise Declined(str(e)) from None
        if done.game_id is not None:
            return _("accept %(seek)s: the table is full, game %(game)s is dealt (its mail "
                     "comes to you as every game's does)") % {"seek": seek_id,
                                                              "game": done.game_id}
        return ngettext("accept %(seek)s: you have a seat; %(num)s seat is still empty",
                        "accept %(seek)s: you have a seat; %(num)s seats are still empty",
                        done.left) % {"seek": seek_id, "num": done.left}


class Unseek(Command):
    name, help = "unseek", N_("unseek N: withdraw your open seek N")
    example = "unseek 3"

    def process(self, ctx: Context, args: str) -> str:
        seek_id = _number(args, "unseek N")
        try:
            cancel(ctx.store, seek_id, ctx.my_id)
        except SeekError as e:
            raise Declined(str(e)) from None
        return _("unseek %(seek)s: withdrawn") % {"seek": seek_id}


def describe(x: Listed) -> str:
    """One open seek in a line: the mail's and the page's words."""
    parts = [_("%(seek)s: %(preset)s, %(clock)s") % {"seek": x.id, "preset": x.preset,
                                                     "clock": x.clock},
             _("%(taken)s of %(seats)s seats taken (%(names)s)") % {
                 "taken": len(x.names), "seats": x.players, "names": ", ".join(x.names)}]
    if x.rating:
        parts.append(_("ratings %(low)s-%(high)s") % {"low": x.rating[0], "high": x.rating[1]})
    day = x.due.date().isoformat()
    parts.append(_("robots fill the empty seats on %(day)s") % {"day": day} if x.robots
                 else _("open until %(day)s") % {"day": day})
    return "; ".join(parts)


def seek_form(args: str) -> dict[str, str]:
    """The new-game form's fields that `seek`'s words fill (Usage if they do not fit)."""
    words = args.lower().split()
    if not words or words[0] in KEYWORDS or len(words) > 40:
        raise Usage(SEEK_USAGE)
    form = {"preset": words[0]}
    parts: dict[str, list[str]] = {"": []}
    key = ""
    for word in words[1:]:
        if word in KEYWORDS:
            if word in parts:
                raise Usage(SEEK_USAGE)
            key = word
            parts[key] = []
        else:
            parts[key].append(word)
    if any("=" not in w for w in parts[""]):
        raise Usage(SEEK_USAGE)
    form["options"] = "\n".join(parts[""])
    if "clock" in parts:
        form.update(_clock(parts["clock"]))
    if "rating" in parts:
        low, dash, high = "".join(parts["rating"]).partition("-")
        if not dash:
            raise Usage(SEEK_USAGE)
        form.update(rating_min=low, rating_max=high)
    if "robots" in parts:
        days = [w for w in parts["robots"] if w not in ("after", "days", "day")]
        if len(days) != 1:
            raise Usage(SEEK_USAGE)
        form["robot_days"] = days[0]
    return form


def _clock(words: list[str]) -> dict[str, str]:
    """`48h [robot|forfeit|wait] [weekends]`, or `bank 72 12 168 ...`: the form's fields."""
    form = {"on_timeout": next((w for w in words if w in TIMEOUTS), "robot")}
    if "weekends" in words:
        form["weekend_pause"] = "on"
    rest = [w for w in words if w not in (*TIMEOUTS, "weekends", "hours", "h")]
    if rest[:1] == ["bank"] and len(rest) == 4:
        return form | {"clock": "bank", "bank_hours": rest[1], "increment_hours": rest[2],
                       "cap_hours": rest[3]}
    if len(rest) != 1:
        raise Usage(SEEK_USAGE)
    return form | {"move_hours": rest[0].removesuffix("h")}


def _number(args: str, usage: str) -> int:
    number = whole(args.strip())
    if number is None:
        raise Usage(usage)
    return number
