"""Orders a player gives ahead (issue 14), so one mail can carry several turns:

    play QH then KH        the next cards this seat plays, in order
    lead AS next           the card it leads, the next time it leads
    if hearts are led play 2H     one card, the next time that suit is led to it
    follow low in clubs    whenever clubs are led to it: its lowest club (standing);
    duck in clubs          the same
    cover in hearts        whenever hearts are led to it: its lowest heart that beats the
    cover                  trick, or its lowest heart when it cannot win, the trick is
                           trumped or its partner wins it (standing; `cover` alone: every
                           suit but spades, which are covered only by name)
    bid 4                  given before its turn to bid: made at that turn (pbem.orders
                           keeps it; `bid_order` reads it from a bid action)

`read(text)` turns a line into orders (None: not an order); `next_card(st, seat, orders)`
says which order acts now, and with what card, or which can no longer be kept; `next_bid`
the same for a bid order. Orders are only ever the seat's own cards and only ever decided
on what that seat can see. A standing order never acts for a seat that cannot follow the
suit led: a void seat's discard is its player's choice.
"""

import re

from .cards import SUIT_NAMES, SUITS, parse_card
from .errors import N_, Refusal
from .rules import NILS
from .words import english as in_english

_SUIT = {name: s for s, name in SUIT_NAMES.items()} | {n[:-1]: s for s, n in SUIT_NAMES.items()}
_THEN = re.compile(r"^(?:play\s+)?(.+?)\s+then\s+(.+)$")
_LEAD = re.compile(r"^lead\s+(.+?)\s+next$")
_IF = re.compile(r"^if\s+(\w+)\s+(?:are|is)?\s*led,?\s+play\s+(.+)$")
_LOW = re.compile(r"^(?:follow\s+low|duck)\s+in\s+(\w+)$")
_COVER = re.compile(r"^cover(?:\s+in\s+(\w+))?$")
COVERED = tuple(s for s in SUITS if s != "S")  # `cover` alone: spades only by name
STANDING = ("low", "cover")  # they act each time their suit is led, for the whole hand
MAX_ORDERS = 13  # a hand's worth: a seat never has more cards to order


def read(text: str) -> list[dict] | None:
    """The orders a line gives, or None if it is no order; ValueError if it is one, badly
    written (a word that is no card or suit). The order words are English; its cards,
    suits and "then" may be German, French, Spanish or Portuguese (pbem.engine.words):
    "joue dame de cœur puis roi de cœur", "follow low in Kreuz"."""
    try:
        found = _read(text)
    except ValueError as e:  # "lead as de picas next": an order, its card not English
        return _foreign(text, e)
    return found if found is not None else _foreign(text, None)


def _foreign(text: str, english: ValueError | None) -> list[dict] | None:
    """The orders of the line's English reading; English's own error where it has one."""
    reading = in_english(text)
    if reading is None:
        if english is not None:
            raise english
        return None
    try:
        return _read(reading)
    except ValueError:
        if english is not None:
            raise english from None
        raise


def _read(text: str) -> list[dict] | None:
    line = " ".join(text.lower().split())
    if m := _THEN.match(line):
        cards = [m.group(1)] + re.split(r"\s+then\s+(?:play\s+)?", m.group(2))
        return [{"kind": "play", "card": parse_card(c)} for c in cards][:MAX_ORDERS]
    if m := _LEAD.match(line):
        return [{"kind": "lead", "card": parse_card(m.group(1))}]
    if m := _IF.match(line):
        return [{"kind": "follow", "suit": _suit(m.group(1)), "card": parse_card(m.group(2))}]
    if m := _LOW.match(line):
        return [{"kind": "low", "suit": _suit(m.group(1))}]
    if m := _COVER.match(line):
        return [{"kind": "cover", "suits": [_suit(m.group(1))] if m.group(1) else list(COVERED)}]
    return None


def bid_order(action: dict) -> dict:
    """A bid action (pbem.engine.parse_action) as an order; ValueError for a blind bid,
    which is made at one's turn before looking, never ahead."""
    if action.get("type") != "bid":
        raise Refusal(N_("only a bid can be given ahead of the bidding"))
    if action.get("blind") or action.get("bid") == "blind nil":
        raise Refusal(N_("a blind bid cannot be given ahead: it is made at your turn, "
                         "before you look at your cards"))
    return {"kind": "bid", "bid": action["bid"]}


def next_bid(st, seat: int, orders: list[dict]) -> tuple[int, dict | None]:
    """For `seat`, when it is to bid: (index of its bid order, the bid action), or (index,
    None) when that bid is not allowed now (drop it), or (-1, None)."""
    if st.phase != "bid" or st.comeout_side is not None or st.bids[seat] is not None \
            or seat not in st.bid_turns[st.bid_index]:
        return -1, None
    for i, order in enumerate(orders):
        if order["kind"] == "bid":
            ok = st.bid_allowed(seat, order["bid"], False)
            return i, {"type": "bid", "bid": order["bid"]} if ok else None
    return -1, None


def _suit(word: str) -> str:
    if word not in _SUIT:
        raise Refusal(N_("%(word)s is not a suit"), word=repr(word))
    return _SUIT[word]


def next_card(st, seat: int, orders: list[dict]) -> tuple[int, str | None]:
    """For `seat` to play now: (index of the order that acts, its card), or (index, None)
    for an order that can no longer be kept (drop it), or (-1, None) when none acts. The
    first order, in the order given, whose moment has come acts."""
    if st.phase != "play" or st.turn != seat or st.hand_of(seat) is not st.hands[seat]:
        return -1, None  # T4: orders are for the seat's own cards, never the dummy's
    legal = st.playable(seat)
    led = st.table.suit[st.trick[0][1]] if st.trick else None
    for i, order in enumerate(orders):
        kind, card = order["kind"], order.get("card")
        if kind == "play" or (kind == "lead" and led is None) or \
                (kind == "follow" and led == order["suit"]):
            return i, card if card in legal else None
        if kind == "low" and led == order["suit"]:
            mine = [c for c in legal if st.table.suit[c] == led]
            low = min(mine, key=st.table.power.__getitem__) if mine else None
            return i, low
        if kind == "cover" and led in order["suits"]:
            card = _cover(st, seat, [c for c in legal if st.table.suit[c] == led])
            if card is not None:  # void in the suit: the player decides
                return i, card
    return -1, None


def _cover(st, seat: int, mine: list[str]) -> str | None:
    """The lowest of `mine` that wins the trick; the lowest of all when none can, the
    trick is trumped, or a partner wins it (one who bid nil is covered, as the robot
    does: pbem.engine.robot)."""
    if not mine:
        return None
    table = st.table
    mine = sorted(mine, key=table.power.__getitem__)
    led = table.suit[st.trick[0][1]]
    if led != "S" and any(table.suit[c] == "S" for _, c in st.trick):
        return mine[0]
    ahead = st.trick[table.winning(st.trick)][0]
    if st.side_of[ahead] == st.side_of[seat] and not _nil(st, ahead):
        return mine[0]
    return next((c for c in mine if table.beats(c, st.trick)), mine[0])


def _nil(st, seat: int) -> bool:
    """A nil bidder not yet set: its partner takes its tricks over."""
    return st.bids[seat] in NILS and st.won[seat] == 0


def bids_later(st, seat: int) -> bool:
    """Is the seat's turn to bid still to come in this bidding (so it may bid ahead)?"""
    if st.phase != "bid" or st.comeout_side is not None or st.bids[seat] is not None:
        return False
    return seat in [s for turn in st.bid_turns[st.bid_index + 1:] for s in turn]
