"""What a mail command is, and the Context a mail's lines are done in."""

from dataclasses import dataclass, field
from typing import Any, Protocol

from ...engine import State
from ...play import Seen
from ...store import prefs
from ...store.models import Player, Seat
from ...store.states import Store
from ...table import Table


class Answer(Protocol):
    """A seat mail's answer, written by the move on the mail's last line in its own
    transaction (pbem.mail.inbound.SeatAnswer)."""

    def rows(self, ctx: "Context") -> list[dict]: ...  # the answer's Outbox rows

    def record(self, s: Any) -> None: ...  # the mail's Inbound row, in the session `s`


@dataclass
class Context:
    store: Store
    player: Player | None  # None: a stranger (only commands with `strangers` run)
    seat: Seat | None = None  # None anywhere but a seat's address
    message_id: str = ""
    expect_seq: int | None = None
    state: State | None = None  # the game as it is after the last command
    done: list[str] = field(default_factory=list)
    want_help: bool = False
    sender: str = ""  # the mail's From address
    moves: list[tuple[dict, bool]] = field(default_factory=list)  # (action, was a repeat)
    ahead: list[str] = field(default_factory=list)  # bids kept for the seat's turn
    seen: Seen | None = None  # the table just read, for the first move's door
    # A move on the mail's last line commits the answer with itself (then `answered`), so
    # the move stands only if its answer does
    answer: Answer | None = None
    last: bool = False  # the line being done is the mail's last
    answered: bool = False
    asked: Table | None = None  # the answer written with the move: the table its write left
    league: int | None = None  # the organiser address's league: its commands' only league

    @property
    def me(self) -> Player:
        """The sender's player: every command but a stranger's `join` has one."""
        assert self.player is not None, "only a stranger has no player"
        return self.player

    @property
    def my_id(self) -> int:
        """The sender's player's id (a stored player always has one)."""
        assert self.me.id is not None, "a player not stored"
        return self.me.id

    @property
    def my_seat(self) -> Seat:
        """The mail's seat: only a seat's address runs the commands that ask for it."""
        assert self.seat is not None, "a seat's command at an address without a seat"
        return self.seat

    @property
    def table(self) -> State:
        """The seat's game as it is now (read with its seat)."""
        assert self.state is not None, "a seat's command without its table"
        return self.state


class Command:
    name = ""  # the line's first word; "" for the move, which takes any other line
    help = ""  # one line of the `help` answer
    example = ""  # a line that does it: docs/mail.md shows it
    strangers = False  # may someone we do not know yet use it (at plain pbem@)?

    def process(self, ctx: Context, args: str) -> str:
        """Do the line (`args`: the words after the name); what was done, or CommandError."""
        raise NotImplementedError

    def claims(self, line: str) -> bool:
        """Does this command take the whole line whatever its first word?"""
        return False


def set_pref(ctx: Context, key: str, value: object) -> None:
    ctx.player = prefs.update(ctx.store, ctx.my_id, **{key: value})
