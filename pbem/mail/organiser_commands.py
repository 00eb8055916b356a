"""A league organiser's commands by mail to the league's secret organiser address
organiser+KEY@DOMAIN, from the organiser's own verified address (pbem.mail.inbound checks
the sender): rulings, the care of tables and players, pausing (pbem.organise.adjudicate,
.care, .pause). LEAGUE, as written before there were such addresses, must be the address's
own league; the league services check again that the sender is its organiser."""

from ..league.manage import LeagueError
from ..league.pause import pause, resume
from ..numbers import whole
from ..organise import care
from ..organise.adjudicate import Via, adjudicate, parse
from .commands import Command, CommandError


def _numbers(words: list[str], usage: str) -> list[int]:
    numbers = [whole(w) for w in words]
    if None in numbers:
        raise CommandError(f"write: {usage}")
    return numbers


def _ours(ctx, lid: int) -> int:
    """The league, if it is the organiser address's own (a command anywhere else, or for
    another league, does nothing)."""
    if ctx.league is None:
        raise CommandError("organiser commands are taken only at the league's organiser "
                           "address, which the organiser's page shows")
    if lid != ctx.league:
        raise CommandError(f"this is the organiser address of league {ctx.league}, not of "
                           f"league {lid}: write to that league's own address")
    return lid


def _league_done(fn, *args):
    try:
        return fn(*args)
    except LeagueError as e:
        raise CommandError(str(e)) from None


class Rule(Command):
    name = "rule"
    help = ("rule LEAGUE GAME win SIDE|loss SIDE|replay|adjust POINTS...|undo MOVE: REASON "
            "(organisers): the league counts the game so")

    def process(self, ctx, args):
        head, colon, reason = args.partition(":")
        words = head.split()
        if not colon or len(words) < 3:
            raise CommandError("write: rule LEAGUE GAME RULING: REASON (e.g. rule 1 12 win 2: "
                               "the opponents revoked)")
        lid, gid = _numbers(words[:2], "rule LEAGUE GAME RULING: REASON")
        _ours(ctx, lid)
        ruling = _league_done(parse, words[2:], reason)
        ref = f"{ctx.message_id}#rule.{gid}.{len(ctx.done)}"[:300] if ctx.message_id else None
        ev = _league_done(adjudicate, ctx.store, lid, ctx.player.id, gid, ruling,
                          Via("mail", ref)).events  # a mail's line applies once
        return f"rule: game {gid}, ruling at move {ev[0]['seq']}" if ev else \
            f"rule: game {gid}, done already"


class More(Command):
    name, help = "more", "more LEAGUE GAME HOURS (organisers): give a table more hours"

    def process(self, ctx, args):
        if len(args.split()) != 3:
            raise CommandError("write: more LEAGUE GAME HOURS")
        lid, gid, hours = _numbers(args.split(), "more LEAGUE GAME HOURS")
        _ours(ctx, lid)
        _league_done(care.more_hours, ctx.store, lid, ctx.player.id, gid, hours)
        return f"more: game {gid} has {hours} more hours"


class Robot(Command):
    name, help = "robot", "robot LEAGUE GAME [SEAT] (organisers): the robot makes this move"

    def process(self, ctx, args):
        words = args.split()
        if len(words) not in (2, 3):
            raise CommandError("write: robot LEAGUE GAME [SEAT]")
        lid, gid, *seat = _numbers(words, "robot LEAGUE GAME [SEAT]")
        _ours(ctx, lid)
        _league_done(care.robot_move, ctx.store, lid, ctx.player.id, gid,
                     seat[0] if seat else None)
        return f"robot: the robot made the move in game {gid}"


class Remind(Command):
    name, help = "remind", "remind LEAGUE GAME (organisers): ask the players to act now"

    def process(self, ctx, args):
        if len(args.split()) != 2:
            raise CommandError("write: remind LEAGUE GAME")
        lid, gid = _numbers(args.split(), "remind LEAGUE GAME")
        _ours(ctx, lid)
        n = _league_done(care.remind, ctx.store, lid, ctx.player.id, gid)
        return f"remind: {n} player(s) of game {gid} reminded"


class Message(Command):
    name = "message"
    help = "message LEAGUE [season N]: TEXT (organisers): mail every player"

    def process(self, ctx, args):
        head, colon, text = args.partition(":")
        usage = "message LEAGUE [season N]: TEXT"
        if not colon:
            raise CommandError(f"write: {usage}")
        lid, season = _league_and_season(head.split(), usage)
        _ours(ctx, lid)
        n = _league_done(care.message, ctx.store, lid, ctx.player.id,
                         "a message from the organiser", text, season)
        return f"message: mailed to {n} player(s)"


def _league_and_season(words: list[str], usage: str) -> tuple[int, int | None]:
    """LEAGUE, or LEAGUE season N."""
    if len(words) not in (1, 3) or (len(words) == 3 and words[1].lower() != "season"):
        raise CommandError(f"write: {usage}")
    lid, *season = _numbers(words[::2], usage)
    return lid, season[0] if season else None


class Pausing(Command):
    """pause or resume: one command each, the same words."""

    def __init__(self, name: str, fn, what: str):
        self.name, self.fn, self.done = name, fn, name + "d"
        self.help = f"{name} LEAGUE [season N] (organisers): {what}"

    def process(self, ctx, args):
        lid, season = _league_and_season(args.split(), f"{self.name} LEAGUE [season N]")
        _ours(ctx, lid)
        numbers = _league_done(self.fn, ctx.store, lid, ctx.player.id, season)
        return f"{self.name}: season(s) {', '.join(map(str, numbers))} of league {lid} " \
            f"{self.done}"


ORGANISER_COMMANDS = [Rule(), More(), Robot(), Remind(), Message(),
                      Pausing("pause", pause, "stop its deadlines"),
                      Pausing("resume", resume, "restart its deadlines")]
