"""Creating games and reading them back (the move log itself is written by pbem.play)."""

import base64
import secrets
from collections.abc import Iterable
from typing import Any, NamedTuple

from sqlalchemy import and_, bindparam, exists, func
from sqlalchemy import select as sa_select  # sqlmodel's select takes at most four
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from ..engine import Rules
from ..engine.robot import level_of
from ..gamelog import finished_hands, write_log
from .addresses import check_address
from .bounces import bouncing
from .models import Game, Move, Player, Seat, SeatOrder
from .states import Store

ROBOT = "robot"
DEMO_DOMAIN = "demo.test"  # the web demo's players: a page to play on, never a mail

_FIRST = aliased(Seat)
# A join of a game's seats to the game, its columns on the first seat's row only (NULL on
# the others): a read of a table in one statement decodes the game's JSON once, not once a
# seat (pbem.mail.inbound reads so)
GAME_ON_FIRST_SEAT = and_(col(Game.id) == col(Seat.game_id), col(Seat.seat) == select(
    func.min(_FIRST.seat)).where(col(_FIRST.game_id) == col(Seat.game_id)).scalar_subquery())


def robot_seat(who: str) -> tuple[bool, str | None]:
    """Is the seat entry `who` a robot's, and at which level: "robot" (the rules' level,
    None), "robot:hard" or "robot hard" (that level: easy, medium or hard). ValueError for
    a robot of an unknown level; (False, None) for anything else (an address)."""
    words = who.strip().lower().replace(":", " ").split()
    if not words or words[0] != ROBOT:
        return False, None
    if len(words) == 1:
        return True, None
    if len(words) > 2:
        raise ValueError(f"a robot seat is robot or robot:LEVEL, not {who[:40]!r}")
    return True, level_of(words[1])


def is_robot(who: str) -> bool:
    """Does `who` ask for a robot (of any level, or of a level that does not exist)?"""
    return who.strip().lower().replace(":", " ").split()[:1] == [ROBOT]


def mailable(player: Player | None) -> bool:
    """May we mail this player? Not a demo's (its address is never delivered), nor one who
    asked for no mail, nor one whose mail stopped because it bounces (store.bounces)."""
    return (player is not None and not player.email.endswith("@" + DEMO_DOMAIN)
            and (player.prefs or {}).get("mail") != "off"  # unsubscribed from all
            and not bouncing(player))


def new_token() -> str:
    """A seat's secret: short and lowercase, since mail systems may fold an address's case."""
    return base64.b32encode(secrets.token_bytes(10)).decode().lower()


def player_for(s: Session, email: str, name: str = "") -> Player:
    """The player with this address, made if new; AddressError (a ValueError) for anything
    that is not a mail address, so nothing we store or mail escapes the one check."""
    email = check_address(email)
    found = s.exec(select(Player).where(Player.email == email)).first()
    if found:
        return found
    player = Player(email=email, name=name or email.split("@")[0])
    s.add(player)
    s.flush()
    return player


def create_game(store: Store, rules: Rules, seats: list[str], first_dealer: int | None = None,
                public: bool = True, time_control: dict[str, Any] | None = None) -> int:
    """A new game with one entry per seat: an email address, "robot" (at the rules' level)
    or "robot:LEVEL" (robot_seat). Not dealt yet:
    pbem.play.start deals it."""
    with store.session() as s:
        game = add_game(s, rules, seats, first_dealer, public, time_control)
        s.commit()
        assert game.id is not None  # stored
        return game.id


def add_game(s: Session, rules: Rules, seats: list[str], first_dealer: int | None = None,
             public: bool = True, time_control: dict[str, Any] | None = None) -> Game:
    """create_game inside the caller's transaction (a league writes a round's games and
    fixtures at once)."""
    if len(seats) != rules.players:
        raise ValueError(f"{rules.preset} has {rules.players} seats, not {len(seats)}")
    if first_dealer is None:
        first_dealer = secrets.randbelow(rules.players)  # L1: the first dealer at random
    game = Game(rules=rules.to_dict(), first_dealer=first_dealer, public=public,
                time_control=time_control or {})
    s.add(game)
    s.flush()
    assert game.id is not None  # stored by the flush
    for i, who in enumerate(seats):
        robot, level = robot_seat(who)
        player = None if robot else player_for(s, who)
        s.add(Seat(game_id=game.id, seat=i, robot=robot, token=new_token(),
                   player_id=player.id if player else None, robot_level=level))
    return game


