"""Starting a game with friends: the form, the creator's confirmation by a mailed link (only
then is the game made and are the invitations sent), and each invitee's yes or no."""

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from .. import asks, compose
from ..deadlines import CLOCKS, DEFAULTS, ON_TIMEOUT, check
from ..engine import PRESETS, Rules, RulesError, preset
from ..i18n import N_, _, language, listing, told
from ..numbers import whole
from ..play import start
from ..seatclock import DEFAULTS as BANK
from ..signing import NEW_GAME
from ..store.addresses import AddressError, check_address
from ..store.games import ROBOT, add_game, is_robot, new_token, player_for, robot_seat
from ..store.models import Confirmation, Game, Outbox, Seat
from . import data, flow, limits
from .flow import FormError

bp = Blueprint("newgame", __name__)


@bp.route("/new", methods=["GET", "POST"])
def new_game():
    """The form. Its POST makes nothing: it mails the creator a link that carries the checked
    game, and only the button behind that link makes it (an address is trusted once it has
    clicked a link mailed to it). A stranger who gives someone else's address causes one
    confirmation mail to it, no more (pbem.asks, pbem.web.limits)."""
    form = request.form
    if request.method == "GET":
        told = flow.carried()
        if told.get("sent"):
            return render_template("web/asked.html", email=told["sent"],
                                   what=_("start the game and send the invitations"))
        form = told.get("form") or {}
        return render_template("web/new.html", presets=PLAYERS, form=form,
                               seats=PLAYERS.get(form.get("preset") or request.args.get(
                                   "preset", ""), PLAYERS["standard"]),
                               errors=told.get("errors") or {})
    try:
        rules, seats, creator = _read_new_game(form)
        time_control(form)
        limits.check([creator])
        with language(asks.reader_language(data.store(), creator)):
            asks.ask(data.store(), creator, NEW_GAME, _carried(form, seats, creator),
                     "/new/confirm/", _("Confirm your new game of Spades"),
                     lambda link: _confirm_text(rules, seats, creator, link), _cfg())
    except (RulesError, ValueError) as e:
        return refused(url_for("newgame.new_game"), form, e)
    limits.record([creator])
    return flow.to(url_for("newgame.new_game"), sent=creator)


# The players each preset seats: the form shows as many seat boxes as its preset has
PLAYERS = {name: preset(name).players for name in PRESETS}


def refused(url: str, form, e: Exception):
    """A form refused: back to it as sent, the error beside its field (or above the form)."""
    field = getattr(e, "field", "options" if isinstance(e, RulesError) else None)
    if field is None:
        return flow.to(url, form=form, error=_("Nothing was sent: %(why)s.") % {
            "why": told(e).rstrip(".")})
    return flow.to(url, form=form, error=_("Nothing was sent: see the field marked below."),
                   errors={field: told(e)})


def _cfg():
    return current_app.config["PBEM_SETTINGS"]


def _carried(form, seats, creator) -> dict:
    """The checked form, as the link carries it: read back by the same reader on confirming,
    so the link can hold nothing the form could not."""
    options = "\n".join(x.strip() for x in form.get("options", "").splitlines() if x.strip())
    kept = {k: form.get(k, "") for k in ("preset", "public", "move_hours", "on_timeout",
                                         "weekend_pause", *CLOCK_FIELDS)}
    return {k: v for k, v in dict(kept, you=creator, options=options,
                                  **{f"seat{i}": x for i, x in enumerate(seats)}).items() if v}


def _confirm_text(rules, seats, creator, link) -> str:
    others = listing([x for x in seats if x != creator])
    return "\n\n".join([
        _("Someone (we hope you) asked to start a game of Spades (%(rules)s) for %(you)s, "
          "with %(others)s.") % {"rules": rules.preset, "you": creator, "others": others},
        _("To start it and send the invitations, open this link and press the button: "
          "%(link)s") % {"link": link},
        _("If it was not you, ignore this mail: nothing happens without the button, and no "
          "one else is mailed.")]) + "\n"


