"""D6 the cards left over after the deal go to a player, who discards as many (pagat):
"these are given to the dealer. Having looked at all 15 cards, the dealer discards any two
cards face down. Some play that the two extra cards are given to the holder of the two of
clubs, rather than the dealer."

The discard is a `pass` event with no receiver: the cards lie aside unseen, like the
widow, until the hand is over. It comes before any pass to partner and before bidding.
"""


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
    """Hand the leftover cards to their taker and make its discard the first pass step;
    True if it did."""
    taker = leftover_taker(st)
    if taker is None:
        return False
    st.hands[taker] += st.out
    st.passed_to[taker] += st.out  # seen by the taker alone, who looks at its cards
    st.looked[taker] = True
    st.out = []
    st.discarding = True
    st.pass_steps.insert(0, ((taker,), len(st.passed_to[taker])))
    return True
