"""Orders ahead, kept secret (pbem.orders): "play QH then KH", "cover in hearts", "orders"
(list them), "clear orders". A line is an order if pbem.orders reads it as one."""

from ... import orders
from ...i18n import N_, _
from ...play import Refused, settle
from .acting import line_ref, refused
from .base import Command, Context


class Orders(Command):
    name = "orders"
    help = N_("orders ahead, kept secret: play QH then KH; lead AS next; if hearts are led play "
            "2H; follow low in clubs (or duck in clubs); cover in hearts, or cover (every suit "
            "but spades): beat the trick when you can, low when your partner wins it; orders "
            "(list them); clear orders")
    example = "play QH then KH"

    def claims(self, line: str) -> bool:
        low = " ".join(line.lower().split())
        if low in ("orders", "clear orders"):
            return True
        try:
            return orders.read(low) is not None
        except ValueError:
            return True  # an order with a word that is no card: say so

    def process(self, ctx: Context, args: str) -> str:
        line = args  # the whole line (claimed)
        low = " ".join(line.lower().split())
        gid, seat = ctx.my_seat.game_id, ctx.my_seat.seat
        if low == "clear orders":
            dropped = orders.clear(ctx.store, gid, seat)
            return _("clear orders: %(count)s dropped") % {"count": dropped}
        if low == "orders":
            with ctx.store.reader() as s:
                mine = [r.text for r in orders.pending(s, gid, seat)]
            return _("orders: %(orders)s") % {"orders": "; ".join(dict.fromkeys(mine)) or _("none")}
        try:
            kept = orders.give(ctx.store, gid, seat, line, ctx.table, line_ref(ctx))
            result = settle(ctx.store, gid)  # one may act at once, if it is your turn
        except (ValueError, Refused) as e:
            raise refused(e) from None
        ctx.state, ctx.expect_seq = result.state, result.state.seq
        played = [ev for ev in result.events if ev.get("auto") == "order"]
        values = {"line": line, "count": len(kept)}
        if played:
            return _("%(line)s: %(count)s kept, the first played now") % values
        return _("%(line)s: %(count)s kept") % values
