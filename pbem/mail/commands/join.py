"""join LEAGUE [with PARTNER@ADDRESS]: enter a league. Anyone may ask, at plain pbem@ too:
the entry waits for a yes from the address's owner (a mailed link)."""

from ...i18n import N_, _
from ...league.manage import LeagueError, address, request_join
from ...store import mail_limits
from .base import Command, Context
from .entries import league_number
from .errors import Declined, TooMuchMail, Usage


class Join(Command):
    name, help = "join", N_("join LEAGUE, or join LEAGUE with PARTNER@ADDRESS: enter a league")
    example = "join 3"
    strangers = True  # anyone may ask: the entry waits for a yes from the address's owner

    def process(self, ctx: Context, args: str) -> str:
        words = args.split()
        if len(words) not in (1, 3) or (len(words) == 3 and words[1].lower() != "with"):
            raise Usage("join LEAGUE, or: join LEAGUE with PARTNER@ADDRESS")
        lid = league_number(words[0])
        name = ctx.player.name if ctx.player else ""
        try:
            # the sender is mailed the link now, the partner once the entry is confirmed
            mailed = [address(w) for w in (ctx.sender, *words[2:])]
            _check_limits(ctx, mailed)
            sent = request_join(ctx.store, lid, ctx.sender, name, words[2] if words[2:] else None)
        except LeagueError as e:
            raise Declined(str(e)) from None
        with ctx.store.session() as s:
            mail_limits.count(s, mail_limits.sender(ctx.sender), mailed)
            s.commit()
        return _("join %(league)s: a link to confirm your entry was mailed to %(address)s") % {
            "league": lid, "address": sent}


def _check_limits(ctx: Context, mailed: list[str]) -> None:
    """The web's hourly limits (pbem.store.mail_limits): a From is as easy to forge as a form
    is to post, so per sender, per address written to and per partner named."""
    with ctx.store.reader() as s:
        if mail_limits.over(s, mail_limits.sender(ctx.sender), mailed):
            raise TooMuchMail()
