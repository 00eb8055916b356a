"""The plain bids of a ruleset (blind nil, blind numbers, nil, numbers), listed once.

`legal()` offers them as ready-made actions (frozen.py) wherever nothing else decides
which bids are open: no moon, Mo, aces or no-trump call to add, and no bid ruled out by
B4, B8 or B15 (State._bid_fits and forced.py say so by answering None).
"""

from .frozen import Action


def plain_bids(r, blind_nil: bool, blind_bids: bool) -> list[dict]:
    """Every plain bid, in the order bid_options lists them."""
    out: list[dict] = [{"bid": "blind nil"}] if blind_nil else []
    if blind_bids:
        out += [{"bid": b, "blind": True} for b in range(r.blind_min, r.max_bid + 1)]
    if r.nil:
        out.append({"bid": "nil"})
    out += [{"bid": b} for b in range(r.bid_min, r.max_bid + 1)]
    return out


def only_plain(r) -> bool:
    """Are the plain bids all a seat is ever offered (when every one of them fits)?"""
    return not (r.moon or r.blind_moon or r.aces_bonus or r.no_trump or r.raise_round) \
        and r.mo == "none"


def bid_actions(table, r, ctx) -> tuple:
    """The plain bids as legal() actions, made once per ruleset and kind of seat (`ctx`:
    State._bid_context's answer, whose test is None), kept in table.bid_actions by `ctx`,
    and a test of an action (by its id) that gives it back if it is one of them, else None."""
    got = table.bid_actions.get(ctx)
    if got is None:
        acts = tuple(Action(type="bid", **o) for o in plain_bids(r, ctx[0], ctx[1]))
        # (the table keeps the actions, so no other object can have one's id meanwhile)
        got = table.bid_actions[ctx] = acts, {id(a): a for a in acts}.get
    return got
