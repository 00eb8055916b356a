"""Mail commands, one small class each (after Mailman 3's email commands), and the runner
that reads a mail's lines in order, stops at the first line it cannot do, and answers with
a summary. Any line that is not a named command is read as a move ("bid 4", "play QH")."""

from dataclasses import dataclass, field

from sqlmodel import select

from ..engine import parse_action
from ..play import Refused, submit
from ..store.models import Game, Player, Seat
from ..vacation import end_vacation, start_vacation


class CommandError(Exception):
    """The line could not be done; the message says why."""


@dataclass
class Context:
    store: object
    player: Player | None  # None: a stranger (only commands with `strangers` run)
    seat: Seat | None = None  # None at the account address
    message_id: str = ""
    expect_seq: int | None = None
    state: object = None  # the game as it is after the last command
    done: list[str] = field(default_factory=list)
    want_help: bool = False
    sender: str = ""  # the mail's From address


class Command:
    name = ""
    help = ""
    seat_only = False
    strangers = False  # may someone we do not know yet use it (at the account address)?

    def process(self, ctx: Context, args: str) -> str:
        raise NotImplementedError


class Status(Command):
    name, help, seat_only = "status", "send my table again", True

    def process(self, ctx, args):
        return "status: your table is below"


class Help(Command):
    name, help = "help", "what you can write"

    def process(self, ctx, args):
        ctx.want_help = True
        return "help: the commands are below"


class Games(Command):
    name, help = "games", "list my games"

    def process(self, ctx, args):
        with ctx.store.session() as s:
            rows = s.exec(select(Seat, Game).join(Game).where(
                Seat.player_id == ctx.player.id).order_by(Game.id)).all()
        if not rows:
            return "games: you have no games"
        lines = [f"  game {g.id} ({g.rules.get('preset')}), seat {x.seat}: {g.status}"
                 for x, g in rows]
        return "games:\n" + "\n".join(lines)


class Vacation(Command):
    name, help = "vacation", "vacation N days, or vacation off: your deadlines stand still"

    def process(self, ctx, args):
        words = args.lower().split()
        if words == ["off"]:
            back = end_vacation(ctx.store, ctx.player.id)
            return f"vacation: off ({back} days back in your bank)"
        if len(words) in (1, 2) and words[0].isdigit() and words[1:] in ([], ["days"], ["day"]):
            days = int(words[0])
            if not 1 <= days <= 60:
                raise CommandError("a vacation is 1 to 60 days")
            try:
                until = start_vacation(ctx.store, ctx.player.id, days)
            except ValueError as e:
                raise CommandError(str(e)) from None
            return f"vacation: until {until.isoformat()}"
        raise CommandError("write: vacation 5 days, or: vacation off")


class Notify(Command):
    name, help = "notify", "notify every turn, or notify digest: how you hear of others' moves"

    def process(self, ctx, args):
        how = " ".join(args.lower().split())
        if how not in ("every turn", "digest"):
            raise CommandError("write: notify every turn, or: notify digest")
        set_pref(ctx, "notify", how)
        return f"notify: {how}"


def set_pref(ctx, key, value):
    with ctx.store.session() as s:
        player = s.get(Player, ctx.player.id)
        player.prefs = dict(player.prefs or {}, **{key: value})
        s.add(player)
        s.commit()
        ctx.player = player


class Move(Command):
    name, help, seat_only = "", "a move: bid 4, nil, blind nil, play QH, Q♥, claim, misdeal", True

    def process(self, ctx, line):
        try:
            action = parse_action(line, ctx.state.rules)
        except ValueError as e:
            raise CommandError(str(e)) from None
        ref = f"{ctx.message_id}#{len(ctx.done)}"  # each line of a mail applies once
        try:
            result = submit(ctx.store, ctx.seat.game_id, ctx.seat.seat, action,
                            expect_seq=ctx.expect_seq, source="mail", ref=ref)
        except Refused as e:
            if e.state is not None:
                ctx.state = e.state
            raise CommandError(e.reason) from None
        ctx.state = result.state
        ctx.expect_seq = result.state.seq
        return f"{line}: {'already done' if result.duplicate else 'done'}"


SEAT_COMMANDS = [Status(), Help(), Games(), Move()]
ACCOUNT_COMMANDS = [Help(), Games(), Vacation(), Notify()]


def run(ctx: Context, lines: list[str], commands) -> tuple | None:
    """Do each line in order; stop at the first that fails and return (line, reason)."""
    named = {c.name: c for c in commands if c.name}
    fallback = next((c for c in commands if not c.name), None)
    for line in lines:
        word, _, rest = line.partition(" ")
        cmd = named.get(word.lower().rstrip(":"))
        try:
            if cmd is not None:
                ctx.done.append(cmd.process(ctx, rest.strip()))
            elif fallback is not None:
                ctx.done.append(fallback.process(ctx, line))
            else:
                raise CommandError(f"{word!r} is not a command here: write help")
        except CommandError as e:
            return line, str(e)
    return None


def help_text(commands) -> str:
    return "\n".join(f"  {c.name or '<move>'}: {c.help}" for c in commands)
