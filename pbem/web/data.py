"""Reading games for pages: the game, its seats, names, and a snapshot of its state."""

from dataclasses import dataclass

from flask import abort, current_app
from sqlmodel import select

from ..notify import seat_names
from ..store.bounces import bouncing
from ..store.games import players_of
from ..store.models import Game, Move, Seat


@dataclass
class Table:
    game: Game
    seats: list[Seat]
    names: list[str]
    state: object  # a snapshot: the cache's own copy moves on
    bouncing: frozenset = frozenset()  # seats whose player's mail stopped: it bounces


def store():
    return current_app.config["PBEM_STORE"]


def load(game_id: int) -> Table:
    st_ = store()
    with st_.reader() as s:
        game = s.get(Game, game_id)
        if game is None:
            abort(404)
        seats = s.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat)).all()
        players = players_of(s, seats)
        live = st_.state(s, game)
        st_.keep(game_id, live)
    stopped = frozenset(x.seat for x in seats if bouncing(players.get(x.player_id)))
    return Table(game, seats, seat_names(seats, players), live.snapshot(), stopped)


def seat_for(token: str) -> Seat:
    with store().reader() as s:
        seat = s.exec(select(Seat).where(Seat.token == token.lower())).first()
    if seat is None:
        abort(404)
    return seat


def public_games(limit: int = 50) -> list[Game]:
    with store().reader() as s:
        return s.exec(select(Game).where(Game.public).order_by(Game.id.desc()).limit(limit)).all()


def event(game_id: int, seq: int) -> dict:
    with store().reader() as s:
        payload = s.exec(select(Move.payload).where(Move.game_id == game_id,
                                                    Move.seq == seq)).first()
    if payload is None:
        abort(404)
    return payload


def handed_over(game_id: int, seat: int, since: int) -> bool:
    """Has someone else taken `seat` over after move `since`? (Then a link mailed to the
    player who left must not show them the seat's cards.)"""
    with store().reader() as s:
        rows = s.exec(select(Move.payload).where(Move.game_id == game_id, Move.seq > since,
                                                 Move.type == "substitute")).all()
    return any(p.get("seat") == seat for p in rows)
