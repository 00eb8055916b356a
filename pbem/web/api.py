"""JSON for each page's data (docs/api.md), so other clients can be written."""

from flask import Blueprint, abort, jsonify

from ..engine import score_pad
from . import data
from .view import seat_view

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/games")
def games():
    return jsonify([{"id": g.id, "preset": g.rules.get("preset"), "status": g.status,
                     "url": f"/g/{g.id}"} for g in data.public_games()])


@bp.get("/g/<int:game_id>")
def pad(game_id):
    t = data.load(game_id)
    if not t.game.public:
        abort(404)
    return jsonify(dict(score_pad(t.state), id=game_id, seats=t.names, phase=t.state.phase,
                        seq=t.state.seq))


@bp.get("/t/<token>")
def table(token):
    seat = data.seat_for(token)
    if not seat.accepted:
        abort(404)
    t = data.load(seat.game_id)
    v = seat_view(t, seat.seat)
    keep = ("seat", "seq", "phase", "hand_no", "dealer", "to_act", "sides", "hand",
            "hand_sizes", "bids", "blind", "won", "trick", "tricks", "spades_broken", "over",
            "winner", "legal", "looked", "deal_commitment", "last_deal", "passed", "received",
            "rules", "talk", "offers", "undo", "mo", "dummy")
    return jsonify(dict({k: v[k] for k in keep if k in v}, game=seat.game_id, names=t.names))
