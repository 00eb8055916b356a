"""The organiser's page's rulings and care of tables (docs/leagues.md): rule on a finished
game, give a table more hours, let the robot make one move, remind the players to act, and
mail every player. Each POST is the organiser's by the page's secret key (and the session's
CSRF token, as every form); the services check the rest (pbem.organise.adjudicate, .care)."""

import re

from flask import Blueprint, request

from ..deadlines import MAX_HOURS
from ..league.manage import LeagueError
from ..league.pause import pause, resume
from ..league.verdicts import describe
from ..organise import care
from ..organise.adjudicate import Via, adjudicate, parse
from . import data
from .leagues import organiser_action, whole

bp = Blueprint("organiser", __name__)


def _game(form) -> int:
    game_id = whole(form, "game", "the game")
    if game_id is None:
        raise LeagueError("choose a game")
    return game_id


@bp.post("/o/<admin_token>/rule")
def rule(admin_token):
    def act(lg):
        f = request.form
        kind = f.get("result", "").strip().lower()
        extra = {"win": "side", "loss": "side", "adjust": "points", "undo": "move"}.get(kind)
        words = [kind, *re.split(r"[\s,]+", f.get(extra, "").strip())] if extra else [kind]
        ruling = parse([w for w in words if w], f.get("reason", ""))
        game_id = _game(f)
        ev = adjudicate(data.store(), lg.id, lg.organiser_id, game_id, ruling,
                        Via("web")).events[0]
        return f"Game {game_id}: ruled at move {ev['seq']}: {describe(ev)}."
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/more")
def more(admin_token):
    def act(lg):
        f = request.form
        game_id, hours = _game(f), whole(f, "hours", "the hours", most=MAX_HOURS)
        care.more_hours(data.store(), lg.id, lg.organiser_id, game_id, hours)
        return f"Game {game_id}: {hours} more hours."
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/robot")
def robot(admin_token):
    def act(lg):
        game_id = _game(request.form)
        care.robot_move(data.store(), lg.id, lg.organiser_id, game_id)
        return f"Game {game_id}: the robot made the move."
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/remind")
def remind(admin_token):
    def act(lg):
        game_id = _game(request.form)
        n = care.remind(data.store(), lg.id, lg.organiser_id, game_id)
        return f"Game {game_id}: {n} player(s) reminded to move."
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/pause")
def pause_league(admin_token):
    def act(lg):
        f = request.form
        season = whole(f, "season", "the season")
        again = f.get("do") == "resume"
        numbers = (resume if again else pause)(data.store(), lg.id, lg.organiser_id, season)
        seasons = ", ".join(map(str, numbers))
        return f"{'Resumed' if again else 'Paused'}: season {seasons}."
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/message")
def message(admin_token):
    def act(lg):
        f = request.form
        season = whole(f, "season", "the season")
        n = care.message(data.store(), lg.id, lg.organiser_id, f.get("subject", ""),
                         f.get("text", ""), season)
        return f"Your message went to {n} player(s)."
    return organiser_action(admin_token, act)
