"""D6 the cards left over after the deal go to a player, who discards as many (pagat):
"these are given to the dealer. Having looked at all 15 cards, the dealer discards any two
cards face down. Some play that the two extra cards are given to the holder of the two of
clubs, rather than the dealer. Some play that the discard takes place after the bidding."
And Michael Mitchell's variation (pagat): "the two cards remaining after the deal are taken
by the team that bids the greater number of tricks ... If the teams bid equal numbers of
tricks ... each team gets one of the remaining cards ... the player(s) who have taken the
extra cards discard unwanted cards face down ... before the play begins."

The discard is a `pass` event with no receiver: the cards lie aside unseen, like the
widow, until the hand is over. The dealer's or 2C holder's discard comes before any pass
to partner and before bidding, or (leftover_after_bid) first after the bidding; the
higher-bidding side takes the cards only once the bidding is over, then discards.
"""

from .rules import promised


def leftover_taker(st) -> int | None:
    """The seat that takes the leftover cards this hand, or None."""
    way = st.rules.leftover
    if way not in ("dealer", "two_clubs") or not st.out:
        return None
    if way == "dealer":
        return st.dealer
    clubs = [(st.table.power[c], s) for s in range(st.n) for c in st.hands[s]
             if st.table.suit[c] == "C"]
    return min(clubs)[1] if clubs else st.dealer  # the 2C, or the lowest club dealt


def give_leftover(st) -> bool:
    """Hand the leftover cards to their taker (after the deal); True if its discard is the
    first pass step now, False if there is none or it waits for the bidding's end."""
    taker = leftover_taker(st)
    if taker is None:
        return False
    _take(st, taker, st.out)
    st.out = []
    if st.rules.leftover_after_bid:  # the taker bids with them, discards after the bidding
        return False
    _discard_first(st, ((taker,), len(st.passed_to[taker])))
    return True


def leftover_after_bidding(st) -> None:
    """Once the bidding is over: the discard that waits for it, or the higher-bidding
    side taking the leftover cards (each side one when the bids are equal)."""
    r = st.rules
    if r.leftover == "high_side" and st.out and not st.unbid:  # unbid (B13): a widow
        takers = _high_side_takers(st)
        for i, seat in enumerate(takers):
            _take(st, seat, st.out[i::len(takers)])
        k = len(st.out) // len(takers)
        st.out = []
        _discard_first(st, (tuple(takers), k))
    elif r.leftover_after_bid and (holder := leftover_taker_holding(st)) is not None:
        _discard_first(st, ((holder,), len(st.hands[holder]) - r.hand_size))


def leftover_taker_holding(st) -> int | None:
    """The seat holding more cards than the hand size (it took the leftover), or None."""
    return next((s for s in range(st.n) if len(st.hands[s]) > st.rules.hand_size), None)


def _high_side_takers(st) -> list[int]:
    """The taking seat of the side that bid more, or one seat of each side on equal bids.
    The seed lets the side agree who takes them; here the side's higher bidder does (the
    earlier bidder on equal bids), so no extra round of mail is needed."""
    hs = st.rules.hand_size
    order = [s for turn in st.bid_turns for s in turn]
    totals = [sum(promised(st.bids[s], hs) for s in side) for side in st.sides]
    best = max(totals)
    taking = [i for i, t in enumerate(totals) if t == best]
    takers = []
    for i in sorted(taking, key=lambda i: min(order.index(s) for s in st.sides[i])):
        side = sorted(st.sides[i], key=order.index)
        takers.append(max(side, key=lambda s: promised(st.bids[s], hs)))
    return takers


def _take(st, seat: int, cards: list[str]) -> None:
    st.hands[seat] += cards
    st.passed_to[seat] += cards  # seen by the taker alone, who looks at its cards
    st.looked[seat] = True


def _discard_first(st, step) -> None:
    st.discarding = True
    st.pass_steps.insert(0, step)
