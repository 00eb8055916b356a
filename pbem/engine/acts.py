"""At the table: talk (`say`), resignation offers (`concede`) and taking back one's own
last move (`undo`). Each is an event of the log with a check and a step, as in state.py.

`say` and `concede` are QUIET: they change nothing a seat could do with its cards, so
they leave `State.move_seq` (what deadlines and move links are armed at) where it was.
"""

import re
from operator import itemgetter

from .dummy import exposed
from .errors import N_, IllegalAction, Words

QUIET = ("say", "concede")  # talk and offers: no seat's move means anything else after them
TALK_MAX = 300  # characters in one `say`
TALK_KEEP = 30  # the latest talk the state keeps for pages and mails (the log keeps all)
UNDOABLE = ("bid", "play")
# What a bid may change, with what it may set off: the raise round (B7), a moon's skipped
# partners (B10), a Mo, aces or no-trump call, the exchanges after the bidding, the leftover
# cards taken then (D6), the play's start (T4: the declarer). tests/test_undo_exact.py
# finds what is missing here; it names every other field of the state, which no bid changes.
_BID_FIELDS = ("bids", "blind", "looked", "comeout_side", "bid_index", "pass_steps", "phase",
               "after_pass", "must_lead", "turn", "declarer", "playing_hand", "bid_turns",
               "raising", "mo", "aces_called", "no_trump", "discarding", "out")
_BID_LISTS = ("bids", "blind", "looked", "pass_steps", "bid_turns", "aces_called", "no_trump",
              "out")  # the lists: a bid's step may change them in place
# lists of lists a bid changes in place only when it gives the cards left out of the deal
# to the side that bid more (D6), so kept only while cards lie out
_BID_NESTED = ("hands", "passed_to")
# the fields above that a bid changes only under some rules, and the rules under which it
# may; a table keeps only what its own rules can change (`BidKeep`), so a bid of a plain
# game copies half of them
_BID_ONLY_IF = {
    "comeout_side": lambda r: r.bidding == "side" and r.blind_come_out,  # S9
    "raising": lambda r: r.raise_round,  # B7
    "bid_turns": lambda r: r.raise_round or r.moon or r.blind_moon,  # B7, B10's skipped
    "mo": lambda r: r.mo != "none",  # B12
    "aces_called": lambda r: r.aces_bonus,  # S7
    "no_trump": lambda r: r.no_trump,  # B14
    "declarer": lambda r: r.dummy, "playing_hand": lambda r: r.dummy,  # T4
    "discarding": lambda r: r.leftover != "none", "out": lambda r: r.leftover != "none",  # D6
}
# what a bid of a game with none of the rules above changes (BidKeep.names), read by
# _read_plain with the attribute loads Python specializes: half what a generic read costs
_PLAIN_KEPT = ("bids", "blind", "looked", "pass_steps", "bid_index", "phase", "after_pass",
               "must_lead", "turn")


def _read_plain(st) -> tuple:
    return (st.bids[:], st.blind[:], st.looked[:], st.pass_steps[:], st.bid_index, st.phase,
            st.after_pass, st.must_lead, st.turn)


# T4: a card from the dummy comes back to it (the tuple of `_unplay` knows no dummy)
_DUMMY_PLAY_FIELDS = ("trick", "won", "broken", "must_lead", "turn", "dummy_hand",
                      "trick_hands", "playing_hand")
# C0 and C1 controls, DEL, and line/paragraph separators: talk is one line of plain text
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class BidKeep:
    """What a bid's undo point keeps under one ruleset (the card table holds one): the
    fields its rules let a bid change, as `read(st)` gives them: the lists (copied: the
    step may change them in place), then the rest."""

    def __init__(self, rules):
        names = [f for f in _BID_FIELDS if f not in _BID_ONLY_IF or _BID_ONLY_IF[f](rules)]
        lists = [f for f in names if f in _BID_LISTS]  # (bids, blind, looked at least)
        self.names = (*lists, *(f for f in names if f not in _BID_LISTS))
        if self.names == _PLAIN_KEPT:  # most games
            self.read = _read_plain
        else:  # (dict lookups in C: a generic getattr on a State costs a few times more)
            got_lists, got_values = itemgetter(*lists), itemgetter(*self.names[len(lists):])
            self.read = lambda st: (*map(list.copy, got_lists(st.__dict__)),
                                    *got_values(st.__dict__))
        # D6: lists of lists, changed in place only while cards lie out
        self.nested = _BID_NESTED if rules.leftover != "none" else ()

    def __deepcopy__(self, memo):  # one a ruleset, never changed: a copy of a state shares it
        return self

    def __copy__(self):
        return self


def clean_talk(text: str) -> str:
    """One line of talk as people typed it: controls out, runs of spaces as one."""
    return " ".join(_CONTROLS.sub(" ", text).split())


def _need(cond, msg, **values):
    """Refuse with `msg` (a template marked N_, and its values) unless `cond`."""
    if not cond:
        raise IllegalAction(msg, **values)


