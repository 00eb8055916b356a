"""The league pages' data as JSON (docs/api.md, "Leagues"): names and scores only, never an
address. Its field names, values and words (a ruling) stay English, whatever the language of
the pages (docs/translating.md)."""

from dataclasses import asdict

from flask import Blueprint, abort, jsonify
from sqlmodel import select

from ..league import boards, manage, reports
from ..league.manage import LeagueError
from ..store.models import League
from . import data

bp = Blueprint("league_api", __name__, url_prefix="/api")


def _season(sn) -> dict:
    return {"number": sn.number, "starts": sn.starts.isoformat(), "ends": sn.ends.isoformat(),
            "status": sn.status, "round": sn.round, "rounds": sn.rounds}


@bp.get("/leagues")
def leagues():
    with data.store().reader() as s:
        out = []
        for lg in s.exec(select(League).order_by(League.id)).all():
            sn = manage.latest_season(s, lg.id)
            out.append({"id": lg.id, "name": lg.name, "preset": lg.rules.get("preset"),
                        "entry": lg.entry, "pairing": lg.pairing, "season": sn.number,
                        "status": sn.status, "url": f"/l/{lg.id}"})
    return jsonify(out)


@bp.get("/l/<int:league_id>")
def league(league_id):
    with data.store().reader() as s:
        try:
            lg = manage.get_league(s, league_id)
        except LeagueError:
            abort(404)
        seasons = [dict(_season(sn), url=f"/l/{lg.id}/s/{sn.number}")
                   for sn in reports.seasons(s, lg.id)]
    return jsonify({"id": lg.id, "name": lg.name, "rules": lg.rules, "entry": lg.entry,
                    "pairing": lg.pairing, "rounds": lg.rounds, "max_entries": lg.max_entries,
                    "time_control": lg.time_control, "seasons": seasons, "url": f"/l/{lg.id}"})


@bp.get("/l/<int:league_id>/s/<int:number>")
def season(league_id, number):
    with data.store().reader() as s:
        try:
            lg = manage.get_league(s, league_id)
            sn = reports.season_of(s, lg.id, number)
        except LeagueError:
            abort(404)
        status = {e.id: e.status for e in reports.entries_of(s, sn)}
        standings = [dict(asdict(row), status=status[row.entry])
                     for row in reports.season_standings(s, sn)]
        reliability = [dict(asdict(x), on_time=x.on_time)
                       for x in reports.season_reliability(s, sn)]
        body = dict(_season(sn), league=lg.id, name=lg.name, standings=standings,
                    reliability=reliability, fixtures=reports.fixtures(s, sn),
                    ratings=reports.ratings(s, lg))
        if lg.pairing == "duplicate":  # rounds still playing show their commitment alone
            body["duplicate"] = {"rounds": boards.rounds(lg, sn),
                                 "standings": boards.table(s, sn)}
    return jsonify(body)
