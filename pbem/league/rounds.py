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
from ..i18n import _, current, language
from ..store import prefs
from ..store.games import ROBOT, add_game, mailable
from ..store.models import Entry, Fixture, Game, League, Outbox, Player, Season
from ..store.models import now as utcnow
from ..store.states import Store
from . import news
from .duplicate import north_south
from .manage import Asker, LeagueError, get_league, league_fixture, require_organiser, table_size
from .pairing import Round, round_robin, seat_entries, swiss, swiss_rounds
from .reports import season_standings
from .results import changed
from .rows import id_of

FIXED = ("round-robin", "duplicate")  # pairings whose whole schedule is drawn at the start
ATTEMPTS = 5  # draws made again when the entries changed between the read and the write


def _begin(s: Session, league: League, season: Season) -> None:
    """Entries close (a partnership still waiting for its partner's yes is dropped) and the
    number of rounds is fixed."""
    entries = s.exec(select(Entry).where(Entry.season_id == season.id)).all()
    active = [e for e in entries if e.status == "active"]
    k = table_size(Rules.from_dict(league.rules), league.entry)
    if len(active) < k:
        raise LeagueError(_("%(league)s needs %(need)s entries to start; it has %(has)s")
                          % {"league": league.name, "need": k, "has": len(active)})
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
    if league.pairing in FIXED:
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
            raise LeagueError(_("%(league)s has no season waiting to start")
                              % {"league": league.name})
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
            _close_round(s, league, season)
            if draw is None:
                season.status = "over"
                s.add(season)
                _season_over_mails(s, league, season)
                news.season_over(s, league, season)
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
    if league.pairing in FIXED:  # the whole schedule is fixed by the start's field
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
                  and not (f.result or {}).get("replayed_by")  # its replay meets once
                  for a in set(f.seats) for b in set(f.seats) if a < b)
    byes = Counter(f.seats[0] for f in fixtures if f.status == "bye")
    return swiss(ranked, k, met, byes)


def _open_round(s: Session, league: League, season: Season, draw: Round) -> list[int]:
    """The round's fixtures and games (not dealt yet), in the caller's transaction."""
    r = season.round + 1
    rules = Rules.stored(league.rules)
    entries = {id_of(e): e for e in s.exec(select(Entry).where(Entry.season_id == season.id))}
    ids = {x for e in entries.values() for x in (e.player_id, e.partner_id) if x}
    emails = dict(s.exec(select(Player.id, Player.email).where(col(Player.id).in_(ids))).all())
    games = []
    duplicate = league.pairing == "duplicate"
    held = _north_south_held(s, season) if duplicate else {}
    for board, table in enumerate(draw.tables, 1):
        rng = random.Random(f"{league.seed}:{season.number}:{r}:{board}")
        if duplicate:  # North-South, East-West, North-South, East-West
            seats = north_south(table, held, r) * 2
        else:
            seats = seat_entries(table, rules.sides, league.entry == "pair", rng)
        who = seat_players(seats, entries, emails, rules.sides)
        # a duplicate table's score pad is private until its round is over (_close_round),
        # and North (seat 0) deals board 1 at every table
        game = add_game(s, rules, who, first_dealer=0 if duplicate else None,
                        public=not duplicate, time_control=league.time_control)
        s.add(Fixture(season_id=id_of(season), round=r, board=board, seats=seats,
                      game_id=game.id))
        games.append(id_of(game))
    for board, entry in enumerate(draw.byes, len(draw.tables) + 1):
        s.add(Fixture(season_id=id_of(season), round=r, board=board, seats=[entry],
                      status="bye"))
        _bye_mail(s, league, season, r, entries[entry], emails)
    season.round = r
    s.add(season)
    news.round_opened(s, league, season, len(draw.tables), len(draw.byes))
    return games


def _north_south_held(s: Session, season: Season) -> dict[int, int]:
    """How often each entry has held North-South (seat 0) this season."""
    seats = s.exec(select(Fixture.seats).where(Fixture.season_id == season.id,
                                               Fixture.status != "bye")).all()
    return dict(Counter(x[0] for x in seats))


def _close_round(s: Session, league: League, season: Season) -> None:
    """A duplicate round is over: its results count (the ledger reads them again) and its
    tables' score pads are public. Until now no table could see another's boards."""
    if league.pairing != "duplicate" or season.round == 0:
        return
    rows = s.exec(select(Fixture, Game).join(Game, col(Game.id) == Fixture.game_id).where(
        Fixture.season_id == season.id, Fixture.round == season.round)).all()
    for fixture, game in rows:
        game.public = True
        s.add(game)
        if (fixture.result or {}).get("hidden"):
            fixture.result = {k: v for k, v in fixture.result.items() if k != "hidden"}
            changed(s, id_of(season), fixture)
            news.result(s, league, season, fixture)  # told only now, as the pages show it