def players_of(s: Session, seats: Iterable[Seat]) -> dict[int, Player]:
    """The players at these seats, by id (robots' seats have none)."""
    ids = [x.player_id for x in seats if x.player_id]
    return {p.id: p for p in s.exec(select(Player).where(col(Player.id).in_(ids))).all()
            if p.id is not None}


def table_of(s: Session, game_id: int) -> tuple[list[Seat], dict[int, Player]]:
    """The game's seats, in seat order, and their players by id (one query)."""
    rows = s.exec(select(Seat, Player).join(Player, isouter=True)
                  .where(Seat.game_id == game_id).order_by(col(Seat.seat))).all()
    return [x for x, _ in rows], {p.id: p for _, p in rows if p is not None and p.id}


def seat_names(s: Session, game_id: int) -> list[str]:
    rows = s.exec(select(Seat, Player).join(Player, isouter=True)
                  .where(Seat.game_id == game_id).order_by(col(Seat.seat))).all()
    return [ROBOT if seat.robot else player.email for seat, player in rows]


def events(s: Session, game_id: int) -> list[Any]:
    rows = s.exec(select(Move.payload).where(Move.game_id == game_id).order_by(col(Move.seq)))
    return list(rows.all())  # dicts, but for a corrupt log's odd lines


def export(store: Store, game_id: int, whole: bool = True) -> str:
    """The game's log in the contract format (docs/log-format.md). Whole for the
    server's operator; with `whole=False` (every download a player or an organiser can
    reach) a running game stops at its last finished hand: the hand in play holds every
    seat's cards."""
    with store.session() as s:
        game = s.get(Game, game_id)
        if game is None:
            raise ValueError(f"there is no game {game_id}")
        log = events(s, game_id)
        header = {"format": "pbem/1", "rules": game.rules,
                  "seats": first_holders(seat_names(s, game_id), log),
                  "first_dealer": game.first_dealer}
        if not whole and game.status != "over":
            log = finished_hands(log)
        return write_log(header, log)


def first_holders(seats: list[str], log: list[Any]) -> list[str]:
    """Who sat in each seat when the game began: the header names them, and each
    `substitute` event in the log says who took a seat over, and from whom."""
    seats = list(seats)
    for ev in reversed(_handovers(seats, log)):
        seats[ev["seat"]] = ev["out"]
    return seats


def last_holders(seats: list[str], log: list[Any]) -> list[str]:
    """Who holds each seat after the log's hand-overs (the header names the first)."""
    seats = list(seats)
    for ev in _handovers(seats, log):
        seats[ev["seat"]] = ev["in"]
    return seats


def _handovers(seats: list[str], log: list[Any]) -> list[dict[str, Any]]:
    """The log's `substitute` events (a corrupt log still exports: its odd lines are skipped
    here and named by replay)."""
    return [ev for ev in log if isinstance(ev, dict) and ev.get("type") == "substitute"
            and ev.get("seat") in range(len(seats))]


class Found(NamedTuple):
    """A game's table as a move's write reads it (`read_table`), and what it asks besides."""
    game: Game
    seats: list[Seat]
    players: dict[int, Player]  # by id
    last: int  # the game's last seq
    applied: bool  # a move with the ref asked about is in the log already
    orders: bool  # the game has pending orders


# the seats with their players and (on the first seat's row only: its JSON is decoded
# once) the game, its last seq, whether the ref was applied and whether it has pending
# orders: one round trip, not six
_TABLE = (sa_select(Seat, Game, Player,
                 select(func.max(Move.seq)).where(col(Move.game_id) == col(Game.id))
                 .scalar_subquery(),
                 exists().where(col(Move.ref) == bindparam("ref")),
                 exists().where(col(SeatOrder.game_id) == col(Game.id),
                                col(SeatOrder.state) == "pending"))
          .select_from(Seat).join(Game, GAME_ON_FIRST_SEAT, isouter=True)
          .join(Player, col(Player.id) == col(Seat.player_id), isouter=True)
          .where(col(Seat.game_id) == bindparam("g")).order_by(col(Seat.seat)))


def read_table(s: Session, game_id: int, ref: str | None) -> Found | None:
    """The game's table in one statement in `s`'s transaction, or None for no such game.
    The game is not kept in the session (the door changes its row only by an UPDATE of
    its own, so no flush writes it); the seats and players are."""
    rows = s.execute(_TABLE, {"g": game_id, "ref": ref}).all()
    if not rows or rows[0][1] is None:
        return None
    first = rows[0]
    game: Game = first[1]
    s.expunge(game)
    players = {r[2].id: r[2] for r in rows if r[2] is not None}
    return Found(game, [r[0] for r in rows], players, first[3] or 0, bool(first[4]),
                 bool(first[5]))
