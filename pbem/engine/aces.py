"""S7 "playing with aces" (pagat): "a partnership scores a 100 point bonus for holding all
four aces and bringing them all home in tricks, provided that they announce this before
the play ... There is no penalty for a team that announces four aces but fails to win
them all."

A seat announces with its bid (`"aces": true` on a number bid) when its side holds the
four aces between its hands. Offering the announcement tells a seat that holds some aces
whether its partner holds the rest: the question pagat's table asks aloud ("can we go
aces?"). A seat that holds no ace is never offered it (it could not have asked).
"""

from .errors import N_, Words

ACES = ("AS", "AH", "AD", "AC")


def aces_open(st, seat) -> bool:
    """May `seat` announce the four aces with its bid now?"""
    r = st.rules
    if not r.aces_bonus or not st.looked[seat]:
        return False
    side = st.side_of[seat]
    if any(st.side_of[s] == side for s in st.aces_called):
        return False
    if not any(c in ACES for c in st.hands[seat]):
        return False
    held = {c for s in st.sides[side] for c in st.hands[s]}
    return all(a in held for a in ACES)


def with_aces(st, seat, options: list[dict]) -> list[dict]:
    if not aces_open(st, seat):
        return options
    plain = [o for o in options if o["bid"].__class__ is int and not o.get("blind")]
    return options + [dict(o, aces=True) for o in plain]


def aces_problem(st, seat, ev) -> Words | None:
    if not st.rules.aces_bonus:
        return Words(N_("this game has no four-aces bonus"))
    if ev["aces"] is not True or ev["bid"].__class__ is not int or ev.get("blind"):
        return Words(N_("the four aces are announced with a number bid: bid 4 aces"))
    if not aces_open(st, seat):
        return Words(N_("your side cannot announce the four aces now"))
    return None


def aces_made(st, side: int) -> bool:
    """Did the side announce the aces and win all four in its tricks?"""
    seats = st.sides[side]
    if not any(s in seats for s in st.aces_called):
        return False
    won = {c for cards, w in st.tricks if w in seats for _, c in cards}
    if st.claimed_by in seats:  # the claimer takes every card not yet played
        won |= {c for h in st.hands for c in h}
    return all(a in won for a in ACES)
