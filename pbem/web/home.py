"""A player's home (issue 14): every game of the signed-in player, those waiting for them
first with their deadlines (on the player's own clock), their own pending orders and table
links; then finished games; and their settings. It shows no card and no other seat's
orders: only what the player's own table and mails show them already."""

from flask import (
    Blueprint,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)

from ..i18n import _
from ..numbers import whole
from ..store import names, prefs, push
from ..store.accounts import account_address, new_account_key
from ..store.models import now as utcnow
from ..vacation import bank, end_vacation, start_vacation
from . import data, flow, my_games
from .newgame import PLAYERS
from .signin import signed_in
from .words import on_vacation, welcome_back

bp = Blueprint("home", __name__)

MAX_GAMES = 200  # a player's most recent seats shown: a page, not an archive
CHOICES = {"notify": prefs.NOTIFY, "auto": ("forced", "equal", "off"), "mail": ("on", "off")}
DEFAULTS = {"notify": prefs.DEFAULTS["notify"], "auto": "forced", "mail": "on"}
WORDS = ("zone", "rest", "quiet", "cap", "merge")  # read by pbem.store.prefs.PARSERS


def _player_or_signin():
    player = signed_in()
    return player, (None if player else redirect(url_for("signin.signin"),
                                                303 if request.method == "POST" else 302))


@bp.get("/home")
def home():
    player, away = _player_or_signin()
    told = flow.carried()  # a refused settings form: as sent, each error by its field
    return away or page(player, errors=told.get("errors"), form=told.get("form"))


def back(notice=None, error=None, **kw):
    return flow.to(url_for("home.home"), notice=notice, error=error, **kw)


def page(player, errors=None, form=None):
    now = utcnow()
    games = my_games.rows(data.store(), player, now, MAX_GAMES)
    games.sort(key=lambda g: (g["group"], g["due"] or now.max.replace(tzinfo=now.tzinfo),
                              -g["id"]))
    p = dict(player.prefs or {})
    body = render_template(
        "web/home.html", player=player, games=games,
        account_address=account_address(player, current_app.config["PBEM_SETTINGS"].mail_domain),
        errors=errors or {}, form=form or _form(player), choices=CHOICES, presets=PLAYERS,
        vacation=p.get("vacation_until"), bank=bank(p, now.date(), player.created.date())[0],
        pushes=push.count(data.store(), player.id))
    response = make_response(body)
    response.headers["Cache-Control"] = "no-store"  # a player's own page: never cached
    return response


def _form(player) -> dict:
    """The settings as the form shows them: words that read back to the same values."""
    got = {k: prefs.get(player, k) for k in WORDS}
    quiet, cap = got["quiet"], got["cap"]
    out = {k: (player.prefs or {}).get(k, DEFAULTS[k]) for k in CHOICES}
    out["notify"] = prefs.notify(player)
    return out | {"name": player.name, "zone": got["zone"],
                  "rest": prefs.describe("rest", got["rest"]),
                  "quiet": f"{quiet[0]}-{quiet[1]}" if quiet else "off",
                  "cap": str(cap) if cap else "off",
                  "merge": str(got["merge"]) if _own_merge(player) else "default"}


def _own_merge(player) -> bool:
    """Did the player set `merge`? Unset, a league's games wait (pbem.store.pacing): the
    form says `default`, so saving other fields does not turn that off."""
    return (player.prefs or {}).get("merge") is not None


@bp.post("/home/settings")
def settings():
    """Every setting at once: saved only if every field reads; else each error beside its
    field, the form as sent, and nothing changed."""
    player, away = _player_or_signin()
    if away:
        return away
    form = {k: request.form.get(k, "")[:100] for k in (*CHOICES, *WORDS, "name")}
    values, errors = {}, {}
    name = player.name  # a blank field (or none: an older page) keeps it
    try:
        name = names.clean(form["name"]) if form["name"].strip() else name
    except ValueError as e:
        errors["name"] = str(e)
    for key, allowed in CHOICES.items():
        if form[key] in allowed:
            values[key] = form[key]
        else:
            errors[key] = _("choose one from the list")  # (its values are no one's words)
    for key in WORDS:
        try:
            values[key] = prefs.PARSERS[key](form[key])
        except ValueError as e:
            errors[key] = str(e)
    if errors:
        return back(error=_("Nothing was saved: see the fields marked below."), errors=errors,
                    form=form)
    prefs.update(data.store(), player.id, **values)
    if name != player.name:
        names.set_name(data.store(), player.id, name)
    return back(notice=_("Your settings are saved."))


@bp.post("/home/vacation")
def vacation():
    """N days of vacation from the bank, or back early (as on a table page)."""
    player, away = _player_or_signin()
    if away:
        return away
    days = request.form.get("days", "")
    try:
        if days == "off":
            returned = end_vacation(data.store(), player.id)
            return back(notice=welcome_back(returned))
        if whole(days, 9999) is None:
            raise ValueError(_("a vacation is a whole number of days, at least 1"))
        until = start_vacation(data.store(), player.id, whole(days))
    except ValueError as e:
        return back(error=_("No vacation: %(why)s.") % {"why": e})
    return back(notice=on_vacation(until))


@bp.post("/home/address")
def new_address():
    """A new account address; the old one stops working at once."""
    player, away = _player_or_signin()
    if away:
        return away
    player = new_account_key(data.store(), player.id)
    mine = account_address(player, current_app.config["PBEM_SETTINGS"].mail_domain)
    return back(notice=_("Your new account address is %(address)s: the old one no longer "
                         "works.") % {"address": mine})
