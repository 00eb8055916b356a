"""Mail commands, one small class each (after Mailman 3's email commands), and the runner
that reads a mail's lines in order, stops at the first line it cannot do, and answers with
a summary. Any line that is not a named command is read as a move ("bid 4", "play QH")."""

import re
from dataclasses import dataclass, field, replace

from sqlmodel import select

from .. import orders
from ..engine import parse_action, pretty
from ..engine.view import bid_words
from ..numbers import whole
from ..play import Refused, settle, submit
from ..store import prefs
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
    moves: list[tuple[dict, bool]] = field(default_factory=list)  # (action, was a repeat)
    ahead: list[str] = field(default_factory=list)  # bids kept for the seat's turn
    seen: object = None  # the table just read, for the first move's door (play.Seen)
    # answer.rows(ctx): the mail's answer (Outbox rows); answer.record(s): its Inbound row.
    # A move on the mail's last line commits both with itself (then `answered`), so the
    # move stands only if its answer does
    answer: object = None
    last: bool = False  # the line being done is the mail's last
    answered: bool = False
    asked: object = None  # the answer written with the move: the table its write left (Table)
    league: int | None = None  # the organiser address's league: its commands' only league


class Command:
    name = ""
    help = ""
    strangers = False  # may someone we do not know yet use it (at plain pbem@)?

    def process(self, ctx: Context, args: str) -> str:
        raise NotImplementedError

    def claims(self, line: str) -> bool:
        """Does this command take the whole line whatever its first word?"""
        return False


class Status(Command):
    name, help = "status", "send my table again"

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
        if len(words) in (1, 2) and whole(words[0]) is not None and \
                words[1:] in ([], ["days"], ["day"]):
            days = whole(words[0])
            if not 1 <= days <= 60:
                raise CommandError("a vacation is 1 to 60 days")
            try:
                until = start_vacation(ctx.store, ctx.player.id, days)
            except ValueError as e:
                raise CommandError(str(e)) from None
            return f"vacation: until {until.isoformat()}"
        raise CommandError("write: vacation 5 days, or: vacation off")


class Notify(Command):
    name, help = "notify", ("notify every hand (the default: a mail when a hand is scored, with "
                            "your new hand), notify every trick, or notify digest (once a day): "
                            "how you hear of others' moves")

    def process(self, ctx, args):
        try:
            how = prefs.parse_notify(args)
        except ValueError as e:
            raise CommandError(str(e)) from None
        set_pref(ctx, "notify", how)
        return f"notify: {how}"


class Auto(Command):
    name, help = "auto", ("auto on: your only legal card plays itself (the default); auto "
                          "equal: cards of equal value too, lowest first; auto off: never")

    def process(self, ctx, args):
        how = {"on": "forced", "equal": "equal", "off": "off"}.get(args.lower().strip())
        if how is None:
            raise CommandError("write: auto on, auto equal, or auto off")
        set_pref(ctx, "auto", how)
        return f"auto: {args.lower().strip()}"


class Mail(Command):
    name, help = "mail", "mail off: no mail from us at all (as an unsubscribe); mail on: again"

    def process(self, ctx, args):
        how = args.lower().strip()
        if how not in ("on", "off"):
            raise CommandError("write: mail off, or: mail on")
        set_pref(ctx, "mail", how)
        return "mail: off (this is the last; write mail on to hear from us again)" \
            if how == "off" else "mail: on"


def set_pref(ctx, key, value):
    ctx.player = prefs.update(ctx.store, ctx.player.id, **{key: value})


class Setting(Command):
    """A setting of pbem.store.prefs, read from words: "zone Europe/Paris", "quiet 23-7"."""

    def __init__(self, name, help):
        self.name, self.help = name, help

    def process(self, ctx, args):
        try:
            value = prefs.PARSERS[self.name](args)
        except ValueError as e:
            raise CommandError(str(e)) from None
        set_pref(ctx, self.name, value)
        return f"{self.name}: {prefs.describe(self.name, value)}"


SETTINGS = [
    Setting("zone", "zone Europe/Paris: your time zone, for rest days and quiet hours"),
    Setting("rest", "rest sat sun, rest weekends, rest none: days your deadlines stand still"),
    Setting("quiet", "quiet 23-7: no mail from us between those hours; quiet off"),
    Setting("cap", "cap 20: at most that many turn and news mails a day; cap off"),
    Setting("merge", "merge 30: a turn mail waits 30 minutes, so several games' turns come as "
                     f"one mail; merge off; merge default ({prefs.LEAGUE_MERGE} in league games)"),
]


class Move(Command):
    name, help = "", ("a move: bid 4, nil, blind nil, play QH, Q♥, claim, misdeal "
                      "(a bid before your turn is kept and made at your turn)")

    def process(self, ctx, line):
        try:
            action = parse_action(line, ctx.state.rules)
        except ValueError as e:
            raise CommandError(str(e)) from None
        if action["type"] == "bid" and _not_yet(ctx.state, ctx.seat.seat):
            return bid_ahead(ctx, action, line)
        return act(ctx, line, action)


