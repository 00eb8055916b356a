"""Reading a league for pages, mails and the command line: its seasons, the standings, the
ratings, the fixtures and results, and the tables that have stopped moving. Nothing here
writes. Standings, fixtures and ratings are derived from the fixtures' results, kept
current result by result in each season's ledger (pbem.league.ledger), and what is shown is
kept in a small cache in each process, keyed by each season's `version` and round (a result
written, an entry withdrawn, a round opened change the key), so a view of a big league does
not compute them again, and they can never disagree with the games."""

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from sqlalchemy import func
from sqlmodel import Session, col, select

from ..engine.acts import QUIET
from ..i18n import _, current
from ..store.games import table_of
from ..store.models import Entry, Fixture, Game, League, Move, Player, Season
from ..store.states import Store
from ..table import seat_names
from . import ledger
from .glicko import glicko2
from .ledger import members, pair_key
from .manage import LeagueError, get_league
from .rows import id_of
from .standings import elo, rating_table

CACHED = 32  # views kept per process (a big season's fixtures and page are megabytes)
_cache: OrderedDict = OrderedDict()
_lock = threading.Lock()
PARTS = 1024  # parts of views kept per process (a round of 50 tables: some 20 kB)
_parts: OrderedDict = OrderedDict()
T = TypeVar("T")


def _cached(key: Hashable, compute: Callable[[], T]) -> T:
    """compute(), or its value kept under `key`: the key names every input that changes."""
    return _kept(_cache, CACHED, key, compute)


def kept(key: Hashable, compute: Callable[[], T]) -> T:
    """compute(), or its value kept under `key` among the many small parts of views (a
    round of a season's fixtures, rendered): the key names every input that changes, and
    the reader's language is added to it (a rendered part holds its words)."""
    return _kept(_parts, PARTS, (current(), key), compute)


def _kept(store: OrderedDict, size: int, key: Hashable, compute: Callable[[], T]) -> T:
    with _lock:
        if key in store:
            store.move_to_end(key)
            return store[key]
    value = compute()
    with _lock:
        store[key] = value
        while len(store) > size:
            store.popitem(last=False)
    return value


def forget() -> None:
    """Drop every view, fold and ledger this process keeps: the next read computes afresh."""
    with _lock:
        _cache.clear()
        _parts.clear()
        _folds.clear()
    ledger.forget()


def _season_key(season: Season) -> tuple | None:
    """None while the season takes entries (they come and go without a version)."""
    if season.status == "open":
        return None
    return season.id, season.version, season.round, season.status


def _season_cached(s: Session, what: str, season: Season, compute: Callable[[], T]) -> T:
    """The league's random seed keeps apart leagues of different databases that share ids."""
    key = _season_key(season)
    if key is None:
        return compute()
    return _cached((what, _league_of(s, season).seed, *key), compute)


def _league_of(s: Session, season: Season) -> League:
    return get_league(s, season.league_id)


def seasons(s: Session, league_id: int) -> list[Season]:
    return list(s.exec(select(Season).where(Season.league_id == league_id)
                       .order_by(col(Season.number))).all())


def season_of(s: Session, league_id: int, number: int) -> Season:
    season = s.exec(select(Season).where(Season.league_id == league_id,
                                         Season.number == number)).first()
    if season is None:
        raise LeagueError(_("league %(league)s has no season %(season)s")
                          % {"league": league_id, "season": number})
    return season


def entries_of(s: Session, season: Season) -> list[Entry]:
    return list(s.exec(select(Entry).where(Entry.season_id == season.id)
                       .order_by(col(Entry.id))).all())


def fixtures_of(s: Session, season: Season) -> list[Fixture]:
    return list(s.exec(select(Fixture).where(Fixture.season_id == season.id)
                       .order_by(col(Fixture.round), col(Fixture.board))).all())


def view(s: Session, what: str, league: League, season: Season, compute: Callable[[], T]) -> T:
    """compute(), kept while neither the season nor the league's ratings change: for a
    whole rendered view of a season (its page), one for each language it is read in."""
    key = _season_key(season)
    if key is None:
        return compute()
    return _cached((what, current(), league.seed, key, ratings_key(s, league)), compute)


def season_standings(s: Session, season: Season) -> list:
    """The league table (pbem.league.standings: the columns and tie-breaks)."""
    return _season_cached(s, "tables", season, lambda: _tables(s, season))[0]


def season_reliability(s: Session, season: Season) -> list:
    """Each entry's moves in time, timeouts and vacation days (pbem.league.standings)."""
    return _season_cached(s, "tables", season, lambda: _tables(s, season))[1]


def _tables(s: Session, season: Season) -> tuple[list, list]:
    return ledger.read(s, season, _league_of(s, season),
                       lambda led: (led.standings(), led.reliability()))


def rated_fixtures(s: Session, league: League) -> list[int]:
    """The game ids of every finished game of every season that is rated (docs/leagues.md:
    not one a robot or a substitute played most of a seat of), in the order the games
    ended: ratings are updated game by game in this order."""
    return [g[1].game_id for g in _rated(s, league)]


def _rated(s: Session, league: League) -> list[tuple]:
    """Every season's rated games, each (order, GameResult, by players, by partnerships),
    in the order the games ended."""
    return sorted(g for season in seasons(s, id_of(league))
                  for g in ledger.read(s, season, league, lambda led: list(led.rated.values())))


