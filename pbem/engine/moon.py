"""B10 moon (Boston) and blind moon: a side bids to take every trick.

pagat: "Moon or Boston - This is a bid to take all 13 tricks and is worth 200 points. The
side loses 200 points if they fail to take all the tricks. If playing with 10-for-200 the
Moon or Boston is worth 500 points. Some people play that a successful Moon bid
automatically wins the game". "Blind moon - This is a bid to take all 13 tricks, made
before either partner has looked at their cards. It is worth 400 points if it succeeds,
and the side loses 400 points if it fails."

The moon is the side's contract: a partner still to bid is skipped (nothing is left to
bid), a partner's number bid before it is part of it, and a side with a nil bid may not
bid moon (its nil bidder could not take a trick). One moon a hand.
"""

from .rules import MOONS, NILS


def moon_options(st, seat, side_unlooked: bool) -> list[dict]:
    """The moon bids open to `seat` now."""
    r = st.rules
    if not (r.moon or r.blind_moon) or any(b in MOONS for b in st.bids):
        return []
    if any(st.bids[m] in NILS for m in st.sides[st.side_of[seat]]):
        return []
    out = [{"bid": "blind moon"}] if r.blind_moon and side_unlooked else []
    if r.moon:  # like a number, a moon may be bid without looking first (and then looks)
        out.append({"bid": "moon"})
    return out


def skip_partners(st, seat):
    """After a moon, the bidder's partners have nothing to bid: drop their turns."""
    mates = set(st.sides[st.side_of[seat]]) - {seat}
    for m in mates:
        st.looked[m] = True  # no blind bid is left to them: they see their cards
    done, rest = st.bid_turns[: st.bid_index + 1], st.bid_turns[st.bid_index + 1:]
    st.bid_turns = done + [t for t in rest if not set(t) & mates]


def moon_score(st, side_index, side) -> dict | None:
    """The side's hand result if it bid a moon: all the tricks, or the value lost."""
    r = st.rules
    caller = next((s for s in side if st.bids[s] in MOONS), None)
    if caller is None:
        return None
    bid = st.bids[caller]
    value = r.blind_moon if bid == "blind moon" else r.moon
    tricks = sum(map(st.won.__getitem__, side))
    made = tricks == r.hand_size
    return {"bid": r.hand_size, "points": value if made else -value, "bags": 0,
            "set": not made, "moon": {"seat": caller, "bid": bid, "made": made}}