def _seat(st, ev) -> int:
    seat = ev.get("seat")
    _need(seat.__class__ is int and 0 <= seat < st.n, f"seat {seat!r} is not a seat at this table")
    return seat


# -- say ----------------------------------------------------------------------------------


def check_say(st, ev):
    _seat(st, ev)
    text = ev.get("text")
    _need(isinstance(text, str) and text.strip(), N_("say what? write: say and your words"))
    _need(len(text) <= TALK_MAX, N_("too long: say at most %(most)s characters (this was "
                                    "%(length)s)"), most=TALK_MAX, length=len(text))
    _need(text == clean_talk(text), N_("talk is one line of plain text"))


def step_say(st, ev):
    st.talk.append({"seq": ev["seq"], "seat": ev["seat"], "text": ev["text"]})
    del st.talk[:-TALK_KEEP]


# -- concede: an offer to resign, until the partner agrees ---------------------------------


def resign_events(st, seat: int, action: dict) -> list[dict] | None:
    """A player's {"type": "concede"}: their side's `resign` when no partner is left to ask
    (cutthroat, or every partner offered already), else the offer; None if not a concede."""
    if action.get("type") != "concede" or action.get("off"):
        return None
    mates = [s for s in st.sides[st.side_of[seat]] if s != seat]
    if all(m in st.offers for m in mates):
        return [{"seq": st.seq + 1, "type": "resign", "seat": seat}]
    return None


def check_concede(st, ev):
    seat = _seat(st, ev)
    mates = [s for s in st.sides[st.side_of[seat]] if s != seat]
    _need(mates, N_("you have no partner: resign ends the game for you at once"))
    off = ev.get("off", False)
    _need(off in (True, False), "off is true or false")
    if off:
        _need(seat in st.offers, N_("you have not offered to resign"))
    else:
        _need(seat not in st.offers, N_("you have offered to resign already: your partner "
                                        "decides now (resign off takes it back)"))
        _need(not all(m in st.offers for m in mates), N_("your partner offered already: "
                                                         "agreeing is a resign"))


def step_concede(st, ev):
    if ev.get("off"):
        st.offers.discard(ev["seat"])
    else:
        st.offers.add(ev["seat"])


# -- undo: one's own last bid or card, while no other seat has acted ----------------------


def remember(st, ev) -> list | tuple | None:
    """Before `ev` steps: keep what its step changes if it may be taken back, and forget
    the last undo point once anything but talk or an offer happens. Returns what each seat
    sees now (`sights`, or `_sizes`) where the step may show a seat more, for `mark_shown`
    after it."""
    kind = ev["type"]  # (a card from the own hand: advance() keeps what _unplay needs)
    if kind in QUIET or kind == "undo":
        return None
    st.undo_point = None
    if kind not in UNDOABLE or ev.get("auto"):
        return None  # a card the server played for the seat would only play itself again
    if kind == "play":  # T4: a card from the declarer's or the dummy's hand
        played = {f: _copy(getattr(st, f)) for f in _DUMMY_PLAY_FIELDS}
        played["hand"], played["tricks"] = list(st.hands[ev["seat"]]), len(st.tricks)
        st.undo_point = (ev["seat"], ev["seq"], played, {"type": "play", "card": ev["card"]})
        # once a card is down a card only goes from a hand to the table, where all see it:
        # only the hand's first card may show more (the dummy, T4)
        return None if st.trick or st.tricks else sights(st)
    keep = st.table.bid_keep
    nested = [[list(x) for x in getattr(st, f)] for f in keep.nested] if st.out else None
    # (a list: step_undo tells it from a card's by its class)
    saved = [keep, keep.read(st), nested]
    bid = {"type": "bid", "bid": ev["bid"]}
    if "blind" in ev:
        bid["blind"] = ev["blind"]
    st.undo_point = (ev["seat"], ev["seq"], saved, bid)
    # a bid shows a card only by having a seat look at its cards or handing out cards that
    # lie out (D6), as _BID_FIELDS says: else, most bids, nothing is compared
    return _sizes(st) if st.out or not all(st.looked) else None


def sights(st) -> list[set]:
    """The cards each seat sees that the table does not show to all: its hand once looked
    (with the cards passed to it), the cards it draws from, and the dummy once face up."""
    dummy = st.dummy_hand if exposed(st) else ()
    drawn = st.stock[:2] if st.phase == "draw" else ()  # (the seat to draw sees them)
    return [{*(st.hands[s] if st.looked[s] else ()), *dummy,
             *(drawn if s == st.turn else ())} for s in range(st.n)]


def _sizes(st) -> tuple[list, list]:
    """Which seats have looked at their cards, and how many each holds: enough for a bid,
    which takes no card from a hand (nor shows the dummy or a draw), so a seat sees a new
    card when it looks at a hand or its hand grows once looked at. (Two C-level copies:
    `sights` would cost most bids of a game with blind bids a few per cent of a hand.)"""
    return st.looked[:], list(map(len, st.hands))


