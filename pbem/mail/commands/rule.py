"""rule LEAGUE GAME RULING: REASON: the organiser's ruling on a game (pbem.organise.adjudicate)."""

from ...i18n import N_, _
from ...organise.adjudicate import Via, adjudicate, parse
from .base import Command, Context
from .errors import Usage
from .organising import ask_league, check_ours, read_numbers


class Rule(Command):
    name = "rule"
    help = N_("rule LEAGUE GAME win SIDE|loss SIDE|replay|adjust POINTS...|undo MOVE: REASON "
            "(organisers): the league counts the game so")
    example = "rule 1 12 win 2: the opponents revoked"

    def process(self, ctx: Context, args: str) -> str:
        head, colon, reason = args.partition(":")
        words = head.split()
        if not colon or len(words) < 3:
            raise Usage("rule LEAGUE GAME RULING: REASON (e.g. rule 1 12 win 2: "
                        "the opponents revoked)")
        lid, gid = read_numbers(words[:2], "rule LEAGUE GAME RULING: REASON")
        check_ours(ctx, lid)
        ruling = ask_league(parse, words[2:], reason)
        ref = f"{ctx.message_id}#rule.{gid}.{len(ctx.done)}"[:300] if ctx.message_id else None
        ev = ask_league(adjudicate, ctx.store, lid, ctx.my_id, gid, ruling,
                        Via("mail", ref)).events  # a mail's line applies once
        if ev:
            return _("rule: game %(game)s, ruling at move %(move)s") % {"game": gid,
                                                                        "move": ev[0]["seq"]}
        return _("rule: game %(game)s, done already") % {"game": gid}
