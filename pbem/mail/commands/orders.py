"""Orders ahead, kept secret (pbem.orders): "play QH then KH", "cover in hearts", "orders"
(list them), "clear orders". A line is an order if pbem.orders reads it as one."""

from ... import orders
from ...play import Refused, settle
from .acting import line_ref, refused
from .base import Command, Context


class Orders(Command):
    name = "orders"
    help = ("orders ahead, kept secret: play QH then KH; lead AS next; if hearts are led play "
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
            return f"clear orders: {orders.clear(ctx.store, gid, seat)} dropped"
        if low == "orders":
            with ctx.store.reader() as s:
                mine = [r.text for r in orders.pending(s, gid, seat)]
            return "orders: " + ("; ".join(dict.fromkeys(mine)) or "none")
        try:
            kept = orders.give(ctx.store, gid, seat, line, ctx.table, line_ref(ctx))
            result = settle(ctx.store, gid)  # one may act at once, if it is your turn
        except (ValueError, Refused) as e:
            raise refused(e) from None
        ctx.state, ctx.expect_seq = result.state, result.state.seq
        played = [ev for ev in result.events if ev.get("auto") == "order"]
        return f"{line}: {len(kept)} kept" + (", the first played now" if played else "")