def _new_sizes(st, before: tuple[list, list]) -> list[set]:
    """`sights`' difference for a bid, from `_sizes` before it."""
    looked, sizes = before
    if st.looked == looked and list(map(len, st.hands)) == sizes:
        return []
    return [set(hand) if seen and hand and (not was or len(hand) > size) else set()
            for hand, seen, was, size in zip(st.hands, st.looked, looked, sizes, strict=True)]


def mark_shown(st, before) -> None:
    """After a move that may be taken back: if it showed any seat a card it could not see
    before (`before`: `sights`, or `_sizes` for a bid), a player may not take it back and
    move again knowing it. The undo point keeps why (its fifth item): a log written before
    this rule still replays (`check_undo` refuses only a player's undo made now)."""
    point = st.undo_point
    if point is None:
        return
    news = _new_sizes(st, before) if before.__class__ is tuple else [
        now - was for was, now in zip(before, sights(st), strict=True)]
    for seat, new in enumerate(news):
        if new:
            st.undo_point = (*point, _shown_words(st, point[0], seat, new))
            return


def _shown_words(st, undoer: int, seat: int, new: set) -> Words:
    if new & set(st.dummy_hand):
        return Words(N_("you cannot take it back: it showed you the dummy"))
    if seat == undoer:
        return Words(N_("you cannot take it back: it showed you cards you had not seen"))
    return Words(N_("you cannot take it back: it showed seat %(seat)s cards they had not "
                    "seen"), seat=seat)


def _copy(value):
    return list(value) if isinstance(value, list) else value


def undo_target(st, seat: int) -> int | None:
    """The seq of the move `seat` may take back now, if any."""
    point = st.undo_point
    return point[1] if point and point[0] == seat else None


def undoable(st, seat: int) -> dict | None:
    """The move `seat` may take back now ({"seq", "type", "card" or "bid"}), if any."""
    point = st.undo_point
    if not point or point[0] != seat or len(point) > 4:  # (> 4: it showed a card)
        return None
    move = point[3]  # (a card from the seat's own hand: the card alone)
    return {"type": "play", "card": move, "seq": point[1]} if move.__class__ is str else dict(
        move, seq=point[1])


def check_undo(st, ev, live: bool = False):
    """`live`: a player asks now; a logged undo of a move that showed a card (allowed
    before `mark_shown`) replays as it was."""
    seat = _seat(st, ev)
    point = st.undo_point
    _need(point is not None and point[0] == seat, N_(
        "there is no move of yours to take back: only your own last bid or card, before "
        "anyone else acts (not a card that ended the hand, a claim or a card played for you)"))
    if live and len(point) > 4:
        raise IllegalAction(point[4].template, **point[4].values)
    _need(ev.get("undo") == point[1], N_("the move you may take back is move %(move)s"),
          move=point[1])


def step_undo(st, ev):
    saved = st.undo_point[2]
    if saved.__class__ is list:  # a bid
        _unbid(st, *saved)
        st.undo_point = None
        return
    if saved.__class__ is not dict:  # a card from the seat's own hand
        _unplay(st, ev["seat"], saved)
        st.undo_point = None
        return
    saved = dict(saved)
    if "hand" in saved:  # T4's card
        st.hands[ev["seat"]] = saved.pop("hand")
        del st.tricks[saved.pop("tricks"):]
    for name, value in saved.items():  # the saved copies: nothing else holds them
        setattr(st, name, value)
    st.undo_point = None  # one step back only


def _unbid(st, keep, values, nested):
    """Put back what `remember` kept of a bid (the kept copies: nothing else holds them)."""
    for name, value in zip(keep.names, values, strict=True):
        setattr(st, name, value)
    if nested is not None:
        for name, value in zip(keep.nested, nested, strict=True):
            setattr(st, name, value)


def _unplay(st, seat, saved):
    """Take back the card `seat` played last (at its turn), nobody having acted since;
    `saved`: where the card was in the hand, or that and the card it had to lead."""
    at, st.must_lead = saved if saved.__class__ is tuple else (saved, None)
    if not st.trick:  # the card ended its trick: the trick is back on the table
        trick, winner = st.tricks.pop()
        if winner is not None:  # (T6a: a dead trick was won by no one)
            st.won[winner] -= 1
        st.trick = trick
    st.hands[seat].insert(at, st.trick[-1][1])
    st.trick = st.trick[:-1]
    st.turn = seat
    st.broken = _spades_broken(st)


def _spades_broken(st) -> bool:
    """Y3 as the cards on the table leave it: a spade went on another suit's lead."""
    suit = st.table.suit
    tricks = [cards for cards, _ in st.tricks] + [st.trick]
    return any(suit[t[0][1]] != "S" and any(suit[c] == "S" for _, c in t[1:])
               for t in tricks if t)
