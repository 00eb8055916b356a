"""Seasons in motion, through the door: a season starts on its day (or when the organiser
says), each round's new games are dealt (pbem.play.start), an organiser seats a substitute
(pbem.play.hand_over), and the clock's league tick does what is due in every league and
repairs what a crash left half done (a round not opened, a game not dealt). Drawing rounds
is pbem.league.rounds; this module only adds what moves a game."""

from datetime import date, datetime, timedelta

from sqlmodel import col, or_, select

from ..asks import mail_once
from ..config import load
from ..i18n import N_, _, language
from ..league.manage import OPERATOR, LeagueError, address, league_fixture
from ..league.reports import stale_tables
from ..league.rounds import begin, open_next
from ..league.rows import id_of
from ..play import Refused, hand_over, start
from ..store import prefs
from ..store.games import is_robot, mailable
from ..store.models import Entry, Fixture, Game, League, Player, Season
from ..store.models import now as utcnow


def start_season(store, league_id: int, by) -> Season:
    """Close entries and open round one now (the organiser need not wait for the day)."""
    season = begin(store, league_id, by)
    advance(store, id_of(season))
    return season


def advance(store, season_id: int, today: date | None = None) -> list[int]:
    """Open the season's next round if this one is done, and deal its games; returns them."""
    games = open_next(store, season_id, today)
    deal(store, games)
    return games


def deal(store, game_ids) -> None:
    """Deal each new game (and let robots act). A game left undealt by a crash is dealt by
    the next tick."""
    for gid in game_ids:
        start(store, gid)


def substitute(store, league_id: int, by, game_id: int, seat: int, who: str):
    """The organiser seats `who` (an address, or robot, or robot:LEVEL) in place of a
    player mid-game."""
    who = who.strip().lower() if is_robot(who) else address(who)
    with store.session() as s:
        league_fixture(s, league_id, by, game_id)
    try:
        return hand_over(store, game_id, seat, who, source="organiser")
    except Refused as e:
        raise LeagueError(e.reason) from None


def tick(store, now: datetime | None = None) -> int:
    """What is due in every league: seasons whose day has come start, rounds whose games
    are all over open (a repair: the last move normally opens them), games left undealt are
    dealt, and tables that have not moved for the league's `stale_hours` are flagged to
    the organiser once. Returns how many things it did."""
    now = now or utcnow()
    done = _start_due(store, now.date())
    with store.session() as s:
        running = s.exec(select(Season.id).where(Season.status == "running")).all()
    for season_id in running:
        done += len(advance(store, season_id, now.date()))
    done += _deal_undealt(store)
    return done + _flag_stale(store, now)


def _start_due(store, today: date) -> int:
    with store.session() as s:
        due = s.exec(select(Season).where(Season.status == "open",
                                          Season.starts <= today)).all()
    started = 0
    for season in due:
        try:
            start_season(store, season.league_id, OPERATOR)
            started += 1
        except LeagueError as e:  # too few entries (or another clock started it first)
            with store.session() as s:
                waiting = s.get(Season, season.id).status == "open"
            if waiting:  # the organiser hears once a day
                _organiser_note(store, season.league_id, f"short:{season.id}:{today}",
                                N_("Season %(season)s could not start"), N_("%(why)s."),
                                {"season": season.number, "why": str(e)})
    return started


def _deal_undealt(store) -> int:
    with store.session() as s:
        undealt = s.exec(select(Game.id).join(Fixture, col(Fixture.game_id) == Game.id)
                         .join(Season, col(Season.id) == Fixture.season_id)
                         .where(Season.status == "running", Game.status == "open")).all()
    deal(store, undealt)
    return len(undealt)


def _flag_stale(store, now: datetime) -> int:
    flagged = 0
    with store.session() as s:
        ids = set(s.exec(select(Season.league_id).where(Season.status == "running")).all())
        leagues = s.exec(select(League).where(col(League.id).in_(ids))).all()
    found = [(league, t) for league in leagues for t in stale_tables(store, league, now)]
    for league, t in found:
        quiet = (now - t["last_move"]) // timedelta(hours=1)
        flagged += _organiser_note(
            store, league.id, f"stale:{t['game_id']}:{t['seq']}",
            N_("Game %(game)s has not moved for %(hours)s hours"),
            N_("Game %(game)s (round %(round)s, table %(table)s) has waited %(hours)s hours for "
               "%(waiting)s.\nYou may give a substitute the seat on your organiser's page: "
               "%(page)s"),
            {"game": t["game_id"], "hours": quiet, "round": t["round"], "table": t["board"],
             "waiting": ", ".join(t["waiting"]),
             "page": f"{load().base_url}/o/{league.admin_token}"})
    return flagged


def _organiser_note(store, league_id, key, subject: str, text: str, values: dict) -> int:
    """One mail to the league's organiser under `key` (never twice), its words (`subject`,
    `text`: marked N_) in the organiser's language; 1 if it was queued."""
    with store.session() as s:
        league = s.get(League, league_id)
        boss = s.get(Player, league.organiser_id)
    if not mailable(boss):  # its mail bounces: the organiser's page shows the table
        return 0
    with language(prefs.language(boss)):
        return mail_once(store, boss.email, f"{league.name}: {_(subject) % values}",
                         _(text) % values + "\n", key)


def tell_organisers(store, player: Player, status: str) -> int:
    """Mail to `player` has just stopped (it bounces): the organiser of each league they play
    in hears of it once, as their page shows it. The number of notes queued."""
    with store.session() as s:
        leagues = s.exec(select(League).join(Season, col(Season.league_id) == League.id)
                         .join(Entry, col(Entry.season_id) == Season.id)
                         .where(Season.status != "over", Entry.status != "withdrawn",
                                or_(Entry.player_id == player.id,
                                    Entry.partner_id == player.id))).unique().all()
    stopped = player.prefs["bounces"]["stopped"]
    return sum(_organiser_note(
        store, league.id, f"bounces:{league.id}:{player.id}:{stopped}",
        N_("mail to %(name)s bounces"),
        N_("Mail to %(name)s <%(address)s> bounces (%(status)s), so we send them none: their "
           "seats go on as silent ones, as the league's time control says. You may give a "
           "substitute a seat on your organiser's page: %(page)s\nTheir mail starts again "
           "when they write to us from that address."),
        {"name": player.name, "address": player.email, "status": status,
         "page": f"{load().base_url}/o/{league.admin_token}"}) for league in leagues)
