"""Orders players give ahead for their seats (issue 14; the forms: pbem.engine.orders).

They are the seat's secret: kept in the database, shown only to that seat, and applied by
the one door (pbem.play, in the move's transaction) the moment the seat is to play and an
order's condition holds, as a play with `"auto": "order"`. An order that can no longer be
kept, or outlives its hand, is dropped and its player told; a standing order (pbem.engine.
orders.STANDING) that lasted its hand simply ends. A bid given ahead (`give_bid`) is made
by the door at the seat's turn to bid, as a bid with `"auto": "order"`, or dropped with a
mail if it is not allowed then or the bidding ends without it (a misdeal, a partner's bid
for the side)."""

from collections.abc import Callable

from sqlalchemy import bindparam
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from . import notify
from .config import load
from .engine import IllegalAction, State, apply
from .engine.errors import N_, Words
from .engine.orders import (
    MAX_ORDERS,
    STANDING,
    bid_order,
    bids_later,
    next_bid,
    next_card,
    read,
)
from .i18n import _, language, tell
from .store import prefs
from .store.games import mailable
from .store.models import Outbox, SeatOrder
from .store.states import Store
from .table import Table

# whether a game has pending orders, as Core (most have none: the ORM's load cost more)
_ANY = select(SeatOrder.id).where(SeatOrder.game_id == bindparam("g"),
                                  SeatOrder.state == "pending").limit(1)


def any_pending(s: Session, game_id: int) -> bool:
    return s.connection().execute(_ANY, {"g": game_id}).first() is not None


class Pending:
    """The seats' pending orders (pbem.engine.orders), in the move's transaction: the one
    whose moment has come plays or bids (`"auto": "order"`); one that can no longer be
    kept, or that outlived its hand or its bidding, is dropped and its player told."""

    def __init__(self, s: Session, t: Table, maybe: bool = True):
        """`t`: the move's table; `maybe`: False when the caller knows the game has no
        pending orders."""
        self.s, self.t = s, t
        self.rows: dict[int, list[SeatOrder]] = {x.seat: [] for x in t.seats}
        if not maybe or not any_pending(s, t.game_id):
            return
        rows = s.exec(select(SeatOrder).where(SeatOrder.game_id == t.game_id,
                                              SeatOrder.state == "pending")
                      .order_by(col(SeatOrder.id))).all()
        self.rows = {x.seat: [r for r in rows if r.seat == x.seat] for x in t.seats}

    def next_play(self, st: State) -> dict | None:
        """The event of the first order whose moment has come (a bid or a card), if any."""
        for seat in st.to_act():
            ev = self._bid(st, seat) if st.phase == "bid" else self._card(st, seat)
            if ev is not None:
                return ev
        return None

    def _bid(self, st: State, seat: int) -> dict | None:
        mine = self.rows.get(seat) or []
        i, action = next_bid(st, seat, [r.spec for r in mine])
        if i < 0:
            return None
        if action is None:
            why = _bid_refusal(st, seat, mine[i].spec["bid"])
            self._drop(mine[i], mine, Words(N_("at your turn that bid was not allowed "
                                               "(%(why)s)"), why=why))
            return None
        self._close(mine[i], mine, "done")
        return apply(st, seat, dict(action, auto="order"))[0]

    def _card(self, st: State, seat: int) -> dict | None:
        mine = self.rows.get(seat) or []
        while mine:
            i, card = next_card(st, seat, [r.spec for r in mine])
            if i < 0:
                break
            row = mine[i]
            if card is None:
                self._drop(row, mine, Words(N_("it could not be kept at move %(move)s"),
                                            move=st.seq + 1))
                continue
            if row.spec["kind"] not in STANDING:  # a standing order stays
                self._close(row, mine, "done")
            return apply(st, seat, {"type": "play", "card": card, "auto": "order"})[0]
        return None

    def texts(self) -> dict[int, list[str]]:
        """Each seat's pending orders as its player wrote them."""
        return {seat: list(dict.fromkeys(r.text for r in rows))
                for seat, rows in self.rows.items() if rows}

    def expire(self, st: State) -> None:
        """Orders past their time: a standing order's hand is over (it simply ends); any
        other's hand is over, or a bid's bidding (both dropped with a mail)."""
        for mine in self.rows.values():
            for row in [r for r in mine if r.hand != st.hand_no or st.phase == "over"]:
                if row.spec["kind"] in STANDING:
                    self._close(row, mine, "done")
                else:
                    self._drop(row, mine, Words(N_("its hand is over")))
            for row in [r for r in mine if r.spec["kind"] == "bid" and st.phase != "bid"]:
                self._drop(row, mine, Words(N_("the bidding ended before your turn came (a "
                                               "misdeal, or your partner bid for your side)")))

    def _close(self, row: SeatOrder, mine: list[SeatOrder], state: str) -> None:
        row.state = state
        self.s.add(row)
        mine.remove(row)

    def _drop(self, row: SeatOrder, mine: list[SeatOrder], why: Words) -> None:
        """The order is dropped, and its player told why in their language."""
        self._close(row, mine, "dropped")
        seat = self.t.seats[row.seat]
        player = self.t.players.get(seat.player_id or 0)
        if player is not None and mailable(player):
            with language(prefs.language(player)):
                values = {"game": self.t.game_id, "order": row.text, "why": tell(why)}
                self.s.add(Outbox(**notify.mail_row(
                    load(), seat, player, f"order:{row.id}",
                    _("Game %(game)s: an order was dropped") % values,
                    _("Your order \"%(order)s\" was dropped: %(why)s.") % values + "\n")))