def ratings(s: Session, league: League) -> dict:
    """Elo and Glicko-2 ratings over all the league's seasons: each player's, and in a
    league of fixed partnerships each partnership's (the same two players, whatever the
    season)."""
    return _cached(("ratings", league.seed, ratings_key(s, league)),
                   lambda: _ratings(s, league))


def ratings_key(s: Session, league: League) -> tuple:
    """What the league's ratings depend on: every season's key."""
    return tuple(_season_key(x) for x in seasons(s, id_of(league)))


def _ratings(s: Session, league: League) -> dict:
    games = _rated(s, league)
    entries = {e.id: e for season in seasons(s, id_of(league))
               for e in ledger.read(s, season, league, lambda led: list(led.entries.values()))}
    ids = {p for e in entries.values() for p in members(e)}
    names = dict(s.exec(select(Player.id, Player.name).where(col(Player.id).in_(ids))).all())
    pairs = {pair_key(e): e.name for e in sorted(entries.values(), key=lambda e: e.id)
             if e.partner_id}
    return {"players": _both((league.seed, "players"), [g[2] for g in games], names),
            "pairs": _both((league.seed, "pairs"), [g[3] for g in games], pairs)
            if league.entry == "pair" else []}


_folds: OrderedDict = OrderedDict()  # (seed, whom) -> (games, Elo, Glicko-2) last rated


def _both(key: tuple, games: list, names: dict) -> list[dict]:
    """The Elo table, each row with its Glicko-2 rating and deviation beside it. Ratings
    are a fold over the games in order: when the games last rated here are, unchanged, the
    start of these, only the new games are folded in."""
    with _lock:
        done, e, g = _folds.get(key, ([], {}, {}))
    if done != games[:len(done)]:
        done, e, g = [], {}, {}
    e, g = elo(games[len(done):], before=e), glicko2(games[len(done):], before=g)
    with _lock:
        _folds[key] = (games, e, g)
        _folds.move_to_end(key)
        while len(_folds) > CACHED:
            _folds.popitem(last=False)
    rows = rating_table(e, names)
    for row in rows:
        row["glicko"], row["rd"] = round(g[row["id"]].rating, 1), round(g[row["id"]].rd, 1)
    return rows


def fixtures(s: Session, season: Season) -> list[dict]:
    """The season's rounds, each with its tables (names by side, game, result, a ruling in
    English words) and byes: as the JSON API and the command line give them."""
    return [dict(view, tables=[{k: v for k, v in t.items() if k != "ruled"}
                               for t in view["tables"]])
            for _, view in fixture_rounds(s, season)]


def fixture_rounds(s: Session, season: Season) -> list[tuple[int, dict]]:
    """The rounds of `fixtures`, each with a stamp that changes whenever the round does, and
    each ruled table's ruling itself (`ruled`: a page says it in its own language)."""
    return _season_cached(s, "fixtures", season, lambda: ledger.read(
        s, season, _league_of(s, season), lambda led: led.fixtures()))


def rulings(s: Session, season: Season) -> list[dict]:
    """The season's games the organiser ruled on, with the ruling in force and its reason:
    the league table counts them so (pbem.league.verdicts)."""
    return ledger.read(s, season, _league_of(s, season), lambda led: led.rulings())


def stale_tables(store: Store, league: League, now: datetime) -> list[dict]:
    """The league's games still playing whose last move is `stale_hours` old or more: for the
    organiser (the tick mails each once, the organiser's page lists them)."""
    with store.session() as s:
        rows = s.exec(select(Fixture, Season).join(Season).where(
            Season.league_id == league.id, Season.status == "running",
            Fixture.status == "playing")).all()
        ids = [f.game_id for f, _ in rows]
        last: dict[int | None, tuple[int, datetime | None]] = {g: (q, t) for g, q, t in s.exec(
            select(Move.game_id, func.max(Move.seq), func.max(Move.created))
            .where(col(Move.game_id).in_(ids), col(Move.type).not_in(QUIET))  # talk is no move
            .group_by(col(Move.game_id))).all()}
    out = []
    for f, season in rows:
        seq, when = last.get(f.game_id, (0, None))
        if f.game_id is None or when is None or \
                now - _aware(when) < timedelta(hours=league.stale_hours):
            continue
        out.append({"game_id": f.game_id, "season": season.number, "round": f.round,
                    "board": f.board, "seq": seq, "last_move": _aware(when),
                    "waiting": _waiting(store, f.game_id)})
    return out


def _aware(t: datetime) -> datetime:
    """SQLite hands back naive datetimes; they were written in UTC."""
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def _waiting(store: Store, game_id: int) -> list[str]:
    """The names of the seats the game waits for."""
    with store.session() as s:
        game = s.get_one(Game, game_id)
        st = store.state(s, game)
        store.keep(game_id, st)
        seats, players = table_of(s, game_id)
    names = seat_names(seats, players)
    return [names[x] for x in st.to_act()]


def league_games(s: Session, league_id: int) -> list[int]:
    """Every game of the league, all seasons, in the order the tables were drawn."""
    get_league(s, league_id)
    ids = s.exec(select(Fixture.game_id).join(Season).where(
        Season.league_id == league_id, col(Fixture.game_id).is_not(None))
        .order_by(col(Season.number), col(Fixture.round), col(Fixture.board))).all()
    return [x for x in ids if x is not None]
