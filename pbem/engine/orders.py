"""Orders a player gives ahead (issue 14), so one mail can carry several turns:

    play QH then KH        the next cards this seat plays, in order
    lead AS next           the card it leads, the next time it leads
    if hearts are led play 2H     one card, the next time that suit is led to it
    follow low in clubs    whenever clubs are led to it: its lowest club (standing)

`read(text)` turns a line into orders (None: not an order); `next_card(st, seat, orders)`
says which order acts now, and with what card, or which can no longer be kept. Orders are
only ever the seat's own cards and only ever decided on what that seat can see.
"""

import re

from .cards import SUIT_NAMES, parse_card

_SUIT = {name: s for s, name in SUIT_NAMES.items()} | {n[:-1]: s for s, n in SUIT_NAMES.items()}
_THEN = re.compile(r"^(?:play\s+)?(.+?)\s+then\s+(.+)$")
_LEAD = re.compile(r"^lead\s+(.+?)\s+next$")
_IF = re.compile(r"^if\s+(\w+)\s+(?:are|is)?\s*led,?\s+play\s+(.+)$")
_LOW = re.compile(r"^follow\s+low\s+in\s+(\w+)$")
MAX_ORDERS = 13  # a hand's worth: a seat never has more cards to order


def read(text: str) -> list[dict] | None:
    """The orders a line gives, or None if it is no order; ValueError if it is one, badly
    written (a word that is no card or suit)."""
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
    return None


def _suit(word: str) -> str:
    if word not in _SUIT:
        raise ValueError(f"{word!r} is not a suit")
    return _SUIT[word]


def next_card(st, seat: int, orders: list[dict]) -> tuple[int, str | None]:
    """For `seat` to play now: (index of the order that acts, its card), or (index, None)
    for an order that can no longer be kept (drop it), or (-1, None) when none acts. The
    first order, in the order given, whose moment has come acts."""
    if st.phase != "play" or st.turn != seat:
        return -1, None
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
    return -1, None
