"""Hints (issue 33): the card the hard robot would play, for the seat to play only, worked
out from that seat's own view in a read; the count of hints a seat took in a short write.
Off in a league's games unless its organiser allows them (League.hints)."""

from sqlalchemy import update
from sqlmodel import Session, col, select

from ..engine import view
from ..engine.review import hard_card
from ..i18n import _
from .models import Fixture, Game, League, Season, Seat
from .states import Store


class HintRefused(ValueError):
    """No hint: the message says why, for the seat's player."""


def allowed(s: Session, game_id: int) -> bool:
    """A game outside leagues allows hints; a league's game only if its organiser does."""
    row = s.exec(select(League.hints).join(Season, col(Season.league_id) == League.id)
                 .join(Fixture, col(Fixture.season_id) == Season.id)
                 .where(Fixture.game_id == game_id)).first()
    return row is None or bool(row)


def hint(store: Store, game_id: int, seat: int) -> str:
    """The hard robot's card for `seat`, whose turn to play it must be; counted once
    given. HintRefused says why not."""
    with store.reader() as s:
        game = s.get(Game, game_id)
        if game is None or game.status != "playing":
            raise HintRefused(_("no hint: this game is not being played"))
        if not allowed(s, game_id):
            raise HintRefused(_("no hint: hints are off in this league (its organiser may "
                                "allow them)"))
        st = store.state(s, game)
    seen = view(st, seat)
    store.keep(game_id, st)
    card = hard_card(seen, game_id, st.rules)
    if card is None:
        raise HintRefused(_("no hint: a hint is for your turn to play a card"))
    with store.session() as s:
        s.exec(update(Seat).where(col(Seat.game_id) == game_id, col(Seat.seat) == seat)
               .values(hints=col(Seat.hints) + 1))
        s.commit()
    return card


def taken(s: Session, game_id: int) -> list[int]:
    """Hints each seat of the game took, by seat."""
    return list(s.exec(select(Seat.hints).where(Seat.game_id == game_id)
                       .order_by(col(Seat.seat))).all())
