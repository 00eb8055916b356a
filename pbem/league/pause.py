"""Pausing a league or one season, and resuming it (docs/leagues.md, "Pause"): while paused
no deadline of its games fires and no round opens; on resume every deadline has the time
it had left when the pause began (a bank clock: its bank as it stood). Moves may still be
made meanwhile; the deadlines they arm wait too (pbem.deadlines.arm), with their full time.
Every player of the season is mailed at the pause and at the resume, through the outbox."""

from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from ..config import load
from ..deadlines import PAUSED, shift_bank
from ..i18n import N_, _, current, language
from ..store import prefs
from ..store.games import mailable
from ..store.models import (
    Deadline,
    Entry,
    Fixture,
    Game,
    League,
    Outbox,
    Player,
    Season,
    Seat,
    SeatClock,
)
from ..store.models import now as utcnow
from ..store.pacing import aware
from ..store.states import Store
from . import news
from .manage import Asker, LeagueError, get_league, require_organiser

PAUSES_PER_DAY = 3  # a season's pauses in a day: each one mails every player twice


def pause(store: Store, league_id: int, by: Asker, season_number: int | None = None
          ) -> list[int]:
    """Pause the league's running seasons (or one): returns the season numbers paused."""
    now = utcnow()
    with store.session() as s:
        league, seasons = _seasons(s, league_id, by, season_number, paused=False)
        for season in seasons:
            if _pauses_since(s, season, now - timedelta(days=1)) >= PAUSES_PER_DAY:
                raise LeagueError(_("season %(season)s was paused %(times)s times in the last "
                                    "day: each pause mails every player, so wait")
                                  % {"season": season.number, "times": PAUSES_PER_DAY})
            season.paused_at = now
            s.add(season)
            for game in _games(s, season):
                game.paused_at = now
                s.add(game)
                for row in _rows(s, game, "pending"):
                    row.state, row.paused_at = PAUSED, now
                    s.add(row)
            _tell(s, league, season, now, {"when": _when(now)}, "paused")
        s.commit()
        return [x.number for x in seasons]


def resume(store: Store, league_id: int, by: Asker, season_number: int | None = None
           ) -> list[int]:
    """Resume the league's paused seasons (or one): every deadline gets back the time it
    had left. Returns the season numbers resumed."""
    now = utcnow()
    with store.session() as s:
        league, seasons = _seasons(s, league_id, by, season_number, paused=True)
        for season in seasons:
            for game in _games(s, season):
                _restart(s, game, now)
            _tell(s, league, season, now, {"when": _when(now),
                                           "since": _when(_paused_since(season))}, "resumed")
            season.paused_at = None
            s.add(season)
        s.commit()
        return [x.number for x in seasons]


def _restart(s: Session, game: Game, now: datetime) -> None:
    """The game's paused rows are due as much later as they stood still; a waiting bank
    clock's seat pays for its wait up to the pause and waits on from now (pbem.deadlines
    derives its rows again from the bank)."""
    since = _paused_since(game)
    clocks = s.exec(select(SeatClock).where(SeatClock.game_id == game.id,
                                            col(SeatClock.since).is_not(None))).all()
    banked = {c.seat for c in clocks}
    for row in _rows(s, game, PAUSED):
        if row.seat not in banked:
            row.due = row.due + (now - _paused_since(row))
        row.state, row.paused_at = "pending", None
        s.add(row)
    s.flush()
    for clock in clocks:
        seat = s.exec(select(Seat).where(Seat.game_id == game.id,
                                         Seat.seat == clock.seat)).one()
        player = s.get(Player, seat.player_id) if seat.player_id else None
        # a wait begun in the pause counts from its start
        began = max(aware(clock.since or since), since)
        shift_bank(s, game, clock, player, now - began, began)
    game.paused_at = None
    s.add(game)


