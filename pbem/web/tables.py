"""Each player's table, by the personal token link: hand, trick, bids, score, moves."""

from flask import Blueprint, abort, render_template, request, url_for

from .. import orders, owntime, seatclock
from ..deadlines import due_for, record, time_control
from ..engine import parse_action, parse_card
from ..engine.tricks import table_for
from ..i18n import _, ngettext
from ..numbers import whole
from ..play import Refused, settle, submit
from ..signing import ORDER_FORM
from ..store import notes, reviews
from ..store.models import Player
from ..store.models import now as utcnow
from ..vacation import bank, end_vacation, extra_time, start_vacation
from . import data, flow
from .live import etag, last_seq
from .pages import pad_context
from .view import answers, move_links, seat_view, side_labels
from .words import (
    bid_text,
    clock_words,
    count,
    done,
    on_vacation,
    time_words,
    welcome_back,
)

bp = Blueprint("tables", __name__)


def back(token, notice=None, error=None, **kw):
    """The answer to every POST of a table: 303 to the table, which says how it went."""
    return flow.to(url_for("tables.table", token=token), notice=notice, error=error, **kw)


def render_table(token, seat):
    t = data.load(seat.game_id)
    v = seat_view(t, seat.seat)
    links = move_links(t, seat.seat, v)
    pass_count = next((a["count"] for a in v["legal"] if a["type"] == "pass"), 0)
    may_keep = {"type": "pass", "count": 0} in v["legal"]  # a nil bidder may skip the exchange
    now = utcnow()
    player, joined = _player(seat.player_id)
    due = {s: (clock_words(player, d), time_left(d - now))  # on the viewer's clock
           for s, d in due_for(data.store(), t.game.id, t.state.move_seq).items()}
    mine = record(data.store(), seat.player_id) if seat.player_id else None
    clock_bank = _clock_bank(t.game, seat, now)
    settings = dict(player.prefs or {}) if player else {}
    with data.store().reader() as s:  # the seat's own orders: no other page shows them
        given = list(dict.fromkeys(r.text for r in orders.pending(s, seat.game_id, seat.seat)))
    with data.store().reader() as s:  # finished hands only: the clock stores their reviews
        review = hand_reviews(s, t)
    own_notes = notes.on_game(data.store(), seat.game_id, seat.player_id) \
        if seat.player_id and not seat.robot else None  # the author's alone
    return render_template("web/table.html", v=v, seat=seat, token=token, links=links,
                           pass_count=pass_count, may_keep=may_keep, due=due,
                           answers=answers(t),
                           errors=flow.carried().get("errors") or {},
                           orders=given, ahead=_ahead_bids(t.state, seat.seat), record=mine,
                           order_form=order_form(seat, t.state),
                           vacation=settings.get("vacation_until"),
                           bank=bank(settings, now.date(), joined)[0], clock_bank=clock_bank,
                           live_etag=etag(t.game.id, last_seq(t.game.id)), notes=own_notes,
                           note_most=(notes.MAX_NOTES, notes.MAX_TEXT), review=review,
                           **pad_context(t))  # pad_context brings t


def _clock_bank(game, seat, now) -> str | None:
    """With a bank clock, what this seat's bank holds now ("2 days 4 h"): its own page only
    says its own."""
    tc = time_control(game)
    if tc["clock"] != "bank" or not seat.player_id:
        return None
    with data.store().reader() as s:
        clock = seatclock.for_game(s, game.id).get(seat.seat)
        player = s.get(Player, seat.player_id)
        return owntime.describe(seatclock.left(tc, clock, player, now))


def _ahead_bids(st, seat: int) -> list:
    """The bids the seat may give ahead now (none unless its turn to bid is still to come);
    whether each is allowed is checked at that turn."""
    if not orders.may_bid_ahead(st, seat):
        return []
    r = st.rules
    return (["nil"] if r.nil else []) + list(range(r.bid_min, r.max_bid + 1))


