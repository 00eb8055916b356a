"""Shared test helpers: crafted deals, applying actions, finishing a hand with robots."""

from collections import Counter

from pbem.engine import advance, apply, choose, legal, make_deal, view


def fixed_hands(rules, spec: dict | None = None) -> list[list[str]]:
    """Hands for `rules`: seat -> cards as `spec` says, the rest of the deck dealt round
    the seats still short of cards, in deck order (spades first, high to low).
    Cards left over (leftover=out) are whatever the hands do not use."""
    spec = spec or {}
    n, size = rules.players, rules.hand_size
    hands = [list(spec.get(s, [])) for s in range(n)]
    rest = Counter(rules.deck()) - Counter(c for h in hands for c in h)
    assert not Counter(c for h in hands for c in h) - Counter(rules.deck()), "not in the deck"
    pool = [c for c in rules.deck() if rest[c] > 0 and not rest.subtract([c])]
    seat = 0
    for card in pool:
        short = [s for s in range(n) if len(hands[s]) < size]
        if not short:
            break
        seat = next((s for s in short if s >= seat), short[0])
        hands[seat].append(card)
        seat += 1
    return hands


def deal_event(state, hands=None, out=None, stock=None) -> dict:
    """The deal event for the dealer due now, with these hands (None: fixed_hands()).
    `out` defaults to the cards no hand holds (T4: after the dummy's); with deal=draw pass
    `stock` instead."""
    r = state.rules
    ev = {"seq": state.seq + 1, "type": "deal", "dealer": state.dealer}
    if r.deal == "draw":
        ev.update(hands=[[] for _ in range(r.players)], stock=list(stock or r.deck()))
        return ev
    hands = hands if hands is not None else fixed_hands(r)
    ev["hands"] = [list(h) for h in hands]
    if out is None:
        left = Counter(r.deck()) - Counter(c for h in hands for c in h)
        out = [c for c in r.deck() if left[c] > 0 and not left.subtract([c])]
    if r.dummy:  # T4: the dummy holds the first cards no player holds
        ev["dummy"], out = list(out[:r.hand_size]), out[r.hand_size:]
    if out:
        ev["out"] = list(out)
    return ev


def deal(state, hands=None, out=None, stock=None) -> dict:
    """Deal these hands into `state`; returns the deal event."""
    ev = deal_event(state, hands, out, stock)
    advance(state, ev)
    return ev


def do(state, seat, action) -> list[dict]:
    """`seat` takes `action` (a dict, or a card string to play): apply + advance."""
    if isinstance(action, str):
        action = {"type": "play", "card": action}
    events = apply(state, seat, action)
    for ev in events:
        advance(state, ev)
    return events


def bid(state, seat, value, blind=False) -> list[dict]:
    action = {"type": "bid", "bid": value}
    if blind:
        action["blind"] = True
    return do(state, seat, action)


def play_out(state, seed: int = 0) -> list[dict]:
    """Robots act for every seat until the hand ends (phase deal or over); the events."""
    events = []
    while state.phase not in ("deal", "over"):
        seat = state.to_act()[0]
        events += do(state, seat, choose(view(state, seat), seed, rules=state.rules))
    return events


def top_trumps(rules, k: int | None = None) -> list[str]:
    """The `k` (default: a hand's worth) highest trumps: a hand holding them wins every
    trick whoever leads, so a test can be sure of the tricks each side takes."""
    from pbem.engine.tricks import table_for

    t = table_for(rules)
    trumps = [c for c in rules.deck() if t.suit[c] == "S"]
    return sorted(trumps, key=lambda c: -t.power[c])[: k or rules.hand_size]


def bid_round(state, bids: dict | None = None) -> list[dict]:
    """Every bidder due bids: bids[seat] if given (a tuple (n,) is a blind bid of n, a dict
    the bid's fields),
    else the smallest plain number allowed. Stops at a come-out question; the events."""
    bids, events = bids or {}, []
    while state.phase == "bid" and state.comeout_side is None:
        seat = next((s for s in state.to_act() if s in bids), state.to_act()[0])
        if seat in bids:
            value = bids[seat]
            if isinstance(value, dict):  # a bid with more to it: {"bid": 4, "mo": "big mo"}
                events += do(state, seat, {"type": "bid", **value})
                continue
            blind = isinstance(value, tuple)
            events += bid(state, seat, value[0] if blind else value, blind)
            continue
        opts = [a["bid"] for a in state.bid_options(seat)
                if isinstance(a["bid"], int) and not a.get("blind")]
        events += bid(state, seat, min(opts))
    return events


def random_step(st, rng):
    """One random legal move (or the deal, by `rng`); the seat that moved, None for a deal."""
    if st.phase == "deal":
        advance(st, make_deal(st, rng))
        return None
    seat = st.to_act()[0]
    act = rng.choice(legal(st, seat))
    if act["type"] == "pass":
        act = {"type": "pass", "cards": rng.sample(st.hands[seat], act["count"])}
    for ev in apply(st, seat, act):
        advance(st, ev)
    return seat
