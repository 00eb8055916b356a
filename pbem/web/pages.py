"""Public pages: the list of games, each game's score pad, the demo (starting a game with
friends is pbem.web.newgame)."""

import secrets

from flask import (
    Blueprint,
    abort,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from sqlmodel import select

from ..engine import PRESETS, preset, score_pad
from ..league.verdicts import describe
from ..play import start
from ..store.games import create_game, player_for
from ..store.models import Seat
from . import data, pad_cache
from .chart import score_svg
from .signin import signed_in
from .view import pad_rows, side_labels

bp = Blueprint("pages", __name__)


@bp.get("/")
def index():
    return render_template("web/index.html", games=data.public_games(), presets=list(PRESETS))


@bp.get("/g/<int:game_id>")
def pad(game_id):
    """The score pad, rendered once per game and seq (pbem.web.pad_cache), 304 when the
    browser has it already."""
    public, seq, names = data.head(game_id)
    if not public:
        abort(404)  # a private game's pad is on its players' tables only
    signed = signed_in() is not None
    k = pad_cache.key(data.store().url, game_id, seq, names, signed)
    if request.if_none_match.contains(pads().etag(k)):
        return _tagged(make_response("", 304), k)
    html = pads().get(k)
    if html is None:
        k, html = _render_pad(game_id, signed)
    return _tagged(make_response(html), k)


def pads() -> pad_cache.Pads:
    """This app's rendered pads (pbem.web.app puts them there)."""
    return current_app.extensions["pbem.pads"]


def _render_pad(game_id: int, signed: bool) -> tuple[tuple, str]:
    with data.viewing(game_id) as t:  # read only: no copy of the state
        k = pad_cache.key(data.store().url, game_id, t.state.seq, t.names, signed)
        html = render_template("web/pad.html", **pad_context(t))
    pads().put(k, html)  # under the seq rendered: the game may have moved since `head`
    return k, html


def _tagged(response, k: tuple):
    """The pad's own headers (guard.headers adds every page's)."""
    response.set_etag(pads().etag(k))
    response.headers.update({"Cache-Control": "no-cache", "Vary": "Cookie"})
    return response


def pad_context(t) -> dict:
    p = score_pad(t.state)
    labels = side_labels(t.state, t.names)
    return {"t": t, "pad": p, "rows": pad_rows(p), "labels": labels,
            "chart": score_svg(p, labels, t.state.rules.target),
            "rulings": [describe(r) for r in t.state.rulings[-1:]]}  # pbem.league.verdicts


@bp.post("/demo")
def demo():
    """One click: a game against three robots, and straight to its table."""
    st_ = data.store()
    email = f"demo-{secrets.token_hex(6)}@demo.test"  # .test: never delivered (RFC 2606)
    gid = create_game(st_, preset("standard"), [email, "robot", "robot", "robot"],
                      public=False)  # a demo is its player's own: not a "public game"
    with st_.session() as s:
        you = player_for(s, email)
        you.name = "You"
        s.add(you)
        s.commit()
    start(st_, gid)
    with st_.session() as s:
        seat = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 0)).one()
    return redirect(url_for("tables.table", token=seat.token), 303)
