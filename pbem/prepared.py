"""A move's mails rendered before its write (issue 15): a turn mail costs more to render
than the rest of a due timeout's write, and the write holds the lock. The caller renders
them from the table its read foresaw (the move, the robots' replies: pbem.play.Plan); the
write checks in one statement that the game, its seats and their players are the rows
the mails were made of (`same_table`: then it needs not load them again), and takes the
rows only if its events, seq, orders and clocks are as foreseen too (`fits`); else it
renders them itself, as before."""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, select

from . import notify
from .store.models import Game, Player, Seat

_COLUMNS = [list(model.__table__.columns) for model in (Game, Seat, Player)]
_TABLE = (select(*[c for cols in _COLUMNS for c in cols]).select_from(Game)
          .join(Seat, Seat.game_id == Game.id)
          .join(Player, Player.id == Seat.player_id, isouter=True)
          .where(Game.id == bindparam("g")).order_by(Seat.seat))


@dataclass(frozen=True)
class Prepared:
    table: tuple  # (game, seats, players) as the caller read them
    key: tuple  # the seq, events and (hand, trick) before that the mails tell of
    now: datetime  # the time they count deadlines from: the write arms from it too
    rows: list[dict]


def prepare(game, seats, players, st, events, before, now) -> Prepared:
    """The mails the write would queue for `events` (the table being `st` after them)."""
    return Prepared((game, seats, players), (st.seq, events, before), now,
                    notify.mails(game, seats, players, st, events, before, now=now))


def same_table(s, game_id: int, prepared: Prepared | None) -> tuple | None:
    """The prepared-for (game, seats, players) if the database holds exactly those rows now
    (in `s`'s transaction), else None."""
    if prepared is None:
        return None
    game, seats, players = prepared.table
    rows = s.connection().execute(_TABLE, {"g": game_id}).all()
    want = [_values(game, 0) + _values(x, 1) + _values(players.get(x.player_id), 2)
            for x in seats]
    return prepared.table if game.id == game_id and [tuple(r) for r in rows] == want else None


def _values(row, i: int) -> tuple:
    cols = _COLUMNS[i]
    return (None,) * len(cols) if row is None else tuple(getattr(row, c.key) for c in cols)


def fits(prepared: Prepared | None, table, st, events, before, orders, clocks) -> bool:
    """Does the write find what the mails were made of? The same rows (`table`: what
    `same_table` gave), seq and events, and no pending orders or bank clock (the prepared
    mails tell of neither)."""
    return (prepared is not None and table is not None and not orders and clocks is None
            and prepared.key == (st.seq, events, before))
