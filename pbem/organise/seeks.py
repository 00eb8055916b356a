"""Open seeks (issue 34): a player asks for a game with anyone (rated in a range, if they
say), others take its seats, and the game is dealt when the last seat is taken, or robots
fill the empty seats N days after posting if the poster allowed it. A seek without robots
expires after EXPIRE_DAYS and its players are told.

Every change is one transaction that first locks the seek's row (SQLite: every writer
holds the write lock from BEGIN), and changes only an open seek: of two joiners for the
last seat, or a join and the clock's robot fill, exactly one makes the game; the other
finds the seek started and is told so. The game is made in the same transaction and dealt
after it through the door (pbem.play.start), so every seat gets its turn mail as any new
game's do; a game a crash left undealt is dealt by the next tick (as a league's).

The preset, options and time control are read by the new-game form's own readers
(pbem.web.newgame), from the web's form or from a mail's words put in the same fields."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlmodel import Session, col, delete, or_, select, update

from ..asks import mail_once
from ..config import load
from ..engine import Rules
from ..i18n import N_, _, language
from ..league.reports import ratings
from ..numbers import whole
from ..play import start
from ..store import prefs
from ..store.games import ROBOT, add_game, mailable, table_of
from ..store.models import Entry, Game, League, Player, Season, Seek, SeekSeat
from ..store.models import now as utcnow
from ..store.states import Store
from ..web.newgame import describe_clock, read_rules, time_control

MAX_OPEN = 3  # open seeks one player may have posted at once
MAX_DAYS = 30  # "robots after N days": N from 1 to this
EXPIRE_DAYS = 14  # a seek without robots is withdrawn after this
MAX_RATING = 3000  # a rating range lies within 0 to this
DEFAULT_RATING = 1500  # a player no league has rated: the leagues' starting rating
MAX_LISTED = 100  # open seeks a page or a mail lists, oldest first
TICK_LIMIT = 200  # seeks one tick closes


class SeekError(ValueError):
    """Refused: nothing changed; the message says why, in the asker's language."""


@dataclass(frozen=True)
class Spec:
    """What a seek asks for, checked."""

    rules: Rules
    time_control: dict
    rating: tuple[int, int] | None = None
    robot_days: int | None = None  # None: no robots, the seek expires


@dataclass
class Listed:
    """An open seek as pages and mails list it."""

    id: int
    preset: str
    clock: str
    players: int
    names: list[str]
    rating: tuple[int, int] | None
    robots: bool
    due: datetime
    poster_id: int
    seated: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Joined:
    seek_id: int
    game_id: int | None  # the game the last seat made; None: seats still empty
    left: int  # seats still empty


def read_spec(form: Mapping[str, str]) -> Spec:
    """The seek a form (or a mail's words in its fields) asks for: `preset`, `options`,
    the new-game form's time control fields, `rating_min`, `rating_max`, `robot_days`
    (blank: none). SeekError (or the new-game readers' RulesError, ValueError)."""
    rules = read_rules(form)
    tc = time_control(form)
    low, high = (form.get(k, "").strip() for k in ("rating_min", "rating_max"))
    rating = None
    if low or high:
        bounds = whole(low or "0", MAX_RATING), whole(high or str(MAX_RATING), MAX_RATING)
        if bounds[0] is None or bounds[1] is None or bounds[0] > bounds[1]:
            raise SeekError(_("a rating range is two whole numbers from 0 to %(most)s, the "
                              "lower first") % {"most": MAX_RATING})
        rating = (bounds[0], bounds[1])
    days_text = form.get("robot_days", "").strip()
    days = whole(days_text, MAX_DAYS) if days_text else None
    if days_text and (days is None or days < 1):
        raise SeekError(_("robots fill the seats after 1 to %(most)s days") % {"most": MAX_DAYS})
    return Spec(rules, tc, rating, days)


