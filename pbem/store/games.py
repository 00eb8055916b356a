"""Creating games and reading them back (the move log itself is written by pbem.play)."""

import base64
import secrets

from sqlmodel import select

from ..engine import Rules
from ..gamelog import write_log
from .models import Game, Move, Player, Seat

ROBOT = "robot"


def new_token() -> str:
    """A seat's secret: short and lowercase, since mail systems may fold an address's case."""
    return base64.b32encode(secrets.token_bytes(10)).decode().lower()


def player_for(s, email: str, name: str = "") -> Player:
    email = email.strip().lower()
    found = s.exec(select(Player).where(Player.email == email)).first()
    if found:
        return found
    player = Player(email=email, name=name or email.split("@")[0])
    s.add(player)
    s.flush()
    return player


def create_game(store, rules: Rules, seats: list[str], first_dealer: int | None = None,
                public: bool = True, time_control: dict | None = None) -> int:
    """A new game with one entry per seat: an email address or "robot". Not dealt yet:
    pbem.play.start deals it."""
    if len(seats) != rules.players:
        raise ValueError(f"{rules.preset} has {rules.players} seats, not {len(seats)}")
    if first_dealer is None:
        first_dealer = secrets.randbelow(rules.players)  # L1: the first dealer at random
    with store.session() as s:
        game = Game(rules=rules.to_dict(), first_dealer=first_dealer, public=public,
                    time_control=time_control or {})
        s.add(game)
        s.flush()
        for i, who in enumerate(seats):
            robot = who.strip().lower() == ROBOT
            player = None if robot else player_for(s, who)
            s.add(Seat(game_id=game.id, seat=i, robot=robot, token=new_token(),
                       player_id=player.id if player else None))
        s.commit()
        return game.id


def seat_names(s, game_id: int) -> list[str]:
    rows = s.exec(select(Seat, Player).join(Player, isouter=True)
                  .where(Seat.game_id == game_id).order_by(Seat.seat)).all()
    return [ROBOT if seat.robot else player.email for seat, player in rows]


def events(s, game_id: int) -> list[dict]:
    rows = s.exec(select(Move.payload).where(Move.game_id == game_id).order_by(Move.seq))
    return list(rows.all())


def export(store, game_id: int) -> str:
    """The game's log in the contract format (DESIGN.md "Game log format")."""
    with store.session() as s:
        game = s.get(Game, game_id)
        if game is None:
            raise ValueError(f"there is no game {game_id}")
        header = {"format": "pbem/1", "rules": game.rules, "seats": seat_names(s, game_id),
                  "first_dealer": game.first_dealer}
        return write_log(header, events(s, game_id))