def time_left(delta) -> str:
    return time_words(max(0, int(delta.total_seconds() // 3600)))


def _player(player_id) -> tuple[Player | None, object]:
    """The seat's player and the day they joined (their vacation bank fills from it)."""
    if not player_id:
        return None, None
    with data.store().reader() as s:
        player = s.get(Player, player_id)
        return player, player.created.date()


@bp.post("/t/<token>/vacation")
def vacation(token):
    """Vacation from the player's page: N days from the bank, or back early."""
    seat = data.seat_for(token)
    if not seat.player_id:
        abort(404)
    days = request.form.get("days", "")
    if data.load(seat.game_id).state.phase == "over":
        return back(token, error=_("This game is over: take a vacation from your home page "
                                   "(Your games), where your other games are."))
    try:
        if days == "off":
            returned = end_vacation(data.store(), seat.player_id)
            return back(token, notice=welcome_back(returned))
        until = start_vacation(data.store(), seat.player_id, _whole(days))
    except ValueError as e:
        return back(token, error=_("No vacation: %(why)s.") % {"why": e})
    return back(token, notice=on_vacation(until))


def _whole(text: str) -> int:
    days = whole(text)
    if days is None:  # "-30", "2.5", "1e3", "²": not a number of days
        raise ValueError(_("a vacation is a whole number of days, at least 1"))
    return days


def order_form(seat, st) -> str:
    """The order forms' hidden `form` field, signed and new for each page shown (the
    Signer's own id): it names the game, seat and hand, and the orders it gives keep its id
    as their ref (as a mail's keep its line's), so a form sent twice keeps them once."""
    return data.signer(ORDER_FORM).dumps({"g": seat.game_id, "s": seat.seat, "h": st.hand_no})


def _form_ref(seat, st) -> str:
    """The ref the posted order form gives its orders; ValueError says why the form is no
    good (not ours, another seat's, an earlier hand's)."""
    try:
        d = data.signer(ORDER_FORM).loads(request.form.get("form", ""))
    except ValueError:
        raise ValueError(_("this form is out of date")) from None
    if (d.get("g"), d.get("s")) != (seat.game_id, seat.seat):
        raise ValueError(_("this form is for another seat"))
    if d.get("h") != st.hand_no:
        raise ValueError(_("this form was for an earlier hand"))
    return f"web:{seat.game_id}:{seat.seat}:{d['n']}"


@bp.post("/t/<token>/orders")
def give_orders(token):
    """Orders from the table page: a line as by mail, a bid ahead, or clear them all. Each
    once: a form sent again (a double click) keeps nothing more."""
    seat = data.seat_for(token)
    st = data.load(seat.game_id).state
    try:
        ref = _form_ref(seat, st)
    except ValueError as e:
        return back(token, error=_("Nothing was changed: %(why)s. Here is the table as it is "
                                   "now: try again.") % {"why": e})
    if "bid" in request.form:
        return _bid_ahead(token, seat, st, request.form["bid"][:20], ref)
    if request.form.get("clear"):
        n = orders.clear(data.store(), seat.game_id, seat.seat)
        return back(token, notice=count(n, "%(num)s order dropped.", "%(num)s orders dropped."))
    line = request.form.get("order", "").strip()[:100]
    try:
        kept = orders.give(data.store(), seat.game_id, seat.seat, line, st, ref)
        settle(data.store(), seat.game_id)
    except (ValueError, Refused) as e:
        return back(token, error=_("Nothing was kept: see your order below."), form={
            "order": line}, errors={"order": _("No order: %(why)s") % {
                "why": getattr(e, "reason", e)}})
    if kept[0].text != line:
        return _sent_twice(token, "order")
    return back(token, notice=ngettext("%(num)s order kept: %(line)s",
                                       "%(num)s orders kept: %(line)s", len(kept))
                % {"num": len(kept), "line": line})


def _bid_ahead(token, seat, st, bid: str, ref: str):
    """A bid button of a seat whose turn to bid has not come: kept for that turn."""
    try:
        action = parse_action(f"bid {bid}", st.rules)
        kept = orders.give_bid(data.store(), seat.game_id, seat.seat, action,
                               f"bid {action['bid']}", st, ref)
        settle(data.store(), seat.game_id)  # its turn may have come meanwhile
    except (ValueError, Refused) as e:
        return back(token, error=_("No bid ahead: %(why)s") % {"why": getattr(e, "reason", e)})
    if kept.text != f"bid {action['bid']}":
        return _sent_twice(token, "bid")
    return back(token, notice=_("Kept: bid %(bid)s, made at your turn.") % {
        "bid": bid_text(action["bid"])})


def _sent_twice(token, what: str):
    """The form kept other orders before (sent, then changed and sent again): they stand."""
    words = {"bid": _("Nothing more was kept: this form was sent already, with another bid, "
                      "and what it kept stands (below). Give a new bid here."),
             "order": _("Nothing more was kept: this form was sent already, with another "
                        "order, and what it kept stands (below). Give a new order here.")}
    return back(token, error=words[what])


@bp.post("/t/<token>/extra")
def extra(token):
    """A player gives the others more time for the move they are waiting on."""
    seat = data.seat_for(token)
    hours = request.form.get("hours", "")
    if hours not in ("24", "48"):
        return back(token, error=_("Extra time is 24 or 48 hours."))
    try:
        extra_time(data.store(), seat.game_id, int(hours), by=seat.seat)
    except ValueError as e:
        return back(token, error=_("No extra time: %(why)s.") % {"why": e})
    return back(token, notice=_("The players to act have %(hours)s more hours.") % {
        "hours": hours})


@bp.get("/t/<token>")
def table(token):
    seat = data.seat_for(token)
    if not seat.accepted:
        abort(404)
    return render_table(token, seat)


@bp.post("/t/<token>/move")
def move(token):
    """A move from the table's own buttons (or the pass form), at the seq it was shown."""
    seat = data.seat_for(token)
    form = request.form
    seq = form.get("seq", "")
    try:
        action = _action(form)
        if whole(seq) is None:
            raise ValueError("no move number")
    except (ValueError, KeyError):  # a hand-made form: its words say nothing to a player
        return back(token, error=_("That move was not understood: use the buttons on the "
                                   "page. Nothing was played."))
    try:
        submit(data.store(), seat.game_id, seat.seat, action, expect_seq=whole(seq),
               source="web")
    except Refused as e:
        return back(token, error=_("Not played: %(why)s") % {"why": e.reason})
    return back(token, notice=done(action))


@bp.get("/t/<token>/deal/<int:seq>")
def deal(token, seq):
    """A finished hand's deal with its salt, so a player can check the commitment shown
    at the deal. Only once the salt is revealed (the hand is over)."""
    seat = data.seat_for(token)
    if not seat.accepted:
        abort(404)
    t = data.load(seat.game_id)
    salt = t.state.reveals.get(seq)
    if salt is None:
        abort(404)
    ev = data.event(seat.game_id, seq)
    return render_template("web/deal.html", t=t, token=token, deal=ev, salt=salt,
                           table=table_for(t.state.rules))


def _bid(word: str) -> int | str:
    """A bid button's value: a number in ASCII digits, or a word (nil)."""
    number = whole(word, 99)
    return word if number is None else number


def _action(form) -> dict:
    kind = form["type"]
    if kind == "pass":
        return {"type": "pass", "cards": [parse_card(c) for c in form.getlist("card")]}
    if kind == "play":
        return {"type": "play", "card": parse_card(form["card"])}
    if kind == "bid":
        bid = form["bid"]
        action = {"type": "bid", "bid": _bid(bid)}
        if form.get("blind"):
            action["blind"] = True
        if form.get("mo"):  # B12
            action["mo"] = form["mo"]
        if form.get("aces"):  # S7
            action["aces"] = True
        return action
    if kind == "draw":
        return {"type": "draw", "keep": form["keep"] == "1"}
    if kind in ("look", "claim", "misdeal", "come_out", "stay"):
        return {"type": kind}
    raise ValueError(f"no such move: {kind}")



REVIEWS_SHOWN = 5  # the latest hands' reviews on the table page


def hand_reviews(s, t) -> dict:
    """The stored reviews of the game's finished hands (newest first) in words, and the
    hints each seat took: the score pad's part for issue 33."""
    stored = reviews.of_game(s, t.game.id)
    labels = side_labels(t.state, t.names)
    shown = [(hand, reviews.describe(stored[hand], t.names, labels))
             for hand in sorted(stored, reverse=True)[:REVIEWS_SHOWN]]
    return {"hands": shown, "hints": reviews.hint_words(t.names, [x.hints for x in t.seats])}
