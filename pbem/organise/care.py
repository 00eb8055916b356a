"""The organiser's care of a league's tables and players (docs/leagues.md, "Table care"):
give a table more hours, let the robot make one move, remind the players to act, and mail
every player of the league or a season. Each checks that `by` is the organiser (or the
operator) and that the game is the league's; a refusal is a LeagueError, nothing written."""

from datetime import timedelta

from sqlalchemy import func
from sqlmodel import col, select

from ..config import load
from ..deadlines import MAX_HOURS, rearm
from ..engine import choose, view
from ..i18n import _, language
from ..league import news
from ..league.manage import LeagueError, get_league, league_fixture, require_organiser
from ..league.rows import id_of
from ..notify import mail_row
from ..play import Refused, submit
from ..store import prefs
from ..store.games import mailable, players_of
from ..store.models import Deadline, Entry, Game, Outbox, Player, Season, Seat
from ..store.models import now as utcnow
from ..vacation import extra_time

MESSAGES_PER_DAY = 3  # an organiser's mails to all players, per league
MAX_SUBJECT, MAX_TEXT = 100, 5000


def _playing(store, league_id, by, game_id, running: bool = False):
    """The game's state, for an action on a table still playing (read: no lock held);
    `running`: refused while its league is paused too."""
    with store.reader() as s:
        _league, fixture = league_fixture(s, league_id, by, game_id)
        if fixture.status != "playing":
            raise LeagueError(_("game %(game)s is not playing") % {"game": game_id})
        game = s.get(Game, game_id)
        if running and game.paused_at is not None:
            raise LeagueError(_("game %(game)s is paused: its deadlines wait for the resume")
                              % {"game": game_id})
        st = store.state(s, game)
    store.keep(game_id, st)
    return st.snapshot()


def more_hours(store, league_id: int, by, game_id: int, hours) -> list[int]:
    """Every deadline of the table moves `hours` on (a bank clock: into the banks), and a
    seat whose `wait` timeout has fired gets a deadline again. Returns the seats to act."""
    if not isinstance(hours, int) or not 1 <= hours <= MAX_HOURS:
        raise LeagueError(_("more hours is a whole number from 1 to %(most)s")
                          % {"most": MAX_HOURS})
    st = _playing(store, league_id, by, game_id, running=True)
    extra_time(store, game_id, hours)
    with store.session() as s:
        game = s.get(Game, game_id)
        for seat in _humans_to_act(s, game_id, st):
            if not s.exec(select(Deadline.id).where(
                    Deadline.game_id == game_id, Deadline.seat == seat.seat,
                    Deadline.seq == st.move_seq, Deadline.kind == "timeout",
                    Deadline.state == "pending")).first():
                rearm(s, game, seat.seat, st.move_seq, hours, utcnow())
        s.commit()
    return st.to_act()


def _humans_to_act(s, game_id, st) -> list[Seat]:
    return [x for x in s.exec(select(Seat).where(Seat.game_id == game_id)).all()
            if not x.robot and x.seat in st.to_act()]


def robot_move(store, league_id: int, by, game_id: int, seat=None, level=None):
    """The robot makes this one move for `seat` (the first to act if None), through the
    door: chosen from a read, outside any write, at `level` (None: the rules' level).
    Returns the door's Result."""
    st = _playing(store, league_id, by, game_id)
    seat = st.to_act()[0] if seat is None and st.to_act() else seat
    if seat not in st.to_act():
        raise LeagueError(_("seat %(seat)s of game %(game)s is not to act")
                          % {"seat": seat, "game": game_id})
    return robot_play(store, game_id, seat, st, f"organiser-robot:{game_id}:{st.seq}:{seat}",
                      level)


def robot_play(store, game_id: int, seat: int, st, ref: str, level=None):
    """What the robot would do for `seat` in `st` (at `level`; None: the rules'),
    submitted once (under `ref`) at that seq; LeagueError if the game has moved on or the
    move is refused."""
    action = choose(view(st, seat), seed=st.seq, rules=st.rules, level=level)
    try:
        return submit(store, game_id, seat, action, expect_seq=st.seq, source="organiser",
                      ref=ref)
    except Refused as e:
        raise LeagueError(e.reason) from None