def open_replay(store: Store, league_id: int, by: Asker, game_id: int) -> int:
    """A game the organiser ruled "replay", written again as a new table of the same round
    (the next board number), the same entries in the same seats: the new game's result
    counts in its place. The old fixture names its replay, so it is made once. Returns the
    new game's id, not dealt yet (pbem.organise.adjudicate deals it)."""
    with store.session() as s:
        league, fixture = league_fixture(s, league_id, by, game_id)
        season = s.exec(select(Season).where(Season.id == fixture.season_id)
                        .with_for_update()).one()  # one board number at a time
        fixture = s.exec(select(Fixture).where(Fixture.id == fixture.id)
                         .with_for_update()).one()
        _may_replay(fixture, season, game_id)
        if league.pairing == "duplicate":  # its boards are public once its round is over
            raise LeagueError(_("a duplicate league deals no replay: the boards are known"))
        entries = {id_of(e): e for e in s.exec(select(Entry).where(
            Entry.season_id == season.id))}
        ids = {x for e in entries.values() for x in (e.player_id, e.partner_id) if x}
        emails = dict(s.exec(select(Player.id, Player.email).where(
            col(Player.id).in_(ids))).all())
        rules = Rules.from_dict(league.rules)
        game = add_game(s, rules, seat_players(fixture.seats, entries, emails, rules.sides),
                        time_control=league.time_control)
        boards = s.exec(select(Fixture.board).where(Fixture.season_id == season.id,
                                                    Fixture.round == fixture.round)).all()
        replay = Fixture(season_id=id_of(season), round=fixture.round, board=max(boards) + 1,
                         seats=list(fixture.seats), game_id=game.id)
        fixture.result = dict(fixture.result, replayed_by=game.id)
        changed(s, id_of(season), fixture)  # its line in the fixtures names the replay
        replay.version = fixture.version  # and the ledgers read the new table at once
        s.add(replay)
        new_id = id_of(game)
        s.commit()
    return new_id


def _may_replay(fixture: Fixture, season: Season, game_id: int) -> None:
    ruling = (fixture.result or {}).get("ruling") or {}
    if ruling.get("result") != "replay":
        raise LeagueError(_("game %(game)s is not ruled a replay: rule it so first")
                          % {"game": game_id})
    if fixture.result.get("replayed_by"):
        raise LeagueError(_("game %(game)s is replayed already, as game %(new)s")
                          % {"game": game_id, "new": fixture.result["replayed_by"]})
    if season.status != "running":
        raise LeagueError(_("season %(season)s is over: a replay is dealt only while its "
                            "season runs") % {"season": season.number})
    if season.paused_at:
        raise LeagueError(_("season %(season)s is paused: resume it, then deal the replay")
                          % {"season": season.number})


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
        player = s.get(Player, pid) if pid else None
        if player and entry.status == "active" and mailable(player):
            values = {"league": league.name, "round": r, "season": season.number,
                      "link": f"{cfg.base_url}/l/{league.id}"}
            with language(prefs.language(player)):
                s.add(Outbox(to_addr=emails[pid], subject=_("%(league)s: a bye in round "
                                                            "%(round)s") % values,
                             body_text=_("You sit out round %(round)s of \"%(league)s\", season "
                                         "%(season)s: it counts as a win.\nThe league: "
                                         "%(link)s") % values + "\n",
                             headers={"Auto-Submitted": "auto-generated",
                                      "Content-Language": current()},
                             dedupe_key=f"bye:{season.id}:{r}:{pid}"))


def _season_over_mails(s: Session, league: League, season: Season) -> None:
    cfg = load()
    entries = s.exec(select(Entry).where(Entry.season_id == season.id)).all()
    ids = {league.organiser_id} | {x for e in entries for x in (e.player_id, e.partner_id) if x}
    for player in s.exec(select(Player).where(col(Player.id).in_(ids))).all():
        if not mailable(player):
            continue
        values = {"league": league.name, "season": season.number,
                  "link": f"{cfg.base_url}/l/{league.id}/s/{season.number}"}
        with language(prefs.language(player)):
            s.add(Outbox(to_addr=player.email,
                         subject=_("%(league)s: season %(season)s is over") % values,
                         body_text=_("Season %(season)s of \"%(league)s\" is over. The final "
                                     "table: %(link)s") % values + "\n",
                         headers={"Auto-Submitted": "auto-generated",
                                  "Content-Language": current()},
                         dedupe_key=f"season-over:{season.id}:{player.id}"))
