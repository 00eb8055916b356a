"""League pages: the list of leagues, each season's table, fixtures and ratings, joining by
link (nothing is entered until the address's owner confirms by a mailed link), a partner's
yes, and the organiser's page, addressed by the league's secret admin token (starting a
league is pbem.web.newleague). GET never changes anything. Public pages show names and
scores only: no address, no card."""

from datetime import date, timedelta

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    render_template,
    request,
    url_for,
)
from markupsafe import Markup
from sqlmodel import col, select

from ..i18n import N_, _, ngettext
from ..league import archive, boards, manage, reports, webhooks
from ..league.manage import LeagueError
from ..league.verdicts import describe as describe_ruling
from ..numbers import whole as whole_number
from ..organise import seasons
from ..store.accounts import new_organiser_key, organiser_address
from ..store.bounces import bouncing
from ..store.games import is_robot
from ..store.models import Entry, Fixture, League, Player, Season, Seat
from ..store.models import now as utcnow
from . import data, flow, limits
from .flow import FormError
from .guard import MAX_ID
from .newgame import bad_link, refused
from .words import card_text

bp = Blueprint("leagues", __name__)

ENTRIES = {"single": N_("single players, partners drawn for each game"),
           "pair": N_("fixed partnerships")}
PAIRINGS = {"round-robin": N_("round robin"), "swiss": N_("Swiss"),
            "duplicate": N_("duplicate (the same boards at every table)")}
DIRECTIONS = (N_("North"), N_("East"), N_("South"), N_("West"))
MAX_ENTRIES = 1000  # entries in one season (a round robin of 1000 is already years of play)
TIE_BREAKS = N_("Ordered by points (a win or a bye is a point), then points difference, then "
                 "points for, then fewer bags; entries equal on all four share a rank.")
# a season's and an entry's status as the organiser's page shows them (the API keeps the keys)
SEASON_STATUS = {"open": N_("taking entries"), "running": N_("running"), "over": N_("over")}
WEBHOOK_KINDS = {"discord": N_("Discord"), "slack": N_("Slack"),
                 "matrix": N_("Matrix (a hookshot generic webhook)"),
                 "json": N_("plain JSON")}
ENTRY_STATUS = {"pending": N_("waiting for the partner"), "active": N_("in"),
                "withdrawn": N_("withdrawn")}


def shown(table: dict, key: str) -> str:
    """A status's words from one of the tables above, or the key itself if it has none."""
    return _(table[key]) if key in table else key


def describe(league: League) -> str:
    entry, pairing = league.entry, league.pairing
    return f"{_(ENTRIES[entry]) if entry in ENTRIES else entry}; " \
        f"{_(PAIRINGS[pairing]) if pairing in PAIRINGS else pairing}"


def season_text(season: Season) -> str:
    at = {"round": season.round, "rounds": season.rounds}
    if season.status == "open":
        return _("taking entries; starts %(day)s") % {"day": season.starts.isoformat()}
    if season.status == "running" and season.paused_at:
        return _("paused since %(day)s: round %(round)s of %(rounds)s") % dict(
            at, day=f"{season.paused_at:%Y-%m-%d}")
    if season.status == "running":
        return _("playing: round %(round)s of %(rounds)s") % at
    return ngettext("over after %(played)s of %(rounds)s round",
                    "over after %(played)s of %(rounds)s rounds",
                    season.rounds) % {"played": season.round, "rounds": season.rounds}


def _league(s, league_id) -> League:
    try:
        return manage.get_league(s, league_id)
    except LeagueError:
        abort(404)


def _by(column, token: str) -> League:
    with data.store().reader() as s:
        league = s.exec(select(League).where(column == token.lower())).first()
    if league is None:
        abort(404)
    return league


# -- public pages ----------------------------------------------------------------------------


@bp.get("/l")
def leagues():
    with data.store().reader() as s:
        rows = [{"league": lg, "format": describe(lg), "season": manage.latest_season(s, lg.id)}
                for lg in s.exec(select(League).order_by(League.id)).all()]
    return render_template("web/leagues.html", rows=rows, season_text=season_text)