def post(store: Store, player_id: int, spec: Spec, now: datetime | None = None) -> int:
    """Post the seek, its poster in the first seat; its id. SeekError if the player has
    MAX_OPEN open seeks already."""
    now = now or utcnow()
    days = spec.robot_days or EXPIRE_DAYS
    with store.session() as s:
        # the poster's row, locked: two posts at once are counted one after the other
        s.exec(select(Player.id).where(Player.id == player_id).with_for_update()).one()
        if len(_open_of(s, player_id)) >= MAX_OPEN:
            raise SeekError(_("you have %(most)s open seeks already: withdraw one first "
                              "(unseek N)") % {"most": MAX_OPEN})
        seek = Seek(player_id=player_id, rules=spec.rules.to_dict(),
                    time_control=spec.time_control, robots=spec.robot_days is not None,
                    rating_min=spec.rating[0] if spec.rating else None,
                    rating_max=spec.rating[1] if spec.rating else None,
                    due=now + timedelta(days=days), created=now)
        s.add(seek)
        s.flush()
        assert seek.id is not None  # stored by the flush
        s.add(SeekSeat(seek_id=seek.id, player_id=player_id, joined=now))
        s.commit()
        return seek.id


def join(store: Store, seek_id: int, player_id: int) -> Joined:
    """Take a seat in the seek; the last seat makes the game and deals it. SeekError if the
    seek is not open, is the player's own, has them already, or their rating is out of its
    range."""
    with store.reader() as s:  # the rating (league folds) is read before the write
        rating = rating_of(s, player_id)
    with store.session() as s:
        seek = _locked(s, seek_id)
        if seek.player_id == player_id:
            raise SeekError(_("seek %(seek)s is your own") % {"seek": seek_id})
        seated = _seated(s, seek_id)
        if player_id in seated:
            raise SeekError(_("you have a seat in seek %(seek)s already") % {"seek": seek_id})
        if seek.rating_min is not None and not (
                seek.rating_min <= rating <= (seek.rating_max or MAX_RATING)):
            raise SeekError(_("seek %(seek)s is for ratings %(low)s-%(high)s; yours is "
                              "%(rating)s") % {"seek": seek_id, "low": seek.rating_min,
                                               "high": seek.rating_max, "rating": rating})
        s.add(SeekSeat(seek_id=seek_id, player_id=player_id))
        seated.append(player_id)
        left = Rules.from_dict(seek.rules).players - len(seated)
        gid = _make_game(s, seek, seated) if left == 0 else None
        s.commit()
    if gid is not None:
        _deal(store, seek_id, gid)
    return Joined(seek_id, gid, left)


def cancel(store: Store, seek_id: int, player_id: int) -> None:
    """The poster withdraws their open seek; those who took a seat are told."""
    with store.session() as s:
        seek = _locked(s, seek_id, player_id)
        seek.status = "cancelled"
        s.add(seek)
        others = [p for p in _seated(s, seek_id) if p != player_id]
        s.commit()
    _tell(store, others, f"seek-cancelled:{seek_id}", N_("Seek %(seek)s was withdrawn"),
          N_("Seek %(seek)s, in which you took a seat, was withdrawn by its poster."), seek_id)


def tick(store: Store, now: datetime | None = None) -> int:
    """The clock's: seeks whose day has come get their robots (a game) or expire, and a
    seek's game a crash left undealt is dealt. Each is idempotent: a closed seek is not
    closed again. Returns how many things it did."""
    now = now or utcnow()
    with store.reader() as s:
        due = s.exec(select(Seek.id).where(Seek.status == "open", col(Seek.due) <= now)
                     .order_by(col(Seek.due), col(Seek.id)).limit(TICK_LIMIT)).all()
        undealt = s.exec(select(Seek.id, Seek.game_id).join(Game, col(Seek.game_id) == Game.id)
                         .where(Seek.status == "started", Game.status == "open")).all()
    done = sum(_close(store, seek_id, now) for seek_id in due if seek_id is not None)
    for seek_id, gid in undealt:
        if seek_id is not None and gid is not None:
            _deal(store, seek_id, gid)
    return done + len(undealt)


