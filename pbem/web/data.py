"""Reading games for pages: the game, its seats, names, and a snapshot of its state."""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from flask import abort, current_app
from sqlalchemy import bindparam, func
from sqlalchemy import select as select_columns
from sqlmodel import col, select

from ..engine import State
from ..signing import MOVE, Signer, secret_keys
from ..signing import signer as signing_signer
from ..store.bounces import bouncing
from ..store.games import players_of
from ..store.models import Game, Move, Player, Seat
from ..table import seat_names


@dataclass
class Table:
    game: Game
    seats: list[Seat]
    names: list[str]
    state: State  # load: a snapshot (the cache's own moves on); viewing: lent, read only
    bouncing: frozenset = frozenset()  # seats whose player's mail stopped: it bounces


def store():
    return current_app.config["PBEM_STORE"]


def keys(app=None) -> list[str]:
    """The signing keys now, as the mail path reads them (pbem.signing.secret_keys: a key
    file rotated while the worker runs signs and verifies from the next request on); the
    app's config (its session cookie's keys, PBEM_KEYS) follows them."""
    app = app or current_app
    now = secret_keys(app.config["PBEM_SETTINGS"])
    if now != app.config["PBEM_KEYS"]:
        app.config.update(SECRET_KEY=now[-1], SECRET_KEY_FALLBACKS=now[:-1], PBEM_KEYS=now)
    return now


def signer(purpose: str = MOVE) -> Signer:
    """The Signer of the keys now for `purpose`, made once a key set (pbem.signing.signer)."""
    return signing_signer(tuple(keys()), purpose)


def load(game_id: int) -> Table:
    """The game with a snapshot of its state, the page's own to keep."""
    t = _read(game_id)
    live, t.state = t.state, t.state.snapshot()  # copied before another thread may take it
    store().keep(game_id, live)
    return t


@contextmanager
def viewing(game_id: int) -> Iterator[Table]:
    """The game for a page that only reads it: its state lent from the cache, not copied
    (deep-copying a long game's state cost more than rendering its page), and kept back
    when the page is done. The page must not change it."""
    t = _read(game_id)
    try:
        yield t
    finally:
        store().keep(game_id, t.state)


def _read(game_id: int) -> Table:
    """The game and its live state, taken out of the cache (the caller keeps it back)."""
    st_ = store()
    with st_.reader() as s:
        game = s.get(Game, game_id)
        if game is None:
            abort(404)
        seats = s.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))).all()
        players = players_of(s, seats)
        live = st_.state(s, game)
    stopped = frozenset(x.seat for x in seats if bouncing(players.get(x.player_id)))
    return Table(game, seats, seat_names(seats, players), live, stopped)


# the pad's game, last seq and seats' names in one statement (the ORM took 90 % of a pad)
_HEAD = (select_columns(col(Game.public),
                        select_columns(func.max(Move.seq)).where(col(Move.game_id) == Game.id)
                        .scalar_subquery(),
                        col(Seat.seat), col(Seat.player_id), col(Player.name))
         .select_from(Game).join(Seat, col(Seat.game_id) == Game.id, isouter=True)
         .join(Player, col(Player.id) == Seat.player_id, isouter=True)
         .where(col(Game.id) == bindparam("g")).order_by(col(Seat.seat)))


def head(game_id: int) -> tuple[bool, int, list[str]]:
    """Whether the game is public, its last seq and its seats' names (as seat_names gives
    them), without its state: what a cached page of it depends on."""
    with store().reader() as s:  # the statement as it is, not as ORM entities
        rows = s.connection().execute(_HEAD, {"g": game_id}).all()
    if not rows:
        abort(404)
    names = [name if player is not None and name is not None else f"robot {seat}"
             for _, _, seat, player, name in rows if seat is not None]
    return bool(rows[0][0]), rows[0][1] or 0, names


def seat_for(token: str) -> Seat:
    """The seat of a token (every table POST starts here), detached: a session may still
    add it."""
    with store().reader() as s:
        seat = s.exec(select(Seat).where(Seat.token == token.lower())).first()
    if seat is None:
        abort(404)
    return seat


def public_games(limit: int = 50) -> list[Game]:
    with store().reader() as s:
        newest = select(Game).where(col(Game.public)).order_by(col(Game.id).desc())
        return list(s.exec(newest.limit(limit)).all())


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