@bp.get("/l/<int:league_id>")
def league(league_id):
    return render_template("web/league.html", **season_context(league_id, None))


@bp.get("/l/<int:league_id>/s/<int:number>")
def season(league_id, number):
    return render_template("web/league.html", **season_context(league_id, number))


def season_context(league_id: int, number: int | None) -> dict:
    with data.store().reader() as s:
        lg = _league(s, league_id)
        try:
            sn = manage.latest_season(s, league_id) if number is None else \
                reports.season_of(s, league_id, number)
        except LeagueError:
            abort(404)
        page = {"league": lg, "season": sn, "format": describe(lg), "status": season_text(sn),
                "seasons": reports.seasons(s, league_id), "entries": reports.entries_of(s, sn),
                "ratings": reports.ratings(s, lg), "form": {}, "error": None}
        page["season_body"] = reports.view(s, "page", lg, sn, lambda: season_body(s, page))
        return page


def season_body(s, page: dict) -> Markup:
    """The season's table, fixtures and the league's ratings, rendered: each round, and the
    ratings, kept rendered until they change (a result changes one round)."""
    lg, sn = page["league"], page["season"]
    rounds = Markup("").join(_round_html(lg, sn, stamp, rnd)
                             for stamp, rnd in reports.fixture_rounds(s, sn))
    ratings = reports.kept(("ratings-html", lg.seed, reports.ratings_key(s, lg)),
                           lambda: Markup(render_template("web/_ratings.html", **page)))
    dup = {"table": boards.table(s, sn), "rounds": boards.rounds(lg, sn),
           "boards": range(1, int(lg.rules.get("max_hands", 0)) + 1),
           "closed": [r for r in range(1, sn.round + 1) if boards.closed(sn, r)]} \
        if lg.pairing == "duplicate" else None
    return Markup(render_template(
        "web/_season_body.html", duplicate=dup, standings=reports.season_standings(s, sn),
        reliability=reports.season_reliability(s, sn), rulings=said(reports.rulings(s, sn)),
        rounds_html=rounds, ratings_html=ratings, tie_breaks=TIE_BREAKS, **page))


@bp.get("/l/<int:league_id>/s/<int:number>/r/<int:rnd>/b/<int:board>")
def board(league_id, number, rnd, board):
    """A duplicate board once its round is over at every table: its deal and each table's
    result; before that, nothing (404), whoever asks."""
    with data.store().reader() as s:
        lg = _league(s, league_id)
        try:
            sn = reports.season_of(s, league_id, number)
        except LeagueError:
            abort(404)
        shown = boards.board(s, lg, sn, rnd, board)
    if shown is None:
        abort(404)
    deal = shown["deal"] or {}
    hands = [(_(DIRECTIONS[i]), " ".join(card_text(c) for c in hand))
             for i, hand in enumerate(deal.get("hands", []))]
    return render_template("web/board.html", league=lg, season=sn, board=shown, hands=hands,
                           dealer=_(DIRECTIONS[shown["dealer"]]))


def _round_html(lg, sn, stamp: int, rnd: dict) -> Markup:
    return reports.kept(("round-html", lg.seed, sn.id, stamp), lambda: Markup(
        render_template("web/_season_round.html", rnd=dict(rnd, tables=said(rnd["tables"])))))


def said(lines: list[dict]) -> list[dict]:
    """Fixture lines or rulings with each ruling in the page's words: the ledger keeps them
    in English (the JSON API's), with the ruling itself beside (`ruled`)."""
    return [dict(x, ruling=describe_ruling(x["ruled"])) if x.get("ruled") else x
            for x in lines]


# -- numbers and dates from a form ----------------------------------------------------------


class FieldError(FormError, LeagueError):
    """A league form's field refused: shown beside the field."""


def whole(form, key, what, default=None, most: int = MAX_ID) -> int | None:
    """A whole number from the form, at most `most` (by default what an id column holds,
    so a huge one is a clear refusal, not a database error)."""
    text = form.get(key, "").strip()
    if not text:
        return default
    number = whole_number(text, most)
    if number is None:
        raise FieldError(key, _("%(what)s: a whole number up to %(most)s, not %(text)s") % {
            "what": _(what), "most": most, "text": repr(text[:20])})
    return number


