"""League commands by mail to a player's account address pbem+KEY@DOMAIN (or a seat's),
one small class each (as in commands.py): join (from anyone at plain pbem@ too), leave,
leagues, and the moves digest (moves, turns)."""

from sqlmodel import select

from ..config import load
from ..digest import your_moves
from ..league.manage import LeagueError, address, request_join, withdraw
from ..numbers import whole
from ..store import mail_limits
from ..store.models import Entry, League, Season
from .commands import Command, CommandError, set_pref


def _league_number(word: str) -> int:
    number = whole(word)
    if number is None:
        raise CommandError(f"{word[:20]!r} is not a league number (see the league's page)")
    return number


class Join(Command):
    name, help = "join", "join LEAGUE, or join LEAGUE with PARTNER@ADDRESS: enter a league"
    strangers = True  # anyone may ask: the entry waits for a yes from the address's owner

    def process(self, ctx, args):
        words = args.split()
        if len(words) not in (1, 3) or (len(words) == 3 and words[1].lower() != "with"):
            raise CommandError("write: join LEAGUE, or: join LEAGUE with PARTNER@ADDRESS")
        lid = _league_number(words[0])
        name = ctx.player.name if ctx.player else ""
        try:
            # the sender is mailed the link now, the partner once the entry is confirmed
            mailed = [address(w) for w in (ctx.sender, *words[2:])]
            _within_limits(ctx, mailed)
            sent = request_join(ctx.store, lid, ctx.sender, name, words[2] if words[2:] else None)
        except LeagueError as e:
            raise CommandError(str(e)) from None
        with ctx.store.session() as s:
            mail_limits.count(s, mail_limits.sender(ctx.sender), mailed)
            s.commit()
        return f"join {lid}: a link to confirm your entry was mailed to {sent}"


def _within_limits(ctx, mailed: list[str]) -> None:
    """The web's hourly limits (pbem.store.mail_limits): a From is as easy to forge as a form
    is to post, so per sender, per address written to and per partner named."""
    with ctx.store.reader() as s:
        if mail_limits.over(s, mail_limits.sender(ctx.sender), mailed):
            raise LeagueError("we have sent as much mail as we may for now, for you or to that "
                              "address: try again in an hour. Nothing was sent or changed")


def _my_entries(store, player_id: int, league_id: int | None = None) -> list:
    """(entry, season, league) for each season the player is entered in, newest first."""
    with store.session() as s:
        q = (select(Entry, Season, League).join(Season, Season.id == Entry.season_id)
             .join(League, League.id == Season.league_id)
             .where((Entry.player_id == player_id) | (Entry.partner_id == player_id)))
        if league_id is not None:
            q = q.where(League.id == league_id)
        return list(s.exec(q.order_by(Season.id.desc())).all())


class Leave(Command):
    name, help = "leave", "leave LEAGUE: take your entry out (robots play your tables)"

    def process(self, ctx, args):
        lid = _league_number(args.strip() or "?")
        live = [(e, sn) for e, sn, _ in _my_entries(ctx.store, ctx.player.id, lid)
                if sn.status != "over" and e.status != "withdrawn"]
        if not live:
            raise CommandError(f"you have no entry in league {lid} to take out")
        entry, season = live[0]
        try:
            withdraw(ctx.store, lid, ctx.player.id, entry.id)
        except LeagueError as e:
            raise CommandError(str(e)) from None
        return f"leave {lid}: {entry.name} is out of season {season.number}"


class Leagues(Command):
    name, help = "leagues", "list my leagues"

    def process(self, ctx, args):
        rows = _my_entries(ctx.store, ctx.player.id)
        if not rows:
            return "leagues: you are in no league"
        base = load().base_url
        lines = [f"  league {lg.id} ({lg.name}), season {sn.number}: {sn.status}"
                 f"{', withdrawn' if e.status == 'withdrawn' else ''}  {base}/l/{lg.id}"
                 for e, sn, lg in rows]
        return "leagues:\n" + "\n".join(lines)


class Moves(Command):
    name, help = "moves", "list every game where it is my move, with a link for each"

    def process(self, ctx, args):
        lines = your_moves(ctx.store, ctx.player.id)
        if not lines:
            return "moves: it is not your move in any game"
        return "moves:\n" + "\n".join("  " + x for x in lines)


class Turns(Command):
    name = "turns"
    help = "turns daily, or turns each: one mail a day listing your moves, or a mail a turn"

    def process(self, ctx, args):
        how = args.strip().lower()
        if how not in ("daily", "each"):
            raise CommandError("write: turns daily, or: turns each")
        set_pref(ctx, "turns", how)
        return f"turns: {how}"


LEAGUE_COMMANDS = [Join(), Leave(), Leagues(), Moves(), Turns()]
