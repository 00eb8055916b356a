"""The table as a move's write reads it, with what the move did: the one object the door
(pbem.play) hands its reactions (the mails, the deadlines, a league game's result) and a
mail's answer written with the move, instead of a dozen values each."""

from collections.abc import Callable, Mapping, Sequence
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
    hands: int = 0  # the hands finished when the write read the game (their reviews)
    now: datetime = field(default_factory=utcnow)  # the time deadlines count from
    orders: dict[int, list[str]] = field(default_factory=dict)  # each seat's pending orders
    kept: dict[int, datetime] = field(default_factory=dict)  # due times kept (after an undo)
    clocks: dict[int, SeatClock] | None = None  # a bank clock's seats, brought to `now`
    answered: int | None = None  # the seat whose mail made the move: its answer tells it
    answering: bool = False  # that answer is written with the move, from this table
    source: str = ""  # who made the write's own move: "mail", "web", "clock", "robot"...
    own: int = 0  # how many of `events` are the write's own (the rest followed without it)
    robots_next: bool = False  # robots move after the write: theirs tells its news
    notices: dict[int, str] = field(default_factory=dict)  # a timeout's words, by seat
    # a seat's moves made for it by earlier writes since the last mail it surely got, with
    # their sources (pbem.play reads them from the log when a mail asks)
    earlier: Callable[[int], list[tuple[dict, str]]] | None = None

    @property
    def game_id(self) -> int:
        return id_of(self.game)

    @cached_property
    def names(self) -> list[str]:
        """Each seat's name: its player's, or "robot N" (`seat_names`)."""
        return seat_names(self.seats, self.players)

    def player(self, seat: Seat) -> Player:
        """The player at a human seat."""
        return self.players[seat.player_id or 0]

    def moved(self) -> bool:
        """Did the move change the table (not only talk and offers)?"""
        return any(ev["type"] not in QUIET for ev in self.events)


def seat_names(seats: Sequence[Seat], players: Mapping[int, Player]) -> list[str]:
    """Each seat's player's name, in seat order ("robot 2" for a robot's seat): the one
    rule for every mail, page and report that names the seats."""
    return [players[x.player_id].name if x.player_id is not None and x.player_id in players
            else f"robot {x.seat}" for x in seats]


def id_of(row: Game | Player) -> int:
    """The id of a row read from the database (its model types it optional: a new row has
    none until it is written)."""
    if row.id is None:
        raise ValueError(f"this {type(row).__name__} was never written: it has no id")
    return row.id
