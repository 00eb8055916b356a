"""Rounds: a season's entries close (`begin`), and each round's tables are drawn and their
games written, not yet dealt (`open_next`); after the last round the season is over. No round
opens after the season's end day. The database decides every step (the season row is locked
while a round opens, and each table is unique), so `open_next` may run any time, in any
process, as often as it likes; the draw itself is made outside the write. Dealing the new
games is the door's work: pbem.play after the move that ends a round (after its commit, in
a thread of its own), pbem.organise.seasons everywhere else."""

import random
from collections import Counter
from collections.abc import Sequence
from datetime import date

from sqlmodel import Session, col, select

from ..config import load
from ..engine import Rules
from ..store.games import ROBOT, add_game, mailable
from ..store.models import Entry, Fixture, League, Outbox, Player, Season
from ..store.models import now as utcnow
from ..store.states import Store
from .manage import Asker, LeagueError, get_league, require_organiser, table_size
from .pairing import Round, round_robin, seat_entries, swiss, swiss_rounds
from .reports import season_standings
from .rows import id_of

ATTEMPTS = 5  # draws made again when the entries changed between the read and the write


def _begin(s: Session, league: League, season: Season) -> None:
    """Entries close (a partnership still waiting for its partner's yes is dropped) and the
    number of rounds is fixed."""
    entries = s.exec(select(Entry).where(Entry.season_id == season.id)).all()
    active = [e for e in entries if e.status == "active"]
    k = table_size(Rules.from_dict(league.rules), league.entry)
    if len(active) < k:
        raise LeagueError(f"{league.name} needs {k} entries to start; it has {len(active)}")
    for e in entries:
        if e.status != "active":
            s.delete(e)
    season.rounds = rounds_for(league, len(active), season.schedule)
    season.status = "running"
    s.add(season)


def rounds_for(league: League, n: int, schedule: int) -> int:
    """A round robin's own length with the season's `schedule` version (cut short by the
    league's `rounds`, if set); Swiss: the league's `rounds`, or the default for the
    field's size."""
    k = table_size(Rules.from_dict(league.rules), league.entry)
    if league.pairing == "round-robin":
        full = len(round_robin(list(range(n)), k, schedule))
        return min(full, league.rounds or full)
    return league.rounds or swiss_rounds(n, k)


def begin(store: Store, league_id: int, by: Asker) -> Season:
    """Close entries (the organiser need not wait for the day): the season runs, with no
    round open yet."""
    with store.session() as s:
        league = get_league(s, league_id)
        require_organiser(league, by)
        season = s.exec(select(Season).where(Season.league_id == league.id,
                                             Season.status == "open").with_for_update()).first()
        if season is None:
            raise LeagueError(f"{league.name} has no season waiting to start")
        _begin(s, league, season)
        s.commit()
    return season


def open_next(store: Store, season_id: int, today: date | None = None) -> list[int]:
    """If the season's round is done, open the next (or end the season); returns the new
    round's game ids, not dealt yet. Does nothing while a game of the round is playing, nor
    while the season is paused (the league tick opens it once resumed). The draw
    (standings, pairing: pure work) is made in a read; the write that follows locks the
    season and writes it only if nothing it was drawn from has changed since (another
    runner opened the round, an entry withdrew), else draws again."""
    today = today or utcnow().date()
    for _attempt in range(ATTEMPTS):
        with store.reader() as s:
            season = s.get(Season, season_id)
            if season is None or not _may_open(s, season):
                return []
            drawn_from = _drawn_from(s, season)
            draw = _next_draw(s, season, today)
        with store.session() as s:
            season = s.exec(select(Season).where(Season.id == season_id)
                            .with_for_update()).one()
            if not _may_open(s, season):
                return []  # another runner opened it (or ended or paused the season) meanwhile
            if _drawn_from(s, season) != drawn_from:
                continue
            league = get_league(s, season.league_id)
            if draw is None:
                season.status = "over"
                s.add(season)
                _season_over_mails(s, league, season)
                s.commit()
                return []
            games = _open_round(s, league, season, draw)
            s.commit()
            return games
    raise LeagueError(f"season {season_id}: its entries kept changing while its next round "
                      "was drawn; the clock will try again")


def _may_open(s: Session, season: Season) -> bool:
    return season.status == "running" and not season.paused_at and _round_done(s, season)


def _drawn_from(s: Session, season: Season) -> tuple:
    """What a draw depends on: the round it follows, and each entry's status."""
    entries = s.exec(select(Entry.id, Entry.status).where(Entry.season_id == season.id)
                     .order_by(col(Entry.id))).all()
    return season.round, tuple(entries)


def _next_draw(s: Session, season: Season, today: date) -> Round | None:
    """The next round's draw, or None if the season is over (its last round played, its
    end day past, or too few entries left)."""
    league = get_league(s, season.league_id)
    if season.round < season.rounds and (season.round == 0 or today <= season.ends):
        return _draw(s, league, season, season.round + 1)
    return None