@bp.route("/new/confirm/<link:token>", methods=["GET", "POST"])
def confirm_game(token):
    """The link /new mailed to the creator: GET shows the game (mail scanners fetch links);
    POST makes it, once (the link's id is its unique ref), and opens the creator's table."""
    try:
        form = asks.read(token, NEW_GAME, _cfg())
        rules, seats, creator = _read_new_game(form)
        tc = time_control(form)
    except (RulesError, ValueError) as e:
        return bad_link(e)
    public = form.get("public") == "on"
    invitees = [x for x in seats if not is_robot(x) and x != creator]
    if _made(form["n"]) is None and request.method == "POST":
        limits.check(invitees)
        try:
            gid = _create_invited(rules, seats, creator, public, tc, ref=form["n"])
        except IntegrityError:  # the same link, pressed twice at once: the other made it
            gid = None
        if gid is not None:
            limits.record(invitees)
            start_when_full(gid)
            return redirect(url_for("newgame.created", game_id=gid,
                                    token=_creator_token(gid, creator)), 303)
    gid = _made(form["n"])
    if gid is not None:  # a second press (a person, by POST) is shown the way to the table;
        # a GET may be a scanner, or a forwarded mail, long after: it is not given the key
        token = _creator_token(gid, creator) if request.method == "POST" else ""
        return render_template("web/created.html", t=data.load(gid), used=True,
                               token=token), 409
    return render_template("web/confirm_new.html", title=_("Start this game?"), rows=[
        (_("You"), creator), (_("Rules"), rules.preset),
        (_("Options"), form.get("options") or _("none")),
        *((_("Seat %(seat)s") % {"seat": i}, x) for i, x in enumerate(seats)),
        (_("Time control"), describe_clock(tc)),
        (_("Score pad"), _("public") if public else _("private"))],
        button=_("Start the game and send the invitations"))


AT_DEADLINE = {"robot": N_("the robot moves"), "forfeit": N_("the side forfeits"),
               "wait": N_("the game waits (its carer is mailed links to move it on)")}


def describe_clock(tc: dict) -> str:
    tc = dict(DEFAULTS, **tc)
    if tc["clock"] == "bank":
        what = _("a bank of %(bank)s hours, each move adds %(add)s, at most %(cap)s") % {
            "bank": tc["bank_hours"], "add": tc["increment_hours"], "cap": tc["cap_hours"]}
    else:
        what = _("%(hours)s hours a move") % {"hours": tc["move_hours"]}
    at = tc["on_timeout"]
    parts = [what, _("at the deadline %(what)s") % {
        "what": _(AT_DEADLINE[at]) if at in AT_DEADLINE else at}]
    if tc["weekend_pause"]:
        parts.append(_("weekends don't count"))
    if tc["auto_vacation"]:
        parts.append(_("a vacation day first, while the player has one"))
    return "; ".join(parts)


def _made(ref: str) -> int | None:
    """The game this confirmation link made, if it did."""
    with data.store().reader() as s:
        return s.exec(select(Confirmation.game_id).where(Confirmation.ref == ref)).first()


def bad_link(why, status=400):
    return render_template("web/message.html", title=_("This link does not work"),
                           text=f"{str(why).capitalize()}."), status


def _read_new_game(form):
    """(rules, seats, creator), every address checked. The creator sits at the table: a game
    from the web always has a person in it, so robots never play a whole game inside a
    request (a decline turns only an invitee's seat into a robot's)."""
    rules = read_rules(form)
    try:
        creator = check_address(form.get("you", ""))
    except AddressError as e:
        raise FormError("you", _("give your own email address, the game's link comes to it: "
                                 "%(why)s") % {"why": e}) from None
    missing = next((i for i in range(rules.players) if f"seat{i}" not in form), None)
    if missing is not None:  # the form showed another preset's seats: it shows these now
        raise FormError(f"seat{missing}", _(
            "this preset seats %(n)s players: give seat %(seat)s an email address or the "
            "word robot too") % {"n": rules.players, "seat": missing})
    seats = [_seat_entry(form, i) for i in range(rules.players)]
    if creator not in seats:
        raise FormError("seat0", _("take a seat yourself: put your own address in one of the "
                                   "seats (a game of robots only is for `pbem demo`, not the "
                                   "web)"))
    return rules, seats, creator


def _seat_entry(form, i: int) -> str:
    who = form.get(f"seat{i}", "").strip()
    try:
        robot, level = robot_seat(who[:40])
    except ValueError:
        raise FormError(f"seat{i}", _("seat %(seat)s: a robot is robot, or robot:easy, "
                                      "robot:medium or robot:hard") % {"seat": i}) from None
    if robot:
        return f"{ROBOT}:{level}" if level else ROBOT
    try:
        return check_address(who)
    except AddressError as e:
        raise FormError(f"seat{i}", _("seat %(seat)s: an email address, or the word robot. "
                                      "%(why)s") % {"seat": i, "why": e}) from None


def read_rules(form) -> Rules:
    """The form's preset with its KEY=VALUE option lines (RulesError, ValueError)."""
    name = form.get("preset", "standard")
    options = {}
    for line in form.get("options", "").splitlines():
        if line.strip():
            key, eq, value = line.partition("=")
            if not eq:
                raise ValueError(_("write options as KEY=VALUE, not %(line)s")
                                 % {"line": repr(line.strip()[:80])})
            options[key.strip()] = value.strip()
    return Rules.from_dict({"preset": name, **options}) if name in PRESETS else preset(name)


CLOCK_FIELDS = ("clock", "bank_hours", "increment_hours", "cap_hours", "auto_vacation")


