"""B15 forced-bid games (docs/rules.md): whiz, mirror and suicide decide which bids are open.

- whiz: bid the number of spades you hold, or nil (blind nil too, where it is open);
- mirror: bid the number of spades you hold (none: nil, or 0 where nil is off);
- suicide: one partner of each side bids nil, the other a number (at least `side_min`,
  which the B4 test enforces once the nil is in).
A spade is any card that follows as a spade (jokers, promoted deuces). A count outside
bid_min..max_bid is brought inside it. A seat that has not looked may only bid blind nil:
the bids offered must not tell it how many spades it holds.
"""

from .rules import NILS


def forced_fits(st, seat):
    """A test of one bid against the forced-bid rule, or None if bids are free."""
    mode = st.rules.forced_bids
    if mode == "none":
        return None
    if not st.looked[seat]:
        return lambda bid: bid == "blind nil"
    if mode == "suicide":
        return _suicide(st, seat)
    count = spade_count(st, seat)
    if mode == "whiz":
        return lambda bid: bid in NILS or bid == count
    zero = "nil" if st.rules.nil else 0
    return lambda bid: bid == (count if count else zero)


def spade_count(st, seat) -> int:
    """The seat's spades, brought within the numbers it may bid."""
    r = st.rules
    held = sum(1 for c in st.hands[seat] if st.table.suit[c] == "S")
    if held == 0:
        return 0
    return min(max(held, r.bid_min), r.max_bid)


def _suicide(st, seat):
    r = st.rules
    mates = [st.bids[m] for m in st.sides[st.side_of[seat]] if m != seat]
    said = [b for b in mates if b is not None]
    if said:
        mate_nil = said[0] in NILS
        return lambda bid: (bid in NILS) != mate_nil
    # the first of the side: a number must already reach the side's minimum alone
    return lambda bid: bid in NILS or (bid.__class__ is int and bid >= r.side_min)
