"""The organiser's page's rulings and care of tables (docs/leagues.md): rule on a finished
game, give a table more hours, let the robot make one move, remind the players to act, and
mail every player. Each POST is the organiser's by the page's secret key (and the session's
CSRF token, as every form); the services check the rest (pbem.organise.adjudicate, .care)."""

import re

from flask import Blueprint, request

from ..deadlines import MAX_HOURS
from ..i18n import N_, _, ngettext
from ..league import webhooks
from ..league.manage import LeagueError, set_hints
from ..league.pause import pause, resume
from ..league.verdicts import describe
from ..organise import care
from ..organise.adjudicate import Via, adjudicate, deal_replay, parse
from . import data
from .leagues import organiser_action, whole

bp = Blueprint("organiser", __name__)


def _game(form) -> int:
    game_id = whole(form, "game", N_("the game"))
    if game_id is None:
        raise LeagueError(_("choose a game"))
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
        return _("Game %(game)s: ruled at move %(move)s: %(ruling)s.") % {
            "game": game_id, "move": ev["seq"], "ruling": describe(ev)}
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/replay")
def replay(admin_token):
    def act(lg):
        game_id = _game(request.form)
        new_id = deal_replay(data.store(), lg.id, lg.organiser_id, game_id)
        return _("Game %(game)s is replayed as game %(new)s, dealt now: its result counts "
                 "in the league in place of game %(game)s's.") % {"game": game_id,
                                                                    "new": new_id}
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/more")
def more(admin_token):
    def act(lg):
        f = request.form
        game_id, hours = _game(f), whole(f, "hours", N_("the hours"), most=MAX_HOURS)
        care.more_hours(data.store(), lg.id, lg.organiser_id, game_id, hours)
        return ngettext("Game %(game)s: %(hours)s more hour.",
                        "Game %(game)s: %(hours)s more hours.", hours or 0) % {
            "game": game_id, "hours": hours}
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/robot")
def robot(admin_token):
    def act(lg):
        game_id = _game(request.form)
        care.robot_move(data.store(), lg.id, lg.organiser_id, game_id)
        return _("Game %(game)s: the robot made the move.") % {"game": game_id}
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/remind")
def remind(admin_token):
    def act(lg):
        game_id = _game(request.form)
        n = care.remind(data.store(), lg.id, lg.organiser_id, game_id)
        return ngettext("Game %(game)s: %(num)s player reminded to move.",
                        "Game %(game)s: %(num)s players reminded to move.", n) % {
            "game": game_id, "num": n}
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/pause")
def pause_league(admin_token):
    def act(lg):
        f = request.form
        season = whole(f, "season", N_("the season"))
        again = f.get("do") == "resume"
        numbers = (resume if again else pause)(data.store(), lg.id, lg.organiser_id, season)
        seasons = ", ".join(map(str, numbers))
        if again:
            return _("Resumed: season %(seasons)s.") % {"seasons": seasons}
        return _("Paused: season %(seasons)s.") % {"seasons": seasons}
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/hints")
def hints(admin_token):
    """Allow the players hints (the hard robot's card at their turn), or not (issue 33)."""
    def act(lg):
        on = request.form.get("hints") == "on"
        set_hints(data.store(), lg.id, lg.organiser_id, on)
        return _("Hints are allowed in this league's games.") if on else \
            _("Hints are off in this league's games.")
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/webhook")
def add_webhook(admin_token):
    def act(lg):
        f = request.form
        hook = webhooks.add(data.store(), lg.id, lg.organiser_id, f.get("kind", ""),
                            f.get("url", "")[:webhooks.MAX_URL + 1])
        return _("Webhook %(hook)s added (%(hint)s): the league's news goes there from now "
                 "on.") % {"hook": hook.id, "hint": hook.hint}
    return organiser_action(admin_token, act, carry=False)  # the URL is a secret


@bp.post("/o/<admin_token>/webhook/remove")
def remove_webhook(admin_token):
    def act(lg):
        hook_id = whole(request.form, "hook", N_("the webhook"))
        if hook_id is None:
            raise LeagueError(_("choose a webhook"))
        hook = webhooks.remove(data.store(), lg.id, lg.organiser_id, hook_id)
        return _("Webhook %(hook)s (%(hint)s) is removed.") % {"hook": hook.id,
                                                                "hint": hook.hint}
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/message")
def message(admin_token):
    def act(lg):
        f = request.form
        season = whole(f, "season", N_("the season"))
        n = care.message(data.store(), lg.id, lg.organiser_id, f.get("subject", ""),
                         f.get("text", ""), season)
        return ngettext("Your message went to %(num)s player.",
                        "Your message went to %(num)s players.", n) % {"num": n}
    return organiser_action(admin_token, act)