def give(store: Store, game_id: int, seat: int, line: str, st: State, ref: str | None = None
         ) -> list[SeatOrder]:
    """Keep the orders a line gives for the seat, checked against what it holds now; a
    ValueError says why not (nothing is kept then). `ref`: the mail line's, or the web
    form's (pbem.web.tables): a line kept before under it, by this mail's earlier try or
    its twin, or by the same form sent twice, is not kept again (those rows are returned)."""
    orders = read(line)
    if orders is None:
        raise ValueError(_("%(line)s is not an order") % {"line": repr(line)})
    refs = [f"{ref}.{i}" if ref else None for i in range(len(orders))]
    with store.reader() as s:
        if kept := _kept(s, refs):  # before the checks: the first may have played since
            return kept
    if st.phase != "play":
        raise ValueError(_("orders are for the play of a hand: give them once the bids are in "
                           "(a bid before your turn, bid 4 say, is kept for your turn)"))
    for order in orders:
        if order.get("card") and order["card"] not in st.hands[seat]:
            raise ValueError(_("%(card)s is not in your hand") % {"card": order["card"]})

    def keep(s: Session) -> list[SeatOrder]:
        have = len(pending(s, game_id, seat))
        if have + len(orders) > MAX_ORDERS:
            raise ValueError(_("you have %(have)s orders: at most %(most)s a hand")
                             % {"have": have, "most": MAX_ORDERS})
        rows = [SeatOrder(game_id=game_id, seat=seat, spec=o, text=line[:100],
                          hand=st.hand_no, ref=r) for o, r in zip(orders, refs, strict=True)]
        s.add_all(rows)
        return rows

    return _keep_once(store, refs, keep)


def give_bid(store: Store, game_id: int, seat: int, action: dict, text: str, st: State,
             ref: str | None = None) -> SeatOrder:
    """Keep a bid the seat gives before its turn to bid (`action` as pbem.engine.parse_action
    reads it), in place of an earlier one; ValueError says why not (nothing kept then).
    `ref` as for `give`."""
    refs = [f"{ref}.0" if ref else None]
    with store.reader() as s:
        if kept := _kept(s, refs):  # this mail's line, kept before (and maybe made since)
            return kept[0]
    order = bid_order(action)
    _check_ahead(st, seat, order["bid"])

    def keep(s: Session) -> list[SeatOrder]:
        for row in pending(s, game_id, seat):
            if row.spec["kind"] == "bid":  # the newer bid stands: no mail for this one
                row.state = "dropped"
                s.add(row)
        row = SeatOrder(game_id=game_id, seat=seat, spec=order, text=text[:100],
                        hand=st.hand_no, ref=refs[0])
        s.add(row)
        return [row]

    return _keep_once(store, refs, keep)[0]


def _kept(s: Session, refs: list[str | None]) -> list[SeatOrder]:
    """The orders kept before under these refs (none without a ref)."""
    if refs[0] is None:
        return []
    return list(s.exec(select(SeatOrder).where(col(SeatOrder.ref).in_(refs))
                       .order_by(col(SeatOrder.id))).all())


def _keep_once(store: Store, refs: list[str | None],
               keep: Callable[[Session], list[SeatOrder]]) -> list[SeatOrder]:
    """`keep(s)`'s rows, committed; if the same mail's twin, delivered at the same time,
    kept them first (the unique ref refuses ours), theirs."""
    try:
        with store.session() as s:
            rows = keep(s)
            s.commit()
            return rows
    except IntegrityError:
        with store.reader() as s:
            if kept := _kept(s, refs):
                return kept
        raise


def may_bid_ahead(st: State, seat: int) -> bool:
    """Has the seat looked at its cards, with its turn to bid still to come?"""
    return st.looked[seat] and bids_later(st, seat)


def _check_ahead(st: State, seat: int, bid: int | str) -> None:
    if st.phase != "bid" or st.comeout_side is not None:
        raise ValueError(_("a bid is given ahead only during the bidding"))
    if st.bids[seat] is not None:
        raise ValueError(_("you have bid already"))
    if seat in st.bid_turns[st.bid_index]:
        raise ValueError(_("it is your turn to bid: bid now"))
    if not may_bid_ahead(st, seat):
        raise ValueError(_("look at your cards first: a bid ahead is made on the cards you "
                           "have seen (a blind bid waits for your turn)"))
    r = st.rules
    ok = r.nil if bid == "nil" else isinstance(bid, int) and r.bid_min <= bid <= r.max_bid
    if not ok:
        raise ValueError(_("bid %(bid)s is not a bid of this game") % {"bid": bid})


def _bid_refusal(st: State, seat: int, bid: int | str) -> Words:
    try:
        apply(st, seat, {"type": "bid", "bid": bid})
    except IllegalAction as e:
        return e.words
    return Words(N_("not allowed"))


def pending(s: Session, game_id: int, seat: int) -> list[SeatOrder]:
    return list(s.exec(select(SeatOrder).where(
        SeatOrder.game_id == game_id, SeatOrder.seat == seat, SeatOrder.state == "pending")
        .order_by(col(SeatOrder.id))).all())


def clear(store: Store, game_id: int, seat: int) -> int:
    """Drop every pending order of the seat; how many there were."""
    with store.session() as s:
        dropped = drop_pending(s, game_id, seat)
        s.commit()
    return dropped


def drop_pending(s: Session, game_id: int, seat: int) -> int:
    """In the caller's transaction: the seat's pending orders dropped (when its player asks,
    or leaves the seat: a new player never inherits orders they did not give)."""
    rows = pending(s, game_id, seat)
    for row in rows:
        row.state = "dropped"
        s.add(row)
    return len(rows)