def _round_done(s: Session, season: Season) -> bool:
    if season.round == 0:
        return True
    left = s.exec(select(Fixture.id).where(Fixture.season_id == season.id,
                                           Fixture.round == season.round,
                                           Fixture.status == "playing")).first()
    return left is None


def _draw(s: Session, league: League, season: Season, r: int) -> Round | None:
    """Round `r`'s tables and byes, or None if too few entries are left to fill a table."""
    k = table_size(Rules.from_dict(league.rules), league.entry)
    entries = s.exec(select(Entry).where(Entry.season_id == season.id)
                     .order_by(col(Entry.id))).all()
    order = [id_of(e) for e in entries]
    random.Random(f"{league.seed}:{season.number}").shuffle(order)
    if league.pairing == "round-robin":  # the whole schedule is fixed by the start's field
        return round_robin(order, k, season.schedule)[r - 1]
    playing = {e.id for e in entries if e.status == "active"}
    if len(playing) < k:
        return None
    fixtures = s.exec(select(Fixture).where(Fixture.season_id == season.id)).all()
    if r == 1:
        ranked = [x for x in order if x in playing]
    else:
        ranked = [row.entry for row in season_standings(s, season) if row.entry in playing]
    met = Counter(frozenset((a, b)) for f in fixtures if f.status != "bye"
                  for a in set(f.seats) for b in set(f.seats) if a < b)
    byes = Counter(f.seats[0] for f in fixtures if f.status == "bye")
    return swiss(ranked, k, met, byes)


def _open_round(s: Session, league: League, season: Season, draw: Round) -> list[int]:
    """The round's fixtures and games (not dealt yet), in the caller's transaction."""
    r = season.round + 1
    rules = Rules.from_dict(league.rules)
    entries = {id_of(e): e for e in s.exec(select(Entry).where(Entry.season_id == season.id))}
    ids = {x for e in entries.values() for x in (e.player_id, e.partner_id) if x}
    emails = dict(s.exec(select(Player.id, Player.email).where(col(Player.id).in_(ids))).all())
    games = []
    for board, table in enumerate(draw.tables, 1):
        rng = random.Random(f"{league.seed}:{season.number}:{r}:{board}")
        seats = seat_entries(table, rules.sides, league.entry == "pair", rng)
        who = seat_players(seats, entries, emails, rules.sides)
        game = add_game(s, rules, who, time_control=league.time_control)
        s.add(Fixture(season_id=id_of(season), round=r, board=board, seats=seats,
                      game_id=game.id))
        games.append(id_of(game))
    for board, entry in enumerate(draw.byes, len(draw.tables) + 1):
        s.add(Fixture(season_id=id_of(season), round=r, board=board, seats=[entry],
                      status="bye"))
        _bye_mail(s, league, season, r, entries[entry], emails)
    season.round = r
    s.add(season)
    return games


def seat_players(seats: list[int], entries: dict[int, Entry], emails: dict[int | None, str],
                 sides: Sequence[Sequence[int]]) -> list[str]:
    """The address at each seat: a partnership's player sits in the first seat of its side,
    the partner in the second; a robot stands in for an entry that withdrew."""
    out = []
    for seat, entry_id in enumerate(seats):
        entry = entries[entry_id]
        side = next(x for x in sides if seat in x)
        pid = entry.partner_id if entry.partner_id and side.index(seat) == 1 else entry.player_id
        out.append(ROBOT if entry.status == "withdrawn" else emails[pid])
    return out


# -- mails -----------------------------------------------------------------------------------


def _bye_mail(s: Session, league: League, season: Season, r: int, entry: Entry,
              emails: dict[int | None, str]) -> None:
    cfg = load()
    for pid in (entry.player_id, entry.partner_id):
        if pid and entry.status == "active" and mailable(s.get(Player, pid)):
            s.add(Outbox(to_addr=emails[pid], subject=f"{league.name}: a bye in round {r}",
                         body_text=f"You sit out round {r} of \"{league.name}\", season "
                                   f"{season.number}: it counts as a win.\n"
                                   f"The league: {cfg.base_url}/l/{league.id}\n",
                         headers={"Auto-Submitted": "auto-generated"},
                         dedupe_key=f"bye:{season.id}:{r}:{pid}"))


def _season_over_mails(s: Session, league: League, season: Season) -> None:
    cfg = load()
    entries = s.exec(select(Entry).where(Entry.season_id == season.id)).all()
    ids = {league.organiser_id} | {x for e in entries for x in (e.player_id, e.partner_id) if x}
    for player in s.exec(select(Player).where(col(Player.id).in_(ids))).all():
        if not mailable(player):
            continue
        s.add(Outbox(to_addr=player.email, subject=f"{league.name}: season {season.number} "
                     "is over", body_text=f"Season {season.number} of \"{league.name}\" is "
                     f"over. The final table: {cfg.base_url}/l/{league.id}/s/{season.number}\n",
                     headers={"Auto-Submitted": "auto-generated"},
                     dedupe_key=f"season-over:{season.id}:{player.id}"))
