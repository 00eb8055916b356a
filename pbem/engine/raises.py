"""B7 a second round of raised bids (the encyclopedia: "Another game variation allows each
player to optionally increase their bid by one point after all players have bid but
before game play starts. A reduction in bid, once bids are made, is never allowed.").

Once every bid is in, each seat that bid a plain number (not nil, blind or moon; with
side bidding, the seat that bid for the side) bids again in the same order: its bid, to
keep it, or one more. It is logged as another `bid` event, so old logs read as before.
"""

from .errors import N_, Words
from .rules import NILS, promised


def start_raises(st) -> bool:
    """Begin the raise round if the rules play one and it is due; True if it began."""
    if not st.rules.raise_round or st.raising:
        return False
    st.raising = True
    seats = [s for turn in st.bid_turns for s in turn
             if st.bids[s].__class__ is int and not st.blind[s]]
    st.bid_turns, st.bid_index = [(s,) for s in seats], 0
    return bool(seats)


def raise_options(st, seat) -> list[dict]:
    """During the raise round: keep the bid, or one more (within bid_max, and under B8
    not bringing the total to the number of tricks)."""
    r = st.rules
    now = st.bids[seat]
    out = [{"bid": now}]
    if now + 1 <= r.max_bid:
        total = sum(promised(b, r.hand_size) for b in st.bids if b is not None) + 1
        if not (r.no_exact_total and total == r.hand_size):
            out.append({"bid": now + 1})
    return out


def raise_problem(ev) -> Words | None:
    if "mo" in ev or "aces" in ev or "no_trump" in ev or ev.get("blind") or ev.get("bid") in NILS:
        return Words(N_("the raise round keeps a bid or raises it by one, nothing more"))
    return None
