"""A player's deadlines as an iCalendar feed (issue 35; the address: pbem.store.calendars,
the page: pbem.web.calendar). One event a pending deadline of the player's own: a seat of
theirs asked to act in a game in play, at the time its timeout falls (UTC). Reminders are
not events, nor a robot's turn, nor another seat's deadline, nor a paused league's (its
deadline has no date until the league resumes). The events hold the game's number, its
preset, the seats' names as the table shows them, what is asked (a bid, a card...) and a
link: never a card, and never a key, since a feed is read by calendar services and often
shared: a public game links to its score pad, a private one to the player's home page."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from icalendar import Calendar, Event
from sqlmodel import Session, col, select

from .i18n import N_, _
from .store.games import players_of
from .store.models import Deadline, Game, Seat
from .store.models import now as utcnow
from .store.states import Store
from .table import seat_names

MAX_EVENTS = 200  # the soonest deadlines: a calendar, not an archive
REFRESH = timedelta(hours=1)  # how often a calendar client is asked to fetch the feed again
ASKED = {"bid": N_("your bid"), "play": N_("your card"), "pass": N_("your cards to pass"),
         "draw": N_("your draw")}


@dataclass(frozen=True)
class Due:
    """One event: a deadline of the player's seat, with what the table shows of its game."""

    game_id: int
    seat: int
    seq: int
    due: datetime
    phase: str
    rules: str
    public: bool
    names: tuple[str, ...]


@dataclass(frozen=True)
class Site:
    """What the feed's links and identifiers are made from (the site's settings)."""

    base_url: str
    domain: str


def pending(store: Store, player_id: int, limit: int = MAX_EVENTS) -> list[Due]:
    """The player's pending deadlines, soonest first, at most `limit`; each checked
    against its game's state: the seat is still asked to act, at that move."""
    with store.reader() as s:
        rows = _timeouts(s, player_id, limit)
        ids = sorted({d.game_id for d in rows})
        games = {g.id: g for g in s.exec(select(Game).where(col(Game.id).in_(ids)))}
        seats: dict[int, list[Seat]] = {g: [] for g in ids}
        for x in s.exec(select(Seat).where(col(Seat.game_id).in_(ids))
                        .order_by(col(Seat.game_id), col(Seat.seat))):
            seats[x.game_id].append(x)
        players = players_of(s, [x for g in ids for x in seats[g]])
        states = store.states(s, ids)  # private copies, kept back below
    try:
        out = []
        for d in rows:
            st = states.get(d.game_id)
            if st is None or d.seat not in st.to_act() or d.seq != st.move_seq:
                continue  # moved on since the row was read, or no longer this seat's turn
            game = games[d.game_id]
            out.append(Due(d.game_id, d.seat, d.seq, d.due, st.phase,
                           str((game.rules or {}).get("preset", "standard")), game.public,
                           tuple(seat_names(seats[d.game_id], players))))
        return out
    finally:
        for gid, st in states.items():
            store.keep(gid, st)


def _timeouts(s: Session, player_id: int, limit: int) -> list[Deadline]:
    """The pending timeouts of the player's own seats in games in play, one a seat."""
    rows = s.exec(select(Deadline).join(Seat, (col(Seat.game_id) == Deadline.game_id)
                                        & (col(Seat.seat) == Deadline.seat))
                  .join(Game, col(Game.id) == Deadline.game_id)
                  .where(Seat.player_id == player_id, Game.status == "playing",
                         Deadline.state == "pending", Deadline.kind == "timeout")
                  .order_by(col(Deadline.due), col(Deadline.id)).limit(limit)).all()
    one: dict[tuple[int, int], Deadline] = {}
    for d in rows:
        one.setdefault((d.game_id, d.seat), d)
    return list(one.values())


def ics(dues: list[Due], site: Site) -> bytes:
    """The feed: an iCalendar (RFC 5545) of one event a deadline, in the current language."""
    cal = Calendar()
    for key, value in (("prodid", "-//pbem//Spades by email//EN"), ("version", "2.0"),
                       ("calscale", "GREGORIAN"), ("method", "PUBLISH"),
                       ("x-wr-calname", _("Spades by email: your deadlines"))):
        cal.add(key, value)
    cal.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", "PT1H")  # the same, as older clients read it
    stamp = utcnow()
    for due in dues:
        cal.add_component(_event(due, site, stamp))
    return cal.to_ical()


def _event(due: Due, site: Site, stamp: datetime) -> Event:
    asked = _(ASKED.get(due.phase, N_("your move")))
    link = (f"{site.base_url}/g/{due.game_id}" if due.public else f"{site.base_url}/home")
    event = Event()
    event.add("uid", f"pbem-{due.game_id}-{due.seat}-{due.seq}@{site.domain}")
    event.add("dtstamp", stamp)
    event.add("dtstart", due.due)
    event.add("summary", _("Spades game %(game)s: %(asked)s is due") % {
        "game": due.game_id, "asked": asked})
    event.add("description", "\n".join((
        _("Game %(game)s (%(rules)s). At the table: %(names)s.") % {
            "game": due.game_id, "rules": due.rules, "names": ", ".join(due.names)},
        _("This is the deadline for %(asked)s.") % {"asked": asked}, link)))
    event.add("url", link)
    event.add("transp", "TRANSPARENT")  # a deadline, not time the player is busy
    return event
