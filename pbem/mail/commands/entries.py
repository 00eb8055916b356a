"""What the league commands share: a league's number as written, the player's entries."""

from sqlmodel import col, select

from ...numbers import whole
from ...store.models import Entry, League, Season
from ...store.states import Store
from .errors import NotALeagueNumber


def league_number(word: str) -> int:
    number = whole(word)
    if number is None:
        raise NotALeagueNumber(word)
    return number


def my_entries(store: Store, player_id: int,
               league_id: int | None = None) -> list[tuple[Entry, Season, League]]:
    """(entry, season, league) for each season the player is entered in, newest first."""
    with store.session() as s:
        q = (select(Entry, Season, League).join(Season, col(Season.id) == col(Entry.season_id))
             .join(League, col(League.id) == col(Season.league_id))
             .where((Entry.player_id == player_id) | (Entry.partner_id == player_id)))
        if league_id is not None:
            q = q.where(League.id == league_id)
        return list(s.exec(q.order_by(col(Season.id).desc())).all())
