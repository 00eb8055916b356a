"""Orders players give ahead for their seats (issue 14; the forms: pbem.engine.orders).

They are the seat's secret: kept in the database, shown only to that seat, and applied by
the one door (pbem.play, in the move's transaction) the moment the seat is to play and an
order's condition holds, as a play with `"auto": "order"`. An order that can no longer be
kept, or outlives its hand, is dropped and its player told."""

from sqlmodel import select

from . import notify
from .config import load
from .engine import apply
from .engine.orders import MAX_ORDERS, next_card, read
from .store.games import mailable
from .store.models import Outbox, SeatOrder


class Pending:
    """The seats' pending orders (pbem.engine.orders), in the move's transaction: the one
    whose moment has come plays (`"auto": "order"`); one that can no longer be kept, or
    that outlived its hand, is dropped and its player told."""

    def __init__(self, s, game, seats, players):
        self.s, self.game, self.seats, self.players = s, game, seats, players
        rows = s.exec(select(SeatOrder).where(SeatOrder.game_id == game.id,
                                              SeatOrder.state == "pending")
                      .order_by(SeatOrder.id)).all()
        self.rows = {x.seat: [r for r in rows if r.seat == x.seat] for x in seats}

    def next_play(self, st) -> dict | None:
        for seat in st.to_act():
            mine = self.rows.get(seat) or []
            while mine:
                i, card = next_card(st, seat, [r.spec for r in mine])
                if i < 0:
                    break
                row = mine[i]
                if card is None:
                    self._drop(row, mine, f"it could not be kept at move {st.seq + 1}")
                    continue
                if row.spec["kind"] != "low":  # a standing order stays
                    self._close(row, mine, "done")
                return apply(st, seat, {"type": "play", "card": card, "auto": "order"})[0]
        return None

    def texts(self) -> dict[int, list[str]]:
        """Each seat's pending orders as its player wrote them."""
        return {seat: list(dict.fromkeys(r.text for r in rows))
                for seat, rows in self.rows.items() if rows}

    def expire(self, st) -> None:
        for mine in self.rows.values():
            for row in [r for r in mine if r.hand != st.hand_no or st.phase == "over"]:
                self._drop(row, mine, "its hand is over")

    def _close(self, row, mine, state) -> None:
        row.state = state
        self.s.add(row)
        mine.remove(row)

    def _drop(self, row, mine, why) -> None:
        self._close(row, mine, "dropped")
        seat = self.seats[row.seat]
        player = self.players.get(seat.player_id)
        if mailable(player):
            self.s.add(Outbox(**notify.mail_row(
                load(), self.game.id, seat, player, f"order:{row.id}",
                f"Game {self.game.id}: an order was dropped",
                f"Your order \"{row.text}\" was dropped: {why}.\n")))


def give(store, game_id: int, seat: int, line: str, st) -> list[SeatOrder]:
    """Keep the orders a line gives for the seat, checked against what it holds now; a
    ValueError says why not (nothing is kept then)."""
    orders = read(line)
    if orders is None:
        raise ValueError(f"{line!r} is not an order")
    if st.phase != "play":
        raise ValueError("orders are for the play of a hand: give them once the bids are in")
    for order in orders:
        if order.get("card") and order["card"] not in st.hands[seat]:
            raise ValueError(f"{order['card']} is not in your hand")
    with store.session() as s:
        have = len(pending(s, game_id, seat))
        if have + len(orders) > MAX_ORDERS:
            raise ValueError(f"you have {have} orders: at most {MAX_ORDERS} a hand")
        rows = [SeatOrder(game_id=game_id, seat=seat, spec=o, text=line[:100],
                          hand=st.hand_no) for o in orders]
        s.add_all(rows)
        s.commit()
    return rows


def pending(s, game_id: int, seat: int) -> list[SeatOrder]:
    return list(s.exec(select(SeatOrder).where(
        SeatOrder.game_id == game_id, SeatOrder.seat == seat, SeatOrder.state == "pending")
        .order_by(SeatOrder.id)).all())


def clear(store, game_id: int, seat: int) -> int:
    """Drop every pending order of the seat; how many there were."""
    with store.session() as s:
        rows = pending(s, game_id, seat)
        for row in rows:
            row.state = "dropped"
            s.add(row)
        s.commit()
    return len(rows)
