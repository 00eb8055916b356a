"""The home page's games (issue 15): every game of a player read in a few queries (seats,
games, their seats' players, states, timeouts, the player's own orders), however many
games the site has, in place of four reads and a copied state a game."""

from sqlmodel import col, select

from ..i18n import _
from ..notify import seat_names
from ..store.games import players_of
from ..store.models import Deadline, Game, Seat, SeatOrder
from .tables import time_left
from .view import side_labels
from .words import clock_words


def rows(store, player, now, limit: int) -> list[dict]:
    """One dict a game (see `_row`), the player's `limit` most recent seats."""
    with store.reader() as s:
        mine = list(s.exec(select(Seat).where(Seat.player_id == player.id)
                           .order_by(col(Seat.game_id).desc()).limit(limit)).all())
        ids = [x.game_id for x in mine]
        games = {g.id: g for g in s.exec(select(Game).where(col(Game.id).in_(ids)))}
        dealt = [g for g in ids if games[g].status != "open"]
        seats: dict[int, list] = {g: [] for g in dealt}
        for x in s.exec(select(Seat).where(col(Seat.game_id).in_(dealt))
                        .order_by(col(Seat.game_id), col(Seat.seat))):
            seats[x.game_id].append(x)
        players = players_of(s, [x for g in dealt for x in seats[g]])
        states = store.states(s, dealt)  # private copies, kept back below
        dues = _timeouts(s, dealt)
        given = _orders(s, mine)
    try:
        return [_row(x, games[x.game_id], seats.get(x.game_id), players, states.get(x.game_id),
                     dues, given.get(x.game_id, []), player, now) for x in mine]
    finally:
        for gid, st in states.items():
            store.keep(gid, st)


def _timeouts(s, ids) -> dict[tuple, object]:
    """(game, seat, seq) -> the pending timeout's due time."""
    return {(g, seat, seq): due for g, seat, seq, due in s.exec(
        select(Deadline.game_id, Deadline.seat, Deadline.seq, Deadline.due).where(
            col(Deadline.game_id).in_(ids), Deadline.state == "pending",
            Deadline.kind == "timeout"))}


def _orders(s, mine) -> dict[int, list[str]]:
    """Each game's pending orders of the player's own seat (never another seat's)."""
    own = {(x.game_id, x.seat) for x in mine}
    out: dict[int, list[str]] = {}
    for g, seat, text in s.exec(select(SeatOrder.game_id, SeatOrder.seat, SeatOrder.text)
                                .where(col(SeatOrder.game_id).in_([g for g, _seat in own]),
                                       SeatOrder.state == "pending").order_by(col(SeatOrder.id))):
        if (g, seat) in own and text not in out.setdefault(g, []):
            out[g].append(text)
    return out


def _row(seat, game, seats, players, st, dues, given, player, now) -> dict:
    """One game as its row on the home page: 0 waits for the player, 1 goes on, 2 is over."""
    if game.status == "open":  # not dealt yet: an invitation, or others still to say yes
        return {"id": game.id, "group": 1, "due": None, "token": seat.token, "open": True,
                "invited": not seat.accepted, "names": [], "orders": [], "state": None}
    names = seat_names(seats, players)
    over = st.phase == "over"
    mine = not over and seat.seat in st.to_act()
    due = dues.get((game.id, seat.seat, st.move_seq)) if mine else None
    return {"id": game.id, "group": 2 if over else (0 if mine else 1), "due": due,
            "token": seat.token, "open": False, "invited": False, "names": names,
            "me": seat.seat, "phase": st.phase, "orders": given,
            "waiting_for": [names[x] for x in st.to_act()] if not over else [],
            "winner": side_labels(st, names)[st.winner] if over and st.winner is not None
            else None,
            "due_text": _("%(when)s (%(left)s left)") % {
                "when": clock_words(player, due), "left": time_left(due - now)}
            if due else None}