def time_control(form, league: bool = False) -> dict:
    """The form's time control, checked (ValueError). Automatic vacation: on for a game
    unless the form says off; off in a league unless its organiser says on."""
    hours = form.get("move_hours", "72")
    how = form.get("on_timeout", "robot")
    if hours not in ("6", "12", "24", "48", "72", "120", "168", "336") or how not in ON_TIMEOUT:
        raise ValueError(_("choose a deadline and what happens at it from the lists"))
    vac = form.get("auto_vacation") or ("off" if league else "on")
    if form.get("clock", "move") not in CLOCKS or vac not in ("on", "off"):
        raise ValueError(_("choose the clock and automatic vacation from the lists"))
    tc = {"move_hours": int(hours), "remind_hours": [24, 2] if int(hours) > 24 else [2],
          "weekend_pause": form.get("weekend_pause") == "on", "on_timeout": how,
          "auto_vacation": vac == "on"}
    if form.get("clock", "move") == "bank":
        tc.update(clock="bank", **{k: _hours(form, k) for k in CLOCK_FIELDS[1:4]})
        tc["remind_hours"] = [24, 2] if tc["bank_hours"] > 24 else [2]
    check(tc)
    return tc


# the bank clock's fields, as its refusals name them
BANK_WORDS = {"bank_hours": N_("the starting bank"), "increment_hours": N_("the increment a move"),
              "cap_hours": N_("the cap of the bank")}


def _hours(form, key) -> int:
    hours = whole(form.get(key, str(BANK[key])).strip(), 99999)
    if hours is None:
        raise ValueError(_("%(what)s: a whole number of hours") % {"what": _(BANK_WORDS[key])})
    return hours


def _create_invited(rules, seats, creator, public, time_control, ref) -> int:
    """Seats for people wait for their yes (by link); the creator's own seat is taken. One
    transaction with the confirmation link's ref: a second making raises IntegrityError."""
    cfg = _cfg()
    with data.store().session() as s:
        game = add_game(s, rules, seats, public=public, time_control=time_control)
        game.created_by = player_for(s, creator).id
        s.add(game)
        gid = game.id
        assert gid is not None  # add_game flushed it
        s.add(Confirmation(ref=ref, game_id=gid))
        for seat in s.exec(select(Seat).where(Seat.game_id == gid)).all():
            email = seats[seat.seat]
            if seat.robot or email == creator:
                continue
            seat.accepted = False
            s.add(seat)
            s.add(invitation_mail(cfg, gid, seat, creator, rules.preset, email,
                                  f"invite:{gid}:{seat.seat}"))
        s.commit()
    return gid


def invitation_mail(cfg, gid: int, seat: Seat, creator: str, preset_name: str, to: str,
                    key: str) -> Outbox:
    """The mail that asks `to` to take `seat`: its link says yes or no."""
    link = f"{cfg.base_url}/i/{seat.token}"
    mail = compose.game_mail(  # the game's subject and thread, from its first mail
        gid, cfg.mail_domain, f"You are invited to game {gid}",
        f"{creator} invites you to a game of Spades ({preset_name}), seat "
        f"{seat.seat}.\n\nSay yes or no here: {link}\n")
    mail["headers"]["Auto-Submitted"] = "auto-generated"
    return Outbox(**mail, to_addr=to, dedupe_key=key)


def start_when_full(gid: int) -> bool:
    st_ = data.store()
    with st_.session() as s:
        seats = s.exec(select(Seat).where(Seat.game_id == gid)).all()
        game = s.get(Game, gid)
    if game.status == "open" and all(x.accepted for x in seats):
        start(st_, gid)
        return True
    return False


def _creator_token(gid, creator) -> str:
    with data.store().session() as s:
        for seat in s.exec(select(Seat).where(Seat.game_id == gid)).all():
            if seat.player_id and player_for(s, creator).id == seat.player_id:
                return seat.token
    return ""


@bp.get("/g/<int:game_id>/created")
def created(game_id):
    t = data.load(game_id)
    return render_template("web/created.html", t=t, token=request.args.get("token", ""))


@bp.route("/i/<token>", methods=["GET", "POST"])
def invitation(token):
    """An invitee says yes or no. GET only shows the question (mail scanners fetch links)."""
    seat = data.seat_for(token)
    t = data.load(seat.game_id)
    if request.method == "POST" and not seat.accepted:
        yes = request.form.get("answer") == "yes"
        with data.store().session() as s:
            row = s.get(Seat, seat.id)
            row.accepted = True
            if not yes:  # a robot takes the seat, so the others can still play; the old
                row.robot, row.player_id = True, None  # link must not show the robot's hand
                row.token = new_token()
            s.add(row)
            s.commit()
        start_when_full(seat.game_id)
        if yes:
            return redirect(url_for("tables.table", token=token), 303)
        return flow.told(_("Declined"), _("You declined game %(game)s; a robot takes the seat.")
                         % {"game": seat.game_id})
    if request.method == "POST":  # answered already: the question's page says so
        return flow.to(request.path)
    return render_template("web/invite.html", t=t, seat=seat, token=token)
