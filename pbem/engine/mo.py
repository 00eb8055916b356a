"""B12 Bemo and Mo: a side adds to a number bid the promise to win the first tricks.

pagat: "Little Bemo commits the team to win the first six tricks. It is additional to the
normal bid; the team scores an extra bonus of 60 if successful and loses 60 if not. Big
Bemo ... the first nine tricks ... 90". The encyclopedia: Little Mo "the first 7 tricks ...
150 points", Big Mo "the first 10 tricks ... 250 points"; the team "is immune to bags for
that hand and will lead the first trick"; failing "will cause the team to lose the points".
One call a hand: once a side has called, the first tricks are promised (the first to call).
"""

from .errors import N_, Words
from .rules import MO_CALLS


def mo_calls(st, seat) -> list[str]:
    """The calls `seat` may add to a plain number bid now."""
    r = st.rules
    if r.mo == "none" or st.mo is not None or not st.looked[seat]:
        return []
    return list(MO_CALLS[r.mo])


def with_mo(st, seat, options: list[dict]) -> list[dict]:
    """`options` and, after them, each plain number bid with each call open."""
    calls = mo_calls(st, seat)
    if not calls:
        return options
    plain = [o for o in options if o["bid"].__class__ is int and not o.get("blind")]
    return options + [dict(o, mo=c) for o in plain for c in calls]


def mo_problem(st, seat, ev) -> Words | None:
    """Why the call in bid event `ev` may not be made, or None if it may. The calls'
    names are command words, quoted as a bid is written."""
    call, r = ev["mo"], st.rules
    if r.mo == "none":
        return Words(N_("this game plays no Mo or Bemo calls"))
    if not isinstance(call, str) or call not in MO_CALLS[r.mo]:
        little, big = MO_CALLS[r.mo]
        return Words(N_("the calls here are %(little)s and %(big)s, not %(call)s"),
                     little=little, big=big, call=repr(call))
    if st.mo is not None:
        return Words(N_("seat %(seat)s has already called %(call)s this hand"),
                     seat=st.mo["seat"], call=st.mo["call"])
    if ev["bid"].__class__ is not int or ev.get("blind"):
        return Words(N_("%(call)s goes with a number bid you have looked at: bid 4 %(call)s"),
                     call=call)
    return None


def mo_leads(st) -> int | None:
    """The seat that leads the first trick because its side called Mo (not Bemo)."""
    if st.mo is not None and st.rules.mo == "mo":
        return st.mo["seat"]
    return None


def mo_immune(st, side: int) -> bool:
    """A side that called Mo takes no bags that hand."""
    return mo_leads(st) is not None and st.side_of[st.mo["seat"]] == side


def mo_result(st, side: int) -> dict | None:
    """The pad entry of the side's call this hand: who called what, made or not, points."""
    if st.mo is None or st.side_of[st.mo["seat"]] != side:
        return None
    need, value = MO_CALLS[st.rules.mo][st.mo["call"]]
    seats = st.sides[side]
    winners = [w for _, w in st.tricks[:need]]
    if st.claimed_by is not None:  # the claimer takes every trick not played
        winners += [st.claimed_by] * (need - len(winners))
    made = all(w in seats for w in winners)
    return {"seat": st.mo["seat"], "call": st.mo["call"], "made": made,
            "points": value if made else -value}