def line_ref(ctx) -> str:
    """The line's ref: each line of a mail applies once for each seat it reached (one mail
    may be addressed to the player's seats in several games), the mail's retry included."""
    return f"{ctx.message_id}#{ctx.seat.game_id}.{ctx.seat.seat}.{len(ctx.done)}"


def act(ctx, line, action) -> str:
    """Submit one line's action for the mail's seat; the table as it is now either way."""
    ref = line_ref(ctx)
    seen, ctx.seen = ctx.seen, None  # a read is good for one move only
    after = _Answering(ctx, line, action) if ctx.answer is not None and ctx.last else None
    try:
        result = submit(ctx.store, ctx.seat.game_id, ctx.seat.seat, action,
                        expect_seq=ctx.expect_seq, source="mail", ref=ref, seen=seen,
                        after=after)
    except Refused as e:
        if e.state is not None:
            ctx.state = e.state
        raise CommandError(show_cards(e.reason)) from None
    ctx.state = result.state
    ctx.expect_seq = result.state.seq
    ctx.moves.append((action, result.duplicate))
    ctx.answered = after is not None and not result.duplicate
    # a line applied before (its ref is this mail's) was our own try whose answer was never
    # written (else the mail's Inbound row would have stopped it): answered as done
    return _said(line, result.events)


def _said(line, events) -> str:
    if any(ev["type"] == "resign" for ev in events):
        return f"{line}: done, your side gave the game up"
    return f"{line}: done"


class _Answering:
    """The hook (play.submit's `after`) that writes the mail's answer in the move's own
    transaction, from the table the move leaves (play's Table), as if the line were done
    (it is, if the transaction commits)."""

    def __init__(self, ctx, line, action):
        self.ctx, self.line, self.action = ctx, line, action

    def __call__(self, s, t) -> list[dict]:
        ctx = self.ctx
        ctx.answer.record(s)
        return ctx.answer.rows(replace(ctx, state=t.st, expect_seq=t.st.seq,
                                       done=[*ctx.done, _said(self.line, t.events)],
                                       moves=[*ctx.moves, (self.action, False)], asked=t))


class Say(Command):
    name = "say"
    help = "say and your words: table talk that every seat (and the game's log) sees"

    def claims(self, line):  # before orders: "say play the ace" is talk, not an order
        return line.split(" ", 1)[0].lower().rstrip(":") == "say"

    def process(self, ctx, line):
        text = line.split(" ", 1)[1] if " " in line else ""
        short = line if len(line) <= 40 else line[:39] + "…"
        return act(ctx, short, {"type": "say", "text": text})


class Undo(Command):
    name = "undo"
    help = "undo: take back your last bid or card, while no other seat has acted since"

    def process(self, ctx, args):
        if args:
            raise CommandError("write just: undo (it takes back your last bid or card)")
        return act(ctx, "undo", {"type": "undo"})


class Resign(Command):
    name = "resign"
    help = ("resign: give the game up (with a partner, it is an offer until your partner "
            "resigns too); resign off: take your offer back")

    def process(self, ctx, args):
        off = args.lower().strip()
        if off not in ("", "off"):
            raise CommandError("write: resign, or: resign off")
        action = {"type": "concede", "off": True} if off else {"type": "concede"}
        return act(ctx, f"resign {off}".strip(), action)


def _not_yet(st, seat) -> bool:
    """Is the seat still to bid, but not now?"""
    return st.phase == "bid" and st.comeout_side is None and st.bids[seat] is None \
        and seat not in st.bid_turns[st.bid_index]


def bid_ahead(ctx, action, line) -> str:
    """A bid from a seat whose turn to bid has not come: kept as its order (pbem.orders),
    made by the door at that turn."""
    gid, seat = ctx.seat.game_id, ctx.seat.seat
    try:
        orders.give_bid(ctx.store, gid, seat, action, did(action), ctx.state,
                        line_ref(ctx))
        result = settle(ctx.store, gid)  # its turn may have come meanwhile
    except (ValueError, Refused) as e:
        raise CommandError(show_cards(getattr(e, "reason", str(e)))) from None
    ctx.state, ctx.expect_seq = result.state, result.state.seq
    if any(ev.get("auto") == "order" and ev["seat"] == seat and ev["type"] == "bid"
           for ev in result.events):
        ctx.moves.append((action, False))
        return f"{line}: done"
    ctx.ahead.append(f"{did(action)} at your turn")
    return f"{line}: kept, made at your turn"


_CODE = re.compile(r"'([2-9TJQKA][SHDC]|BJ|LJ)'|(?<![\w'])([2-9TJQKA][SHDC]|BJ|LJ)(?![\w'])")


def show_cards(text: str) -> str:
    """Cards named as the mail shows them: "'TH' is not in your hand" -> "10♥ is not..."."""
    return _CODE.sub(lambda m: pretty(m.group(1) or m.group(2)), text)


