"""What the organiser's commands share. They are taken at a league's secret organiser
address organiser+KEY@DOMAIN, from the organiser's own verified address (pbem.mail.inbound
checks the sender). LEAGUE, as written before there were such addresses, must be the
address's own league; the league services check again that the sender is its organiser."""

from collections.abc import Callable
from typing import TypeVar

from ...league.manage import LeagueError
from ...numbers import whole
from .base import Context
from .errors import Declined, NotOrganiserAddress, OtherLeague, Usage

T = TypeVar("T")


def read_numbers(words: list[str], usage: str) -> list[int]:
    numbers = [whole(w) for w in words]
    if None in numbers:
        raise Usage(usage)
    return [n for n in numbers if n is not None]


def check_ours(ctx: Context, lid: int) -> int:
    """The league, if it is the organiser address's own (a command anywhere else, or for
    another league, does nothing)."""
    if ctx.league is None:
        raise NotOrganiserAddress()
    if lid != ctx.league:
        raise OtherLeague(ctx.league, lid)
    return lid


def ask_league(fn: Callable[..., T], *args: object) -> T:
    """A league service's answer, or its refusal in its own words."""
    try:
        return fn(*args)
    except LeagueError as e:
        raise Declined(str(e)) from None


def read_league_and_season(words: list[str], usage: str) -> tuple[int, int | None]:
    """LEAGUE, or LEAGUE season N."""
    if len(words) not in (1, 3) or (len(words) == 3 and words[1].lower() != "season"):
        raise Usage(usage)
    lid, *season = read_numbers(words[::2], usage)
    return lid, season[0] if season else None
