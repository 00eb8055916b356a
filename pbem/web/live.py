"""A table page that follows its game (issue 14, "a hand in minutes"): a small script
(static/live.js, the only script of the site) asks `/t/TOKEN/seq` every few seconds; the
answer is the game's last move number under an ETag, and 304 when the page's ETag still
holds, read from one indexed max() with no replay of the game. When the game moved the
script loads the table again. Without script the table has a Refresh link."""

from importlib.resources import files

from flask import Blueprint, abort, jsonify, make_response, request
from sqlalchemy import func
from sqlmodel import select

from ..store.models import Move
from . import data

bp = Blueprint("live", __name__)

SCRIPT = files("pbem.web") / "static" / "live.js"


def last_seq(game_id: int) -> int:
    with data.store().reader() as s:
        return s.exec(select(func.max(Move.seq)).where(Move.game_id == game_id)).one() or 0


def etag(game_id: int, seq: int) -> str:
    return f'"{game_id}-{seq}"'


@bp.get("/t/<token>/seq")
def seq(token):
    seat = data.seat_for(token)
    if not seat.accepted:
        abort(404)
    n = last_seq(seat.game_id)
    tag = etag(seat.game_id, n)
    if tag in (t.strip() for t in request.headers.get("If-None-Match", "").split(",")):
        response = make_response("", 304)
    else:
        response = jsonify(seq=n)
    response.headers["ETag"] = tag
    return response


@bp.get("/live.js")
def script():
    response = make_response(SCRIPT.read_bytes())
    response.headers["Content-Type"] = "text/javascript; charset=utf-8"
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response
