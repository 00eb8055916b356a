"""A move's mails rendered before its write (issue 15): a turn mail costs more to render
than the rest of a due timeout's write, and the write holds the lock. The caller renders
them from the table its read foresaw (the move, the robots' replies: pbem.play.Plan); the
write checks in one statement that the game, its seats and their players are the rows
the mails were made of (`same_table`: then it needs not load them again), and takes the
rows only if its events, seq, orders and clocks are as foreseen too (`fits`); else it
renders them itself, as before."""

from dataclasses import dataclass
from datetime import datetime
from operator import attrgetter
from typing import NamedTuple

from sqlalchemy import and_, bindparam, exists, func, select
from sqlalchemy.orm import aliased

from . import notify
from .store import bulk
from .store.models import Game, Move, Player, Seat, SeatOrder

# a game's rules never change (old games replay under their own): not read again
_COLUMNS = [[c for c in model.__table__.columns if c.key != "rules"]
            for model in (Game, Seat, Player)]
_FIRST = aliased(Seat)
# a game's seats, its columns on the first seat's row only (NULL on the others): a game's
# JSON is decoded and compared once a read, not once a seat (pbem.mail.inbound reads so too)
GAME_ON_FIRST_SEAT = and_(Game.id == Seat.game_id, Seat.seat == select(
    func.min(_FIRST.seat)).where(_FIRST.game_id == Seat.game_id).scalar_subquery())
# the rows, and what else the write asks first (on the first row): the last seq, whether
# the move's ref was applied before, whether the game has pending orders (one round trip,
# not four)
_TABLE = (select(*[c for cols in _COLUMNS for c in cols],
                 select(func.max(Move.seq)).where(Move.game_id == Game.id).scalar_subquery(),
                 exists().where(Move.ref == bindparam("ref")),
                 exists().where(SeatOrder.game_id == Game.id, SeatOrder.state == "pending"))
          .select_from(Seat).join(Game, GAME_ON_FIRST_SEAT, isouter=True)
          .join(Player, Player.id == Seat.player_id, isouter=True)
          .where(Seat.game_id == bindparam("g")).order_by(Seat.seat))
_WIDTH = sum(len(cols) for cols in _COLUMNS)
# a row's values of those columns in one C call (a getattr each cost more than the read)
_GET = [attrgetter(*[c.key for c in cols]) for cols in _COLUMNS]


class Found(NamedTuple):
    """The prepared-for rows, found unchanged, and what the write asks besides."""
    game: Game
    seats: list[Seat]
    players: dict[int, Player]
    last: int  # the game's last seq
    applied: bool  # a move with this ref is in the log already
    orders: bool  # the game has pending orders


@dataclass(frozen=True)
class Prepared:
    table: tuple  # (game, seats, players) as the caller read them
    key: tuple  # the seq, events and (hand, trick) before that the mails tell of
    now: datetime  # the time they count deadlines from: the write arms from it too
    rows: list[dict]


def prepare(game, seats, players, st, events, before, now, answered=None,
            answering=False) -> Prepared:
    """The mails the write would queue for `events` (the table being `st` after them);
    `answered`, `answering`: the seat whose mail made the move, and whether its answer
    goes with it (pbem.notify.mails)."""
    return Prepared((game, seats, players), (st.seq, events, before), now,
                    notify.mails(game, seats, players, st, events, before, now=now,
                                 answered=answered, answering=answering))


def same_table(s, game_id: int, prepared: Prepared | None, ref: str | None) -> Found | None:
    """The prepared-for (game, seats, players), with the game's last seq, whether `ref` was
    applied and whether it has pending orders, if the database holds exactly those rows now
    (in `s`'s transaction), else None."""
    if prepared is None:
        return None
    game, seats, players = prepared.table
    rows = bulk.rows(s, _TABLE, {"g": game_id, "ref": ref})
    want = [_values(game if i == 0 else None, 0) + _values(x, 1)
            + _values(players.get(x.player_id), 2) for i, x in enumerate(seats)]
    if game.id != game_id or [tuple(r[:_WIDTH]) for r in rows] != want:
        return None
    last, applied, orders = rows[0][_WIDTH:]
    return Found(game, seats, players, last or 0, bool(applied), bool(orders))


def _values(row, i: int) -> tuple:
    return (None,) * len(_COLUMNS[i]) if row is None else _GET[i](row)


def fits(prepared: Prepared | None, table, st, events, before, orders, clocks) -> bool:
    """Does the write find what the mails were made of? The same rows (`table`: what
    `same_table` gave), seq and events, and no pending orders or bank clock (the prepared
    mails tell of neither)."""
    return (prepared is not None and table is not None and not orders and clocks is None
            and prepared.key == (st.seq, events, before))