def day(form, key, what) -> date:
    try:
        return date.fromisoformat(form.get(key, "").strip())
    except ValueError:
        raise FieldError(key, _("%(what)s: a date as YYYY-MM-DD") % {"what": _(what)}) \
            from None


# -- joining ---------------------------------------------------------------------------------


@bp.route("/j/<join_token>", methods=["GET", "POST"])
def join(join_token):
    """The join link: the form asks; the mailed link confirms (the address's owner)."""
    lg = _by(League.join_token, join_token)
    with data.store().session() as s:
        sn = manage.latest_season(s, lg.id)
    page = {"league": lg, "season": sn, "format": describe(lg), "token": join_token}
    if request.method == "GET":
        told = flow.carried()
        return render_template("web/join.html", form=told.get("form") or {},
                               errors=told.get("errors") or {}, sent=told.get("sent"), **page)
    form = request.form
    try:
        try:
            email = manage.address(form.get("email", ""))
        except LeagueError as e:
            raise FieldError("email", str(e)) from None
        limits.check([email])
        sent = manage.request_join(data.store(), lg.id, email, form.get("name", ""),
                                   form.get("partner", "").strip() or None)
    except LeagueError as e:
        return refused(request.path, form, e)
    limits.record([email])
    return flow.to(request.path, sent=sent)


@bp.route("/j/confirm/<token>", methods=["GET", "POST"])
def confirm(token):
    """The link request_join mailed: GET shows what will happen; POST enters."""
    try:
        d = manage.read_link(token, manage.JOIN)
    except LeagueError as e:
        return bad_link(e)
    with data.store().session() as s:
        lg = s.get(League, d["l"])
    if lg is None:
        return bad_link(_("that league is gone"))
    page = {"league": lg, "format": describe(lg), "email": d["e"], "name": d.get("m") or "",
            "partner": d.get("p")}
    if request.method == "GET":
        told = flow.carried()
        return render_template("web/confirm.html", entry=told.get("entry"), **page)
    mailed = [d["e"]] + ([d["p"]] if d.get("p") else [])  # the welcome, the partner's ask
    limits.check(mailed)
    try:
        entry = manage.join(data.store(), lg.id, d["e"], d.get("m") or "", d.get("p"))
    except LeagueError as e:
        already = _entered(lg.id, d["e"])
        if already:
            return flow.told(_("This link was used already"), _(
                "You are entered in %(league)s, season %(season)s, already: this link has "
                "been used.") % {"league": lg.name, "season": already}, 409)
        return flow.to(request.path, error=_("Not entered: %(why)s.") % {"why": e})
    limits.record(mailed)
    return flow.to(request.path, entry={"name": entry.name})


def _entered(league_id: int, email: str) -> int | None:
    """The latest season's number if `email` holds an entry in it (as player or partner)."""
    with data.store().session() as s:
        sn = manage.latest_season(s, league_id)
        player = s.exec(select(Player).where(Player.email == email)).first()
        if player is None:
            return None
        found = s.exec(select(Entry.id).where(Entry.season_id == sn.id, (
            Entry.player_id == player.id) | (Entry.partner_id == player.id))).first()
    return sn.number if found else None


@bp.route("/j/partner/<token>", methods=["GET", "POST"])
def partner(token):
    """The partner named in an entry says yes (the link came to the partner's address)."""
    try:
        d = manage.read_link(token, manage.PARTNER)
    except LeagueError as e:
        return bad_link(e)
    with data.store().session() as s:
        entry = s.get(Entry, d["x"])
        sn = s.get(Season, entry.season_id) if entry else None
        lg = s.get(League, sn.league_id) if sn else None
    if entry is None or lg is None:
        return bad_link(_("that entry was withdrawn"))
    page = {"league": lg, "season": sn, "entry": entry, "email": d["e"]}
    if request.method == "GET":
        return render_template("web/partner.html", done=flow.carried().get("done"), **page)
    try:
        manage.accept_partner(data.store(), entry.id, d["e"])
    except LeagueError as e:
        return flow.to(request.path, error=_("Not done: %(why)s.") % {"why": e})
    return flow.to(request.path, done=True)


