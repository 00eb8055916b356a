"""Public pages: the list of games, each game's score pad, the demo, starting a game."""

import secrets

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from sqlmodel import select

from .. import compose
from ..deadlines import ON_TIMEOUT
from ..engine import PRESETS, Rules, RulesError, preset, score_pad
from ..play import start
from ..store.addresses import AddressError, check_address
from ..store.games import ROBOT, create_game, new_token, player_for
from ..store.models import Game, Outbox, Seat
from . import data
from .chart import score_svg
from .view import pad_rows, side_labels

bp = Blueprint("pages", __name__)


@bp.get("/")
def index():
    return render_template("web/index.html", games=data.public_games(), presets=list(PRESETS))


@bp.get("/g/<int:game_id>")
def pad(game_id):
    t = data.load(game_id)
    if not t.game.public:
        abort(404)  # a private game's pad is on its players' tables only
    return render_template("web/pad.html", **pad_context(t))


def pad_context(t) -> dict:
    p = score_pad(t.state)
    labels = side_labels(t.state, t.names)
    return {"t": t, "pad": p, "rows": pad_rows(p), "labels": labels,
            "chart": score_svg(p, labels)}


@bp.post("/demo")
def demo():
    """One click: a game against three robots, and straight to its table."""
    st_ = data.store()
    email = f"demo-{secrets.token_hex(6)}@demo.test"  # .test: never delivered (RFC 2606)
    gid = create_game(st_, preset("standard"), [email, "robot", "robot", "robot"])
    with st_.session() as s:
        you = player_for(s, email)
        you.name = "You"
        s.add(you)
        s.commit()
    start(st_, gid)
    with st_.session() as s:
        seat = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 0)).one()
    return redirect(url_for("tables.table", token=seat.token))


@bp.route("/new", methods=["GET", "POST"])
def new_game():
    form = request.form
    if request.method == "GET":
        return render_template("web/new.html", presets=list(PRESETS), form={}, error=None)
    try:
        rules, seats, creator = _read_new_game(form)
        time_control(form)
    except (RulesError, ValueError) as e:
        return render_template("web/new.html", presets=list(PRESETS), form=form,
                               error=str(e)), 400
    gid = _create_invited(rules, seats, creator, public=form.get("public") == "on",
                          time_control=time_control(form))
    return redirect(url_for("pages.created", game_id=gid, token=_creator_token(gid, creator)))


def _read_new_game(form):
    """(rules, seats, creator), every address checked. The creator sits at the table: a game
    from the web always has a person in it, so robots never play a whole game inside a
    request (a decline turns only an invitee's seat into a robot's)."""
    rules = read_rules(form)
    try:
        creator = check_address(form.get("you", ""))
    except AddressError as e:
        raise ValueError(f"give your own email address, the game's link comes to it: {e}") \
            from None
    seats = [_seat_entry(form, i) for i in range(rules.players)]
    if creator not in seats:
        raise ValueError("take a seat yourself: put your own address in one of the seats "
                         "(a game of robots only is for `pbem demo`, not the web)")
    return rules, seats, creator


def _seat_entry(form, i: int) -> str:
    who = form.get(f"seat{i}", "").strip()
    if who.lower() == ROBOT:
        return ROBOT
    try:
        return check_address(who)
    except AddressError as e:
        raise ValueError(f"seat {i}: an email address, or the word robot. {e}") from None


def read_rules(form) -> Rules:
    """The form's preset with its KEY=VALUE option lines (RulesError, ValueError)."""
    name = form.get("preset", "standard")
    options = {}
    for line in form.get("options", "").splitlines():
        if line.strip():
            key, eq, value = line.partition("=")
            if not eq:
                raise ValueError(f"write options as KEY=VALUE, not {line.strip()!r}")
            options[key.strip()] = value.strip()
    return Rules.from_dict({"preset": name, **options}) if name in PRESETS else preset(name)


def time_control(form) -> dict:
    hours = form.get("move_hours", "72")
    how = form.get("on_timeout", "robot")
    if hours not in ("6", "12", "24", "48", "72", "120", "168", "336") or how not in ON_TIMEOUT:
        raise ValueError("choose a deadline and what happens at it from the lists")
    return {"move_hours": int(hours), "remind_hours": [24, 2] if int(hours) > 24 else [2],
            "weekend_pause": form.get("weekend_pause") == "on", "on_timeout": how}


def _create_invited(rules, seats, creator, public, time_control) -> int:
    """Seats for people wait for their yes (by link); the creator's own seat is taken."""
    st_ = data.store()
    gid = create_game(st_, rules, seats, public=public, time_control=time_control)
    cfg = current_app.config["PBEM_SETTINGS"]
    with st_.session() as s:
        game = s.get(Game, gid)
        game.created_by = player_for(s, creator).id
        s.add(game)
        for seat in s.exec(select(Seat).where(Seat.game_id == gid)).all():
            email = seats[seat.seat]
            if seat.robot or email == creator:
                continue
            seat.accepted = False
            s.add(seat)
            link = f"{cfg.base_url}/i/{seat.token}"
            mail = compose.game_mail(  # the game's subject and thread, from the first mail
                gid, cfg.mail_domain, f"You are invited to game {gid}",
                f"{creator} invites you to a game of Spades ({rules.preset}), seat "
                f"{seat.seat}.\n\nSay yes or no here: {link}\n")
            mail["headers"]["Auto-Submitted"] = "auto-generated"
            s.add(Outbox(**mail, to_addr=email, dedupe_key=f"invite:{gid}:{seat.seat}"))
        s.commit()
    start_when_full(gid)
    return gid


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
            return redirect(url_for("tables.table", token=token))
        return render_template("web/message.html", title="Declined",
                               text=f"You declined game {seat.game_id}; a robot takes the seat.")
    return render_template("web/invite.html", t=t, seat=seat, token=token)