def _paused_since(row: Season | Game | Deadline) -> datetime:
    """When a paused row was paused (its paused_at is None only while it runs)."""
    if row.paused_at is None:
        raise ValueError(f"{row!r} is not paused")
    return aware(row.paused_at)


def _pauses_since(s: Session, season: Season, since: datetime) -> int:
    """The season's pauses since then, by the mails that told of them (one key a pause)."""
    keys = s.exec(select(Outbox.dedupe_key).where(
        col(Outbox.dedupe_key).like(f"paused:{season.id}:%"), Outbox.created >= since)).all()
    return len({k.rsplit(":", 1)[0] for k in keys})


def _seasons(s: Session, league_id: int, by: Asker, number: object, paused: bool
             ) -> tuple[League, list[Season]]:
    league = get_league(s, league_id)
    require_organiser(league, by)
    q = select(Season).where(Season.league_id == league.id, Season.status == "running")
    if number is not None:
        if not isinstance(number, int) or not s.exec(select(Season.id).where(
                Season.league_id == league.id, Season.number == number)).first():
            raise LeagueError(_("%(league)s has no season %(season)s")
                              % {"league": league.name, "season": number})
        q = q.where(Season.number == number)
    found = [x for x in s.exec(q.order_by(col(Season.number))).all()
             if (x.paused_at is not None) == paused]
    if not found:
        raise LeagueError(_nothing_to(league.name, paused, number))
    return league, found


def _nothing_to(name: str, paused: bool, number: object) -> str:
    """Why there is no season to pause or resume, in whole sentences."""
    values = {"league": name, "season": number}
    if number is None:
        return (_("%(league)s has no running season paused") if paused
                else _("%(league)s has no running season to pause")) % values
    return (_("%(league)s has no running season paused (season %(season)s)") if paused
            else _("%(league)s has no running season to pause (season %(season)s)")) % values


def _games(s: Session, season: Season) -> list[Game]:
    return list(s.exec(select(Game).join(Fixture, col(Fixture.game_id) == Game.id).where(
        Fixture.season_id == season.id, Fixture.status == "playing")).all())


def _rows(s: Session, game: Game, state: str) -> list[Deadline]:
    return list(s.exec(select(Deadline).where(Deadline.game_id == game.id,
                                              Deadline.state == state)).all())


# (subject, text) of a pause's and a resume's mails
_SAID = {"paused": (N_("%(league)s: season %(season)s paused"),
                    N_("%(league)s, season %(season)s, is paused from %(when)s: no deadline runs "
                       "until it resumes, and then each has the time it had left. You may still "
                       "move meanwhile.\nThe league: %(link)s")),
         "resumed": (N_("%(league)s: season %(season)s resumed"),
                     N_("%(league)s, season %(season)s, resumed at %(when)s (paused since "
                        "%(since)s): the deadlines run again, each with the time it had left."
                        "\nThe league: %(link)s"))}


def _tell(s: Session, league: League, season: Season, now: datetime, values: dict,
          kind: str) -> None:
    """Every player of the season hears of its pause or resume, in their language."""
    ids = {x for e in s.exec(select(Entry).where(Entry.season_id == season.id,
                                                 Entry.status != "withdrawn")).all()
           for x in (e.player_id, e.partner_id) if x}
    values = dict(values, league=league.name, season=season.number,
                  link=f"{load().base_url}/l/{league.id}")
    subject, text = _SAID[kind]
    news.paused(s, league, season, kind, now)
    for p in s.exec(select(Player).where(col(Player.id).in_(ids))).all():
        if mailable(p):
            with language(prefs.language(p)):
                s.add(Outbox(to_addr=p.email, subject=_(subject) % values,
                             body_text=_(text) % values + "\n",
                             headers={"Auto-Submitted": "auto-generated",
                                      "Content-Language": current()},
                             dedupe_key=f"{kind}:{season.id}:{now.isoformat()}:{p.id}"))


def _when(t: datetime) -> str:
    return aware(t).strftime("%Y-%m-%d %H:%M UTC")
