"""Stored hand reviews (issue 33) and a seat's hints: reading them for the score pad, and
the clock's job that reviews finished hands outside any write (pbem.clock.review_tick)."""

from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..engine.review import review
from ..engine.rules import Rules
from .games import events
from .models import Game, HandReview
from .states import Store

TICK_GAMES = 200  # games looked at a tick, newest first
TICK_REVIEWS = 3  # reviews worked out a tick (each bounded by REVIEW_NODES)


def of_game(s: Session, game_id: int) -> dict[int, dict[str, Any]]:
    """The game's stored reviews by hand number (1 first)."""
    rows = s.exec(select(HandReview.hand, HandReview.data)
                  .where(HandReview.game_id == game_id)).all()
    return {hand: dict(data) for hand, data in rows}


def pending(store: Store) -> list[tuple[int, int]]:
    """(game, hand) pairs of finished hands with no review yet, read once."""
    with store.reader() as s:
        games = s.exec(select(Game).where(col(Game.status).in_(("playing", "over")))
                       .order_by(col(Game.id).desc()).limit(TICK_GAMES)).all()
        done: dict[int, set[int]] = {}
        ids = [g.id for g in games if g.id is not None]
        for gid, hand in s.exec(select(HandReview.game_id, HandReview.hand)
                                .where(col(HandReview.game_id).in_(ids))).all():
            done.setdefault(gid, set()).add(hand)
        states = store.states(s, ids)
    out = []
    for gid, st in states.items():
        store.keep(gid, st)
        out += [(gid, h) for h in range(1, len(st.history) + 1) if h not in done.get(gid, ())]
    return out


def work_out(store: Store, game_id: int, hand: int) -> dict[str, Any] | None:
    """The review of a finished hand, from a read (pure work after it)."""
    with store.reader() as s:
        game = s.get(Game, game_id)
        if game is None:
            return None
        rules, first = Rules.stored(game.rules), game.first_dealer
        log = events(s, game_id)
    return review(rules, log, first, hand - 1, seed=game_id)


def save(store: Store, game_id: int, hand: int, data: dict[str, Any]) -> bool:
    """Store a review in a short write; False if one was there already (two clocks)."""
    try:
        with store.session() as s:
            s.add(HandReview(game_id=game_id, hand=hand, data=data))
            s.commit()
    except IntegrityError:
        return False
    return True