_DID = {"say": "spoke at the table", "undo": "took back your move",
        "claim": "claimed the rest", "misdeal": "called a misdeal", "look": "looked at your cards",
        "come_out": "came out", "stay": "stayed"}


def did(action: dict) -> str:
    """What a move did, for a subject line: "bid 4", "played 10♥", "passed 3♣ 4♦ 9♥"."""
    kind = action["type"]
    if kind == "bid":
        return f"bid {bid_words(action)}"  # "bid 4 little mo" (B12), "bid 5 aces" (S7)
    if kind == "play":
        return f"played {pretty(action['card'])}"
    if kind == "pass":
        return "passed " + " ".join(pretty(c) for c in action["cards"])
    if kind == "draw":
        return "kept the card" if action["keep"] else "took the next card"
    if kind == "concede":
        return "took back your offer to resign" if action.get("off") else "said resign"
    return _DID.get(kind, kind.replace("_", " "))


class Orders(Command):
    name = "orders"
    help = ("orders ahead, kept secret: play QH then KH; lead AS next; if hearts are led play "
            "2H; follow low in clubs (or duck in clubs); cover in hearts, or cover (every suit "
            "but spades): beat the trick when you can, low when your partner wins it; orders "
            "(list them); clear orders")

    def claims(self, line):
        low = " ".join(line.lower().split())
        if low in ("orders", "clear orders"):
            return True
        try:
            return orders.read(low) is not None
        except ValueError:
            return True  # an order with a word that is no card: say so

    def process(self, ctx, line):
        low = " ".join(line.lower().split())
        gid, seat = ctx.seat.game_id, ctx.seat.seat
        if low == "clear orders":
            return f"clear orders: {orders.clear(ctx.store, gid, seat)} dropped"
        if low == "orders":
            with ctx.store.reader() as s:
                mine = [r.text for r in orders.pending(s, gid, seat)]
            return "orders: " + ("; ".join(dict.fromkeys(mine)) or "none")
        try:
            kept = orders.give(ctx.store, gid, seat, line, ctx.state, line_ref(ctx))
            result = settle(ctx.store, gid)  # one may act at once, if it is your turn
        except (ValueError, Refused) as e:
            raise CommandError(show_cards(getattr(e, "reason", str(e)))) from None
        ctx.state, ctx.expect_seq = result.state, result.state.seq
        played = [ev for ev in result.events if ev.get("auto") == "order"]
        return f"{line}: {len(kept)} kept" + (", the first played now" if played else "")


# Only a seat's address runs SEAT_COMMANDS (pbem.mail.inbound.AT_SEAT): status, say, undo,
# resign, orders and the move (the nameless fallback) act on ctx.seat, which is None
# anywhere else. So no other address's list (account, organiser, plain pbem@ and its link)
# holds one of them or a fallback: any other line there is "not a command here".
SEAT_COMMANDS = [Status(), Help(), Games(), Say(), Undo(), Resign(), Orders(), Move()]
ACCOUNT_COMMANDS = [Help(), Games(), Vacation(), Notify(), Auto(), Mail(), *SETTINGS]


def run(ctx: Context, lines: list[str], commands) -> tuple | None:
    """Do each line in order; stop at the first that fails and return (line, reason)."""
    named = {c.name: c for c in commands if c.name}
    fallback = next((c for c in commands if not c.name), None)
    todo = unwrap_talk(lines, named)
    for i, line in enumerate(todo):
        ctx.last = i == len(todo) - 1
        word, _, rest = line.partition(" ")
        whole = next((c for c in commands if c.claims(line)), None)
        cmd = named.get(word.lower().rstrip(":"))
        try:
            if whole is not None:
                ctx.done.append(whole.process(ctx, line))
            elif cmd is not None:
                ctx.done.append(cmd.process(ctx, rest.strip()))
            elif fallback is not None:
                ctx.done.append(fallback.process(ctx, line))
            else:
                raise CommandError(f"{word!r} is not a command here: write help")
        except CommandError as e:
            return line, str(e)
    return None


def unwrap_talk(lines: list[str], named) -> list[str]:
    """A mail client wraps a long `say` line at 72 or 78 characters: a line after it that
    is no command (named, claimed, nor a move) is more of its words, not a bad command."""
    if "say" not in named:
        return lines
    out = []
    for line in lines:
        if out and named["say"].claims(out[-1]) and not _a_command(line, named):
            out[-1] = f"{out[-1]} {line.strip()}"
        else:
            out.append(line)
    return out


def _a_command(line: str, named) -> bool:
    """Is the line a command's name, an order well written, or a move?"""
    if line.partition(" ")[0].lower().rstrip(":") in named:
        return True
    for read in (orders.read, parse_action):
        try:
            if read(" ".join(line.lower().split())) is not None:
                return True
        except ValueError:
            pass
    return False


def help_text(commands) -> str:
    return "\n".join(f"  {c.name or '<move>'}: {c.help}" for c in commands if c.help)
