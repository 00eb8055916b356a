"""A move: any seat line no command names, read as the rules' parser reads it (a bid, a
card, a pass, claim, misdeal, look, ...). A bid before the seat's turn is kept for it."""

from ... import orders
from ...engine import State, parse_action
from ...i18n import N_, _, told
from ...play import Refused, settle
from .acting import act, did, line_ref, refused
from .base import Command, Context
from .errors import Declined


class Move(Command):
    name = ""  # the fallback: the runner gives it every line no other command takes
    help = N_("a move: bid 4, nil, blind nil, play QH, Q♥, claim, misdeal "
            "(a bid before your turn is kept and made at your turn)")
    example = "play QH"

    def process(self, ctx: Context, args: str) -> str:
        line = args  # the whole line
        try:
            action = parse_action(line, ctx.table.rules)
        except ValueError as e:
            raise Declined(told(e)) from None
        if action["type"] == "bid" and _not_yet(ctx.table, ctx.my_seat.seat):
            return bid_ahead(ctx, action, line)
        return act(ctx, line, action)


def _not_yet(st: State, seat: int) -> bool:
    """Is the seat still to bid, but not now?"""
    return st.phase == "bid" and st.comeout_side is None and st.bids[seat] is None \
        and seat not in st.bid_turns[st.bid_index]


def bid_ahead(ctx: Context, action: dict, line: str) -> str:
    """A bid from a seat whose turn to bid has not come: kept as its order (pbem.orders),
    made by the door at that turn."""
    gid, seat = ctx.my_seat.game_id, ctx.my_seat.seat
    try:
        orders.give_bid(ctx.store, gid, seat, action, did(action), ctx.table,
                        line_ref(ctx))
        result = settle(ctx.store, gid)  # its turn may have come meanwhile
    except (ValueError, Refused) as e:
        raise refused(e) from None
    ctx.state, ctx.expect_seq = result.state, result.state.seq
    if any(ev.get("auto") == "order" and ev["seat"] == seat and ev["type"] == "bid"
           for ev in result.events):
        ctx.moves.append((action, False))
        return _("%(line)s: done") % {"line": line}
    ctx.ahead.append(_("%(move)s at your turn") % {"move": did(action)})
    return _("%(line)s: kept, made at your turn") % {"line": line}
