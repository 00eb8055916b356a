"""Starting a league: the form, and the organiser's confirmation by a mailed link (only then
is the league made and its organiser's page mailed), as pbem.web.newgame does for a game."""

from datetime import date, timedelta

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from .. import asks
from ..engine import PRESETS, RulesError
from ..i18n import N_, _, language
from ..league import manage
from ..signing import NEW_LEAGUE
from ..store.models import Confirmation
from . import data, flow, limits
from .leagues import ENTRIES, MAX_ENTRIES, PAIRINGS, day, whole
from .newgame import CLOCK_FIELDS, bad_link, describe_clock, read_rules, refused, time_control

bp = Blueprint("newleague", __name__)


@bp.route("/l/new", methods=["GET", "POST"])
def new_league():
    """The form. Its POST makes nothing: it mails the organiser a link carrying the checked
    league, and the button behind that link makes it (as /new does for a game)."""
    if request.method == "GET":
        told = flow.carried()
        if told.get("sent"):
            return render_template("web/asked.html", email=told["sent"],
                                   what=_("start the league"))
        starts = date.today() + timedelta(days=7)
        form = {"starts": starts.isoformat(), "ends": (starts + timedelta(days=182)).isoformat(),
                "stale_hours": "168"}
        return render_template("web/league_new.html", presets=list(PRESETS),
                               form=told.get("form") or form, errors=told.get("errors") or {})
    form = request.form
    try:
        spec = manage.check_league(_read_new_league(form))
        organiser, name = spec.organiser, spec.name
        limits.check([organiser])
        carried = {k: form.get(k, "").strip() for k in LEAGUE_FIELDS}
        carried = {k: v for k, v in dict(carried, organiser=organiser).items() if v}
        with language(asks.reader_language(data.store(), organiser)):
            asks.ask(data.store(), organiser, NEW_LEAGUE, carried, "/l/new/confirm/",
                     _("Confirm your new league: %(league)s") % {"league": name},
                     lambda link: _confirm_text(name, organiser, link),
                     current_app.config["PBEM_SETTINGS"])
    except (RulesError, ValueError) as e:  # a LeagueError is a ValueError
        return refused(url_for("newleague.new_league"), form, e)  # told in the page's words
    limits.record([organiser])
    return flow.to(url_for("newleague.new_league"), sent=organiser)


def _confirm_text(name: str, organiser: str, link: str) -> str:
    return "\n\n".join([
        _("Someone (we hope you) asked to start the league \"%(league)s\" with %(organiser)s "
          "as its organiser.") % {"league": name, "organiser": organiser},
        _("To start it, open this link and press the button: %(link)s") % {"link": link},
        _("If it was not you, ignore this mail: nothing happens without the button.")]) + "\n"


LEAGUE_FIELDS = ("name", "preset", "options", "entry", "pairing", "rounds", "max_entries",
                 "starts", "ends", "move_hours", "on_timeout", "weekend_pause", "stale_hours",
                 *CLOCK_FIELDS)


@bp.route("/l/new/confirm/<link:token>", methods=["GET", "POST"])
def confirm_league(token):
    """The link /l/new mailed to the organiser: GET shows the league; POST makes it, once
    (the link's id is its unique ref), and opens the organiser's page."""
    try:
        form = asks.read(token, NEW_LEAGUE, current_app.config["PBEM_SETTINGS"])
        spec = manage.check_league(_read_new_league(form))
    except (RulesError, ValueError) as e:
        return bad_link(e)
    if _league_made(form["n"]) is None and request.method == "POST":
        limits.check([spec.organiser])
        try:
            made = manage.create_league(data.store(), spec, ref=form["n"])
        except IntegrityError:  # the same link, pressed twice at once: the other made it
            made = None
        if made is not None:
            limits.record([spec.organiser])
            return redirect(url_for("leagues.organiser", admin_token=made.admin_token), 303)
    if _league_made(form["n"]) is not None:
        return render_template("web/message.html", title=_("This link was used already"),
                               text=_("It made the league %(league)s: its organiser's page is "
                                      "at the link in the mail that followed.") % {
                                   "league": spec.name}), 409
    return render_template("web/confirm_new.html", title=_("Start this league?"), rows=[
        (_("Organiser"), spec.organiser), (_("Name"), spec.name),
        (_("Rules"), spec.rules.preset), (_("Options"), form.get("options") or _("none")),
        (_("Format"), _("%(entry)s; %(pairing)s") % {
            "entry": _(ENTRIES[spec.entry]), "pairing": _(PAIRINGS[spec.pairing])}),
        (_("First season"), _("%(starts)s to %(ends)s") % {
            "starts": spec.starts.isoformat(), "ends": spec.ends.isoformat()}),
        (_("Time control"), describe_clock(spec.time_control))],
        button=_("Start the league"))


def _league_made(ref: str) -> int | None:
    with data.store().reader() as s:
        return s.exec(select(Confirmation.league_id).where(Confirmation.ref == ref)).first()


def _read_new_league(form) -> manage.LeagueSpec:
    stale = whole(form, "stale_hours", N_("hours before a quiet table is flagged"))
    return manage.LeagueSpec(
        organiser=form.get("organiser", ""), name=form.get("name", ""),
        rules=read_rules(form), entry=form.get("entry", "single"),
        pairing=form.get("pairing", "round-robin"), rounds=whole(form, "rounds", N_("rounds")),
        max_entries=whole(form, "max_entries", N_("most entries"), most=MAX_ENTRIES),
        starts=day(form, "starts", N_("the first season's first day")),
        ends=day(form, "ends", N_("the first season's last day")),
        time_control=time_control(form, league=True),
        stale_hours=168 if stale is None else stale)
