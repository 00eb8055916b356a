"""Reading a league for pages, mails and the command line: its seasons, the standings, the
ratings, the fixtures and results, and the tables that have stopped moving. Nothing here
writes. Standings and ratings are derived from the fixtures' results every time, so they
can never disagree with the games."""

from collections import Counter
from datetime import UTC, datetime, timedelta

from sqlalchemy import func
from sqlmodel import select

from ..engine import Rules
from ..engine.acts import QUIET
from ..notify import seat_names
from ..store.models import Entry, Fixture, Game, League, Move, Player, Season, Seat
from .manage import LeagueError, get_league
from .results import game_result, league_counts
from .standings import elo, rating_table, standings
from .verdicts import describe


def seasons(s, league_id: int) -> list[Season]:
    return list(s.exec(select(Season).where(Season.league_id == league_id)
                       .order_by(Season.number)).all())


def season_of(s, league_id: int, number: int) -> Season:
    season = s.exec(select(Season).where(Season.league_id == league_id,
                                         Season.number == number)).first()
    if season is None:
        raise LeagueError(f"league {league_id} has no season {number}")
    return season


def entries_of(s, season: Season) -> list[Entry]:
    return list(s.exec(select(Entry).where(Entry.season_id == season.id)
                       .order_by(Entry.id)).all())


def fixtures_of(s, season: Season) -> list[Fixture]:
    return list(s.exec(select(Fixture).where(Fixture.season_id == season.id)
                       .order_by(Fixture.round, Fixture.board)).all())


def season_standings(s, season: Season) -> list:
    """The league table (pbem.league.standings: the columns and tie-breaks)."""
    league = s.get(League, season.league_id)
    sides = Rules.from_dict(league.rules).sides
    fixtures = fixtures_of(s, season)
    results = [r for f in fixtures if f.status == "over"
               if (r := game_result(f, sides)) is not None]
    byes = Counter(f.seats[0] for f in fixtures if f.status == "bye")
    return standings({e.id: e.name for e in entries_of(s, season)}, results, byes)


def rated_fixtures(s, league: League) -> list[Fixture]:
    """Every finished game of every season, in the order the games ended: ratings are
    updated game by game in this order."""
    return list(s.exec(select(Fixture).join(Season).where(
        Season.league_id == league.id, Fixture.status == "over")
        .order_by(Fixture.finished, Fixture.id)).all())


def ratings(s, league: League) -> dict:
    """Elo ratings over all the league's seasons: each player's, and in a league of fixed
    partnerships each partnership's (the same two players, whatever the season)."""
    sides = Rules.from_dict(league.rules).sides
    entries = {e.id: e for e in s.exec(select(Entry).join(Season)
                                       .where(Season.league_id == league.id)).all()}
    by_player, by_pair = [], []
    for f in rated_fixtures(s, league):
        counts = league_counts(f)
        if counts is None:
            continue  # struck by a ruling: to be replayed
        at = [[entries[f.seats[x]] for x in side] for side in sides]
        result = (counts["scores"], counts["winner"])
        by_player.append(([sorted({p for e in side for p in _members(e)}) for side in at],
                          *result))
        if league.entry == "pair":
            by_pair.append(([[_pair_key(side[0])] for side in at], *result))
    ids = {p for e in entries.values() for p in _members(e)}
    names = dict(s.exec(select(Player.id, Player.name).where(Player.id.in_(ids))).all())
    pairs = {_pair_key(e): e.name for e in sorted(entries.values(), key=lambda e: e.id)
             if e.partner_id}
    return {"players": rating_table(elo(by_player), names),
            "pairs": rating_table(elo(by_pair), pairs) if league.entry == "pair" else []}


def _members(entry: Entry) -> list[int]:
    return [x for x in (entry.player_id, entry.partner_id) if x]


def _pair_key(entry: Entry) -> str:
    return "-".join(str(x) for x in sorted(_members(entry)))


def fixtures(s, season: Season) -> list[dict]:
    """The season's rounds, each with its tables (names by side, game, result) and byes."""
    names = {e.id: e.name for e in entries_of(s, season)}
    sides = Rules.from_dict(s.get(League, season.league_id).rules).sides
    rounds: dict[int, dict] = {}
    for f in fixtures_of(s, season):
        r = rounds.setdefault(f.round, {"round": f.round, "tables": [], "byes": []})
        if f.status == "bye":
            r["byes"].append(names[f.seats[0]])
            continue
        res = league_counts(f) if f.result else None
        ruling = (f.result or {}).get("ruling")
        r["tables"].append({
            "board": f.board, "game_id": f.game_id, "status": f.status,
            "ruling": describe(ruling) if ruling else None,
            "sides": [{"names": _side_names(f, side, names),
                       "score": res["scores"][i] if res else None,
                       "won": bool(res) and res["winner"] == i} for i, side in enumerate(sides)]})
    return [rounds[k] for k in sorted(rounds)]


def rulings(s, season: Season) -> list[dict]:
    """The season's games the organiser ruled on, with the ruling in force and its reason:
    the league table counts them so (pbem.league.verdicts)."""
    return [{"game_id": f.game_id, "round": f.round, "board": f.board,
             "ruling": describe(f.result["ruling"])}
            for f in fixtures_of(s, season) if (f.result or {}).get("ruling")]


def _side_names(fixture, side, names) -> list[str]:
    return list(dict.fromkeys(names[fixture.seats[x]] for x in side))


def stale_tables(store, league: League, now: datetime) -> list[dict]:
    """The league's games still playing whose last move is `stale_hours` old or more: for the
    organiser (the tick mails each once, the organiser's page lists them)."""
    with store.session() as s:
        rows = s.exec(select(Fixture, Season).join(Season).where(
            Season.league_id == league.id, Season.status == "running",
            Fixture.status == "playing")).all()
        ids = [f.game_id for f, _ in rows]
        last = {g: (q, t) for g, q, t in s.exec(
            select(Move.game_id, func.max(Move.seq), func.max(Move.created))
            .where(Move.game_id.in_(ids), Move.type.not_in(QUIET))  # talk is no move
            .group_by(Move.game_id)).all()}
    out = []
    for f, season in rows:
        seq, when = last.get(f.game_id, (0, None))
        if when is None or now - _aware(when) < timedelta(hours=league.stale_hours):
            continue
        out.append({"game_id": f.game_id, "season": season.number, "round": f.round,
                    "board": f.board, "seq": seq, "last_move": _aware(when),
                    "waiting": _waiting(store, f.game_id)})
    return out


def _aware(t: datetime) -> datetime:
    """SQLite hands back naive datetimes; they were written in UTC."""
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def _waiting(store, game_id: int) -> list[str]:
    """The names of the seats the game waits for."""
    with store.session() as s:
        game = s.get(Game, game_id)
        st = store.state(s, game)
        store.keep(game_id, st)
        seats = s.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat)).all()
        players = {p.id: p for p in s.exec(select(Player).where(
            Player.id.in_([x.player_id for x in seats if x.player_id]))).all()}
    names = seat_names(seats, players)
    return [names[x] for x in st.to_act()]


def league_games(s, league_id: int) -> list[int]:
    """Every game of the league, all seasons, in the order the tables were drawn."""
    get_league(s, league_id)
    return list(s.exec(select(Fixture.game_id).join(Season).where(
        Season.league_id == league_id, Fixture.game_id.is_not(None))
        .order_by(Season.number, Fixture.round, Fixture.board)).all())
