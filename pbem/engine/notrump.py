"""B14 no-trump bids (pagat): "a player who bids some number of tricks with 'no trump'
promises not to win any tricks with spades, except when spades are led. You are only
allowed to bid 'No Trump' if you hold at least one spade in your hand. The value of the
bid is double that of a normal bid for that number of tricks if won; the penalty is if
you lose is double the penalty for a normal bid".

A seat adds `"no_trump": true` to a plain number bid it has looked at. Its side's
contract then scores double both ways, and is lost if that seat wins a trick with a
spade on another suit's lead. Not played: partner's consent (a bid here is the seat's
own) and blind no trump (offering it would tell an unseen hand whether it holds a spade).
"""

from .errors import N_, Words


def no_trump_open(st, seat) -> bool:
    return bool(st.rules.no_trump and st.looked[seat]
                and any(st.table.suit[c] == "S" for c in st.hands[seat]))


def with_no_trump(st, seat, options: list[dict]) -> list[dict]:
    if not no_trump_open(st, seat):
        return options
    plain = [o for o in options if o["bid"].__class__ is int and not o.get("blind")
             and len(o) == 1]
    return options + [dict(o, no_trump=True) for o in plain]


def no_trump_problem(st, seat, ev) -> Words | None:
    if not st.rules.no_trump:
        return Words(N_("this game has no no-trump bids"))
    if ev["no_trump"] is not True or ev["bid"].__class__ is not int or ev.get("blind"):
        return Words(N_("no trump goes with a number bid: bid 4 no trump"))
    if not no_trump_open(st, seat):
        return Words(N_("a no-trump bid needs a spade in your hand"))
    return None


def no_trump_kept(st, side) -> bool | None:
    """None if no seat of the side bid no trump; else whether every such promise held."""
    seats = [s for s in side if s in st.no_trump]
    if not seats:
        return None
    suit = st.table.suit
    for cards, winner in st.tricks:
        if winner in seats and suit[cards[0][1]] != "S":
            card = cards[st.table.winning(cards)][1]  # T4: a declarer plays two cards
            if suit[card] == "S":
                return False
    return True