def open_seeks(store: Store) -> list[Listed]:
    """The open seeks, oldest first, with the names of those seated."""
    with store.reader() as s:
        seeks = s.exec(select(Seek).where(Seek.status == "open")
                       .order_by(col(Seek.id)).limit(MAX_LISTED)).all()
        ids = [x.id for x in seeks]
        rows = s.exec(select(SeekSeat.seek_id, Player.id, Player.name)
                      .join(Player, col(Player.id) == SeekSeat.player_id)
                      .where(col(SeekSeat.seek_id).in_(ids)).order_by(col(SeekSeat.id))).all()
    out = []
    for seek in seeks:
        rules = Rules.from_dict(seek.rules)
        here = [(pid, name) for sid, pid, name in rows if sid == seek.id]
        assert seek.id is not None  # a stored seek
        out.append(Listed(
            seek.id, rules.preset, describe_clock(seek.time_control), rules.players,
            [name for _pid, name in here],
            (seek.rating_min, seek.rating_max or MAX_RATING)
            if seek.rating_min is not None else None,
            seek.robots, seek.due, seek.player_id, [pid for pid, _name in here if pid]))
    return out


def of_player(s: Session, player_id: int) -> list[dict]:
    """The seeks the player posted or took a seat in, for their own export."""
    rows = s.exec(select(Seek, SeekSeat).join(SeekSeat, col(SeekSeat.seek_id) == Seek.id)
                  .where(SeekSeat.player_id == player_id).order_by(col(Seek.id))).all()
    return [{"seek": seek.id, "posted": seek.player_id == player_id, "status": seek.status,
             "preset": seek.rules.get("preset"), "game": seek.game_id,
             "created": seek.created.isoformat(), "joined": seat.joined.isoformat()}
            for seek, seat in rows]


def forget(s: Session, player_id: int) -> None:
    """In a forgetting's transaction (pbem.privacy.forget): the player's seats in open
    seeks are given up and their own open seeks withdrawn, so no game deals them in."""
    still_open = select(Seek.id).where(Seek.status == "open")
    s.exec(delete(SeekSeat).where(col(SeekSeat.player_id) == player_id,
                                  col(SeekSeat.seek_id).in_(still_open)))
    s.exec(update(Seek).where(col(Seek.player_id) == player_id, col(Seek.status) == "open")
           .values(status="cancelled"))


def rating_of(s: Session, player_id: int) -> int:
    """The player's Elo rating in the league they entered last that has rated them
    (pbem.league.reports.ratings); DEFAULT_RATING, the leagues' start, if none has."""
    leagues = s.exec(select(League).join(Season, col(Season.league_id) == League.id)
                     .join(Entry, col(Entry.season_id) == Season.id)
                     .where(or_(Entry.player_id == player_id, Entry.partner_id == player_id))
                     .order_by(col(Entry.id).desc())).all()
    seen: set = set()
    for league in leagues:
        if league.id in seen:
            continue
        seen.add(league.id)
        row = next((r for r in ratings(s, league)["players"] if r["id"] == player_id), None)
        if row is not None:
            return round(row["rating"])
    return DEFAULT_RATING


def _open_of(s: Session, player_id: int) -> list[int | None]:
    return list(s.exec(select(Seek.id).where(Seek.player_id == player_id,
                                             Seek.status == "open")).all())


def _locked(s: Session, seek_id: int, poster: int | None = None) -> Seek:
    """The open seek, its row locked for this transaction; SeekError if there is no open
    seek `seek_id` (of `poster`, if given)."""
    seek = s.exec(select(Seek).where(Seek.id == seek_id).with_for_update()).first()
    if seek is None or (poster is not None and seek.player_id != poster):
        raise SeekError(_("you have no seek %(seek)s") % {"seek": seek_id} if poster else
                        _("there is no seek %(seek)s") % {"seek": seek_id})
    if seek.status != "open":
        raise SeekError(_("seek %(seek)s is %(status)s") % {
            "seek": seek_id, "status": _(STATUS[seek.status])})
    return seek