# -- the organiser's page --------------------------------------------------------------------


@bp.get("/o/<admin_token>")
def organiser(admin_token):
    return render_organiser(_by(League.admin_token, admin_token))


def render_organiser(lg: League):
    store = data.store()
    cfg = current_app.config["PBEM_SETTINGS"]
    league_id = lg.id
    assert league_id is not None  # read from the database
    with store.session() as s:
        lg = s.get(League, league_id)
        seasons = reports.seasons(s, league_id)
        current = [_season_desk(s, sn) for sn in seasons if sn.status != "over"]
        rulings = [dict(r, season=sn.number) for sn in seasons
                   for r in said(reports.rulings(s, sn))]
        organiser_email = s.get(Player, lg.organiser_id).email
    hooks = webhooks.listed(store, league_id, lg.organiser_id)
    now = utcnow()
    stale = [dict(t, hours=(now - t["last_move"]) // timedelta(hours=1))
             for t in reports.stale_tables(store, lg, now)]
    starts = date.today() + timedelta(days=7)
    told = flow.carried()
    body = render_template(
        "web/organiser.html", league=lg, format=describe(lg), seasons=seasons,
        season_text=season_text, current=current,
        season_status=lambda x: shown(SEASON_STATUS, x),
        entry_status=lambda x: shown(ENTRY_STATUS, x),
        latest=seasons[-1], stale=stale, rulings=rulings, errors=told.get("errors") or {},
        form=told.get("form") or {},
        join_url=f"{cfg.base_url}{url_for('leagues.join', join_token=lg.join_token)}",
        organiser_address=organiser_address(lg, cfg.mail_domain),
        organiser_email=organiser_email, webhooks=hooks, webhook_kinds=WEBHOOK_KINDS,
        most_webhooks=webhooks.MAX_HOOKS, webhook_url_length=webhooks.MAX_URL,
        new_starts=starts.isoformat(), new_ends=(starts + timedelta(days=182)).isoformat())
    return body  # no-store and no Referer: pbem.web.guard, as for every key's page


def _season_desk(s, sn: Season) -> dict:
    """A season not yet over, as the organiser runs it: entries with their addresses, and
    the tables still playing with who sits at each seat."""
    entries = reports.entries_of(s, sn)
    playing = s.exec(select(Fixture).where(Fixture.season_id == sn.id,
                                           Fixture.status == "playing")
                     .order_by(col(Fixture.round), col(Fixture.board))).all()
    seats = s.exec(select(Seat).where(col(Seat.game_id).in_([f.game_id for f in playing]))
                   .order_by(col(Seat.game_id), col(Seat.seat))).all()
    ids = {x for e in entries for x in (e.player_id, e.partner_id) if x}
    ids |= {x.player_id for x in seats if x.player_id}
    people = {p.id: p for p in s.exec(select(Player).where(col(Player.id).in_(ids))).all()}
    at: dict[int, list[tuple[int, str]]] = {}
    for x in seats:
        who = people.get(x.player_id)
        at.setdefault(x.game_id, []).append((x.seat, _seat_holder(who)))
    return {"season": sn, "entries": [
        {"entry": e, "emails": [people[x].email for x in (e.player_id, e.partner_id) if x],
         "bouncing": [people[x].email for x in (e.player_id, e.partner_id) if x
                      and bouncing(people[x])]}
        for e in entries],
        "tables": [{"fixture": f, "seats": at.get(f.game_id, [])} for f in playing]}


def _seat_holder(who: Player | None) -> str:
    """Who plays a seat, as the substitute menu names them."""
    if who is None:
        return _("robot")
    if bouncing(who):
        return _("%(name)s <%(email)s> (mail to this player bounces)") % {
            "name": who.name, "email": who.email}
    return f"{who.name} <{who.email}>"


def organiser_action(admin_token, act, carry: bool = True):
    """An organiser's POST: `act(league)` calls the service as the organiser and returns
    the notice; a refusal shows the page again with why (status 400), nothing changed, and
    the form as sent unless not `carry` (a secret in it: a webhook's URL)."""
    lg = _by(League.admin_token, admin_token)
    page = url_for("leagues.organiser", admin_token=admin_token)
    try:
        notice = act(lg)
    except LeagueError as e:  # a date of the next season: beside its field, as sent
        return flow.to(page, error=_("Not done: %(why)s.") % {"why": e},
                       form=request.form if carry else None,
                       errors={e.field: str(e)} if isinstance(e, FieldError) else None)
    return flow.to(page, notice=notice)


@bp.post("/o/<admin_token>/start")
def start(admin_token):
    def act(lg):
        sn = seasons.start_season(data.store(), lg.id, lg.organiser_id)
        return ngettext("Season %(season)s has started: %(rounds)s round; round 1 is dealt.",
                        "Season %(season)s has started: %(rounds)s rounds; round 1 is dealt.",
                        sn.rounds) % {"season": sn.number, "rounds": sn.rounds}
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/address")
def new_address(admin_token):
    def act(lg):
        mail = organiser_address(new_organiser_key(data.store(), lg.id),
                                 current_app.config["PBEM_SETTINGS"].mail_domain)
        return _("Your new organiser address is %(address)s: the old one no longer works.") % {
            "address": mail}
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/season")
def add_season(admin_token):
    def act(lg):
        f = request.form
        sn = manage.add_season(data.store(), lg.id, lg.organiser_id,
                               day(f, "starts", N_("the first day")),
                               day(f, "ends", N_("the last day")))
        return _("Season %(season)s is added: it takes entries until %(day)s.") % {
            "season": sn.number, "day": sn.starts.isoformat()}
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/withdraw")
def withdraw(admin_token):
    def act(lg):
        entry_id = whole(request.form, "entry", N_("the entry"))
        if entry_id is None:
            raise LeagueError(_("choose an entry"))
        games = request.form.get("games", "stand")
        entry = manage.withdraw(data.store(), lg.id, lg.organiser_id, entry_id, games)
        if entry.games == "struck":
            return _("%(name)s is out. Its games are struck from the table.") % {
                "name": entry.name}
        return _("%(name)s is out.") % {"name": entry.name}
    return organiser_action(admin_token, act)


@bp.post("/o/<admin_token>/substitute")
def substitute(admin_token):
    def act(lg):
        f = request.form
        game_id, seat = whole(f, "game", N_("the game")), whole(f, "seat", N_("the seat"))
        if game_id is None or seat is None:
            raise LeagueError(_("choose a game and a seat"))
        if is_robot(f.get("who", "")) and _last_person(game_id, seat):
            raise LeagueError(_("a robot cannot take the last person's seat from the web: the "
                                "robots would play the whole game inside one request (the "
                                "command line can: pbem league substitute)"))
        ev = seasons.substitute(data.store(), lg.id, lg.organiser_id, game_id, seat,
                               f.get("who", "")).events[0]
        return _("Game %(game)s, seat %(seat)s: %(new)s plays in place of %(old)s.") % {
            "game": game_id, "seat": seat, "new": ev["in"], "old": ev["out"]}
    return organiser_action(admin_token, act)


def _last_person(game_id: int, seat: int) -> bool:
    """Is `seat` the only one of the game not played by a robot?"""
    with data.store().session() as s:
        people = s.exec(select(Seat.seat).where(Seat.game_id == game_id,
                                                Seat.robot == False)).all()  # noqa: E712
    return list(people) == [seat]


@bp.get("/o/<admin_token>/export.zip")
def export(admin_token):
    """Every game's log and league.json (with the players' addresses): the organiser's only."""
    lg = _by(League.admin_token, admin_token)
    body = archive.zip_bytes(archive.export_league(data.store(), lg.id))
    return Response(body, mimetype="application/zip", headers={
        "Content-Disposition": f'attachment; filename="league-{lg.id}.zip"',
        "Cache-Control": "no-store"})
