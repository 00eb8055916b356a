"""T4 three players with an exposed dummy (pagat: Dan Corkill's 'Dummy Hand' Spades):
"four hands are dealt, three to the players and one dummy, and the highest bidder plays
with the dummy hand as a partner, the dummy being exposed, bridge-style."

Where the seed says no more, this follows bridge, which it names:
- the highest bid wins the dummy; of equal bids the first made (the later bidder could
  have bid more); a moon promises every trick, nil none;
- the dummy sits opposite its declarer: the play goes declarer, the next seat clockwise,
  the dummy, the third seat;
- the dummy is face up for everyone once the hand's first card is led, and for nobody,
  its declarer included, before;
- the declarer plays the dummy's cards at the dummy's turn (a `play` of its own seat);
  the dummy's tricks are the declarer's, whose bid covers both hands.

The dummy's position is `st.n` in `st.trick_hands` (which hand played each card of the
trick); a trick's cards and winner name people's seats only, so pads and pages need no
fourth seat.
"""

from .rules import promised


def dummy_at(st) -> int:
    """The dummy's position in the play order (after the people's seats)."""
    return st.n


def choose_declarer(st) -> None:
    """At the start of the play: the highest bidder takes the dummy."""
    first = st.dealer if st.rules.bid_order == "dealer" else (st.dealer + 1) % st.n
    order = [(first + i) % st.n for i in range(st.n)]  # the bidding's order (B1, B1a)
    hs = st.rules.hand_size
    st.declarer = max(order, key=lambda s: (promised(st.bids[s], hs), -order.index(s)))


def play_order(st) -> list[int]:
    """The four hands in the order they play: declarer, left, dummy, right."""
    d = st.declarer
    return [d, (d + 1) % st.n, dummy_at(st), (d + 2) % st.n]


def hand_in_play(st, seat: int) -> list[str]:
    """The cards `seat` plays from now: the dummy's at its turn, when `seat` declared."""
    if st.playing_hand == dummy_at(st) and seat == st.declarer:
        return st.dummy_hand
    return st.hands[seat]


def next_hand(st, hand: int) -> None:
    """Turn to the hand after `hand` in the play order (its controller acts)."""
    order = play_order(st)
    set_hand(st, order[(order.index(hand) + 1) % len(order)])


def set_hand(st, hand: int) -> None:
    st.playing_hand = hand
    st.turn = st.declarer if hand == dummy_at(st) else hand


def exposed(st) -> bool:
    """Is the dummy face up? From the first card led until the hand is over."""
    return st.declarer is not None and st.phase == "play" and bool(st.trick or st.tricks)


def dummy_view(st) -> dict | None:
    """What everyone sees of the dummy: who plays it, and its cards once exposed."""
    if st.declarer is None or st.phase != "play":
        return None
    shown = {"declarer": st.declarer, "size": len(st.dummy_hand), "hand": None}
    if exposed(st):
        shown["hand"] = list(st.dummy_hand)
        shown["on_turn"] = st.playing_hand == dummy_at(st)
    return shown


def add_dummy(st, v: dict) -> None:
    """A view's dummy: who plays it, its cards once exposed, and which played cards were
    its own (public once played, like every card on the table)."""
    shown = dummy_view(st)
    if shown is not None:
        v["dummy"] = shown
    if st.dummy_dealt:
        own = set(st.dummy_dealt)
        for x in v["trick"] + [x for t in v["tricks"] for x in t["cards"]]:
            if x["card"] in own:
                x["dummy"] = True