def remind(store, league_id: int, by, game_id: int) -> int:
    """Mail the players to act that the organiser asks for their move now: once a seat and
    move (a second time is refused). Returns the mails written."""
    st = _playing(store, league_id, by, game_id)
    cfg = load()
    with store.session() as s:
        league = get_league(s, league_id)
        seats = _humans_to_act(s, game_id, st)
        players = players_of(s, seats)
        rows = [_reminder(cfg, x, players[x.player_id], league.name, st.move_seq)
                for x in seats if x.player_id is not None and mailable(players.get(x.player_id))]
        new = [r for r in rows if not s.exec(select(Outbox.id).where(
            Outbox.dedupe_key == r["dedupe_key"])).first()]
        if not new:
            raise LeagueError(_("no one to remind in game %(game)s: each player to act was "
                                "reminded of this move already, or gets no mail")
                              % {"game": game_id})
        s.add_all(Outbox(**r) for r in new)
        s.commit()
        return len(new)


def _reminder(cfg, seat, player, league: str, seq: int) -> dict:
    """The organiser's reminder to one seat, in its player's language."""
    values = {"game": seat.game_id, "league": league, "link": f"{cfg.base_url}/t/{seat.token}"}
    with language(prefs.language(player)):
        return mail_row(cfg, seat, player, f"remind:{seat.game_id}:{seq}:{seat.seat}",
                        _("Game %(game)s: your move, please") % values,
                        _("The organiser of %(league)s asks you to make your move in game "
                          "%(game)s now.\nYour table: %(link)s") % values + "\n")


def message(store, league_id: int, by, subject: str, text: str,
            season_number: int | None = None) -> int:
    """Mail `text` to every player entered (not withdrawn) in the league, or in one season,
    and a copy to the organiser: at most MESSAGES_PER_DAY a day. Returns the players
    mailed."""
    subject, text = " ".join((subject or "").split()), (text or "").strip()
    if not 0 < len(subject) <= MAX_SUBJECT or not 0 < len(text) <= MAX_TEXT:
        raise LeagueError(_("a message has a subject (up to %(subject)s characters) and a "
                            "text (up to %(text)s)") % {"subject": MAX_SUBJECT, "text": MAX_TEXT})
    with store.session() as s:
        league = get_league(s, league_id)
        require_organiser(league, by)
        sent = _messages_since(s, id_of(league), utcnow() - timedelta(days=1))
        if sent >= MESSAGES_PER_DAY:
            raise LeagueError(_("%(sent)s messages went out in the last day: at most %(most)s "
                                "a day") % {"sent": sent, "most": MESSAGES_PER_DAY})
        players = _players_of(s, league, season_number)
        boss = s.get(Player, league.organiser_id)
        n = _messages_since(s, id_of(league)) + 1
        body = (f"{text}\n\n-- \nThe organiser of {league.name} ({boss.email}) wrote this to "
                f"every player of the league{_of_season(season_number)}.\n"
                f"The league: {load().base_url}/l/{league.id}\n")
        # an organiser entered in the league gets the copy alone (one mail, one key)
        for p in [x for x in players if mailable(x) and x.id != boss.id] + [boss]:
            key = f"message:{league.id}:{n}:" + ("copy" if p is boss else str(p.id))
            s.add(Outbox(to_addr=p.email, subject=f"{league.name}: {subject}", body_text=body,
                         headers={"Reply-To": boss.email}, dedupe_key=key))
        news.message(s, league, n, subject, text)  # the league's channels hear it too
        s.commit()
        return sum(mailable(x) for x in players)


def _of_season(number) -> str:
    return f", season {number}" if number is not None else ""


def _messages_since(s, league_id: int, since=None) -> int:
    """The organiser's messages so far (each has one copy to the organiser)."""
    q = select(func.count()).select_from(Outbox).where(
        col(Outbox.dedupe_key).like(f"message:{league_id}:%:copy"))
    return s.exec(q.where(Outbox.created >= since) if since else q).one()


def _players_of(s, league, season_number) -> list[Player]:
    q = select(Entry).join(Season).where(Season.league_id == league.id,
                                         Entry.status != "withdrawn")
    if season_number is not None:
        if not s.exec(select(Season.id).where(Season.league_id == league.id,
                                              Season.number == season_number)).first():
            raise LeagueError(_("%(league)s has no season %(season)s")
                              % {"league": league.name, "season": season_number})
        q = q.where(Season.number == season_number)
    ids = {x for e in s.exec(q).all() for x in (e.player_id, e.partner_id) if x}
    return list(s.exec(select(Player).where(col(Player.id).in_(ids))
                       .order_by(col(Player.id))).all())
