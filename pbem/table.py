"""The table as a move's write reads it, with what the move did: the one object the door
(pbem.play) hands its reactions (the mails, the deadlines, a league game's result) and a
mail's answer written with the move, instead of a dozen values each."""

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from .engine import State
from .engine.acts import QUIET
from .store.models import Game, Player, Seat, SeatClock
from .store.models import now as utcnow


@dataclass
class Table:
    game: Game
    seats: list[Seat]
    players: dict[int, Player]  # the seats' players, by id (robots' seats have none)
    st: State  # after `events`
    events: list[dict] = field(default_factory=list)  # the move's, and what followed it
    before: tuple[int, int] | None = None  # (hand, tricks) before: did a trick or hand end?
    now: datetime = field(default_factory=utcnow)  # the time deadlines count from
    orders: dict[int, list[str]] = field(default_factory=dict)  # each seat's pending orders
    kept: dict[int, datetime] = field(default_factory=dict)  # due times kept (after an undo)
    clocks: dict[int, SeatClock] | None = None  # a bank clock's seats, brought to `now`
    answered: int | None = None  # the seat whose mail made the move: its answer tells it
    answering: bool = False  # that answer is written with the move, from this table

    @property
    def game_id(self) -> int:
        return id_of(self.game)

    @cached_property
    def names(self) -> list[str]:
        """Each seat's name: its player's, or "robot N"."""
        return [self.players[x.player_id].name if x.player_id in self.players
                else f"robot {x.seat}" for x in self.seats]

    def player(self, seat: Seat) -> Player:
        """The player at a human seat."""
        return self.players[seat.player_id or 0]

    def moved(self) -> bool:
        """Did the move change the table (not only talk and offers)?"""
        return any(ev["type"] not in QUIET for ev in self.events)


def id_of(row: Game | Player) -> int:
    """The id of a row read from the database (its model types it optional: a new row has
    none until it is written)."""
    if row.id is None:
        raise ValueError(f"this {type(row).__name__} was never written: it has no id")
    return row.id
