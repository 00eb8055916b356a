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

From edition 2 a moon and a double nil (every seat of a side bids nil) exclude each other,
as the encyclopedia says: "A team cannot bid to Shoot The Moon if the other team bids
Double Nil, and vice versa." The second of the two is refused.
"""

from .errors import N_, Words
from .rules import MOONS, NILS


def moon_options(st, seat, side_unlooked: bool) -> list[dict]:
    """The moon bids open to `seat` now."""
    r = st.rules
    if not (r.moon or r.blind_moon) or any(b in MOONS for b in st.bids):
        return []
    if any(st.bids[m] in NILS for m in st.sides[st.side_of[seat]]):
        return []
    if r.edition >= 2 and _double_nil_bid(st, st.side_of[seat]):
        return []
    out = [{"bid": "blind moon"}] if r.blind_moon and side_unlooked else []
    if r.moon:  # like a number, a moon may be bid without looking first (and then looks)
        out.append({"bid": "moon"})
    return out


def clash_possible(r) -> bool:
    """Could a moon and a double nil meet in one hand under these rules (edition 2)?"""
    return r.edition >= 2 and bool(r.moon or r.blind_moon) and r.nil and r.partnerships


def nil_barred(st, seat) -> bool:
    """Would a nil from `seat` complete its side's double nil against another side's moon?"""
    if not clash_possible(st.rules):
        return False
    me = st.side_of[seat]
    mates = [st.bids[m] for m in st.sides[me] if m != seat]
    return bool(mates) and all(b in NILS for b in mates) and any(
        st.bids[s] in MOONS for s in range(st.n) if st.side_of[s] != me)


def clash_reason(st, seat, bid) -> Words | None:
    """Why `bid` is refused if a moon and a double nil are what keep it out, else None."""
    if bid in NILS and nil_barred(st, seat):
        return Words(N_("your side cannot bid double nil against a moon"))
    if bid in MOONS and clash_possible(st.rules) and _double_nil_bid(st, st.side_of[seat]):
        return Words(N_("your side cannot bid a moon against a double nil"))
    return None


def _double_nil_bid(st, side_index) -> bool:
    """Has another side than this one bid a double nil (all of its seats nil)?"""
    return any(len(seats) > 1 and all(st.bids[s] in NILS for s in seats)
               for j, seats in enumerate(st.sides) if j != side_index)


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