STATUS = {"started": N_("started: its game is dealt"), "cancelled": N_("withdrawn"),
          "expired": N_("expired")}


def _seated(s: Session, seek_id: int) -> list[int]:
    return list(s.exec(select(SeekSeat.player_id).where(SeekSeat.seek_id == seek_id)
                       .order_by(col(SeekSeat.id))).all())


def _make_game(s: Session, seek: Seek, seated: list[int]) -> int:
    """The seek's game, its players in the order they took their seats and robots in the
    seats left empty; the seek is started. Dealt after the commit."""
    rules = Rules.from_dict(seek.rules)
    emails = dict(s.exec(select(Player.id, Player.email)
                         .where(col(Player.id).in_(seated))).all())
    seats = [emails[p] for p in seated] + [ROBOT] * (rules.players - len(seated))
    game = add_game(s, rules, seats, time_control=seek.time_control)
    game.created_by = seek.player_id  # the carer of a table that waits (pbem.clock)
    s.add(game)
    seek.status, seek.game_id = "started", game.id
    s.add(seek)
    assert game.id is not None  # flushed by add_game
    return game.id


def _close(store: Store, seek_id: int, now: datetime) -> int:
    """A due seek: robots take its empty seats (the game is dealt), or it expires and its
    players are told. 0 if it was closed already (a join, a cancel, another clock)."""
    with store.session() as s:
        try:
            seek = _locked(s, seek_id)
        except SeekError:
            return 0
        if seek.due > now:  # its time was moved: not this tick's
            return 0
        seated = _seated(s, seek_id)
        if seek.robots:
            gid: int | None = _make_game(s, seek, seated)
        else:
            seek.status, gid = "expired", None
            s.add(seek)
        s.commit()
    if gid is not None:
        _deal(store, seek_id, gid)
    else:
        _tell(store, seated, f"seek-expired:{seek_id}", N_("Seek %(seek)s expired"),
              N_("No one took the empty seats of seek %(seek)s in %(days)s days: it is "
                 "withdrawn. Post it again if you like (seek PRESET, by mail, or on your "
                 "home page)."), seek_id)
    return 1


def _deal(store: Store, seek_id: int, gid: int) -> None:
    """Deal the seek's game through the door (the seat to act gets its turn mail, as in any
    game), and tell each player at the table that it began, with their table's link (its
    key is theirs alone: the mail goes to them only)."""
    start(store, gid)
    cfg = load()
    with store.reader() as s:
        seats, players = table_of(s, gid)
    for seat in seats:
        player = players.get(seat.player_id or 0)
        if player is None or not mailable(player):
            continue
        values = {"seek": seek_id, "game": gid, "url": f"{cfg.base_url}/t/{seat.token}"}
        with language(prefs.language(player)):
            mail_once(store, player.email, _("Seek %(seek)s: game %(game)s is dealt") % values,
                      _("Seek %(seek)s is full: game %(game)s is dealt. Your table: %(url)s\n"
                        "When it is your move a turn mail comes, as for any game.") % values
                      + "\n", f"seek-dealt:{seek_id}:{seat.seat}")


def _tell(store: Store, players: list[int], key: str, subject: str, text: str,
          seek_id: int) -> None:
    """One mail to each of `players` (once: `key`), in their own language."""
    with store.reader() as s:
        rows = s.exec(select(Player).where(col(Player.id).in_(players))).all()
    values = {"seek": seek_id, "days": EXPIRE_DAYS}
    for player in rows:
        if mailable(player):
            with language(prefs.language(player)):
                mail_once(store, player.email, _(subject) % values, _(text) % values + "\n",
                          f"{key}:{player.id}")

