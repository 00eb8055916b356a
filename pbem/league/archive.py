"""A whole league exported at once: `league.json` (the league, each season's entries,
fixtures and standings, the ratings and the order they were computed in) and one log per
game in the game log format (docs/log-format.md). A folder from the command line, a zip
from the organiser's page; docs/leagues.md describes league.json."""

import io
import json
import zipfile
from dataclasses import asdict
from pathlib import Path

from sqlmodel import Session, select

from ..store.games import export
from ..store.models import Fixture, League, Player, Season
from ..store.states import Store
from . import boards
from .manage import get_league
from .reports import entries_of, fixtures_of, rated_fixtures, ratings, season_standings, seasons
from .rows import id_of

FORMAT = "pbem-league/1"


def log_name(game_id: int) -> str:
    return f"games/game-{game_id:06d}.jsonl"


def export_league(store: Store, league_id: int, whole: bool = False) -> dict[str, str]:
    """{path: text} for every file of the export. A running game's log stops at its last
    finished hand unless `whole` (the server's operator: pbem league export)."""
    with store.session() as s:
        league = get_league(s, league_id)
        emails = dict(s.exec(select(Player.id, Player.email)).all())
        season_records = [_season(s, league, season, emails)
                          for season in seasons(s, id_of(league))]
        record = {"format": FORMAT,
                  "league": {"id": league.id, "name": league.name, "rules": league.rules,
                             "time_control": league.time_control, "entry": league.entry,
                             "pairing": league.pairing, "organiser": emails[league.organiser_id],
                             "timeout_forfeit": league.timeout_forfeit},
                  "seasons": season_records,
                  "ratings": ratings(s, league),
                  "rating_order": rated_fixtures(s, league)}
    games = [t["game"] for season in season_records for t in season["tables"]]
    files = {log_name(gid): export(store, gid, whole) for gid in games}
    files["league.json"] = json.dumps(record, indent=2, default=str) + "\n"
    return files


def _season(s: Session, league: League, season: Season,
            emails: dict[int | None, str]) -> dict:
    fixtures = fixtures_of(s, season)
    if league.pairing == "duplicate":  # a round's tables only once it is over (its boards)
        fixtures = [f for f in fixtures if boards.closed(season, f.round)]
    return _duplicate(s, league, season) | {
            "number": season.number, "starts": season.starts.isoformat(),
            "ends": season.ends.isoformat(), "status": season.status, "rounds": season.rounds,
            "schedule": season.schedule,
            "entries": [{"id": e.id, "name": e.name, "status": e.status,
                         "games": e.games if e.status == "withdrawn" else None,
                         "players": [emails[x] for x in (e.player_id, e.partner_id) if x]}
                        for e in entries_of(s, season)],
            "tables": [{"round": f.round, "table": f.board, "game": f.game_id,
                        "log": log_name(f.game_id), "seats": f.seats, "status": f.status,
                        "finished": f.finished.isoformat() if f.finished else None,
                        "timeouts": _timeouts(f), "own": _own(f)}
                       for f in fixtures if f.status != "bye" and f.game_id is not None],
            "byes": [{"round": f.round, "entry": f.seats[0]}
                     for f in fixtures if f.status == "bye"],
            "standings": [asdict(row) for row in season_standings(s, season)]}


def _duplicate(s: Session, league: League, season: Season) -> dict:
    """A duplicate season's rounds (each one's commitment, and its seed once over: the
    boards can be dealt again) and its duplicate table."""
    if league.pairing != "duplicate":
        return {}
    return {"duplicate": {"boards": league.rules.get("max_hands"),
                          "rounds": boards.rounds(league, season),
                          "standings": boards.table(s, season)}}


def _timeouts(fixture: Fixture) -> list[int] | None:
    """Each seat's timeouts in a finished game: the clock's deadlines are not log events,
    and a timeout forfeit needs them (a move the clock's robot made is, in the log, a
    move like any other)."""
    if fixture.result is None:
        return None
    return fixture.result.get("timeouts", [0] * len(fixture.seats))


def _own(fixture: Fixture) -> list[int] | None:
    """Each seat's moves its own player made in a finished game (not a timeout's robot, the
    organiser's robot move, a robot's or a substitute's): what decides whether it is rated."""
    if fixture.result is None:
        return None
    return fixture.result.get("own")


def write_folder(files: dict[str, str], folder: Path) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def zip_bytes(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in sorted(files.items()):
            z.writestr(name, text)
    return buf.getvalue()
