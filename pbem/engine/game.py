"""The engine's API: legal actions, apply, deal, replay (OpenSpiel-shaped)."""

from .acts import resign_events, undo_target
from .errors import IllegalAction
from .frozen import Action
from .rules import NILS, Rules
from .state import State, _check, advance, check, may_decline
from .tricks import spades_closed

SERVER_EVENTS = (None, "deal", "substitute", "adjudicate")  # the server's, never a player's
_NOT_COPIED = frozenset(("type", "seat", "seq", "count"))  # action keys the event sets itself


class ReplayError(IllegalAction):
    """An event in a log that cannot be applied; names its seq."""

    def __init__(self, seq, reason):
        super().__init__(f"seq {seq}: {reason}")
        self.seq, self.reason = seq, reason


def new_game(rules: Rules, first_dealer: int = 0) -> State:
    return State(rules, first_dealer)


def legal(st: State, seat: int) -> list[dict]:
    """Every action `seat` may take now. Passing is one entry naming how many cards to pass
    (the cards are the player's choice); a claim is offered by `can_claim`, not here."""
    table = st.table
    if st.phase != "play" or not table.quick_cards or st.must_lead:  # (quick: no T4 dummy)
        return _legal(st, seat)
    # most calls: a card from the hand, where following suit and the spade lead are all
    # that limit a card; each card's ready-made action (frozen.py) picked from the hand in
    # C, with no call and no list of cards in between (the hot path)
    if seat != st.turn:
        return []
    hand, trick = st.hands[seat], st.trick
    if trick:  # follow suit if you can, else any card
        pick = table.action_if_led[trick[0][1]]
    elif not st.broken and (table.lead_once_broken or spades_closed(st.rules, st.broken,
                                                                       len(st.tricks))):
        # (spades broken are open to a lead wherever spades may go on the first trick)
        pick = table.action_if_not_spade  # (a hand of spades only: any of them)
    else:
        pick = None
    # ([*...]: no call of the list type)
    out: list[dict] | None = pick and [*filter(None, map(pick, hand))]
    if not out:
        pick, out = table.action_if_any, [*map(table.action_of, hand)]
    st._offered = (st.seq, seat, pick)  # what apply() takes the quick way (no state
    return out  # changes but by an event, and each event moves the seq on)


def _legal(st: State, seat: int) -> list[dict]:
    """legal() but for a card from the hand where only following suit and the spade lead
    limit it."""
    ph = st.phase
    if ph == "play":
        return [*map(st.table.action_of, st.playable(seat))]
    if ph == "bid":
        if st.comeout_side is not None:
            if st.side_of[seat] == st.comeout_side:
                return [{"type": "come_out"}, {"type": "stay"}]
            return []
        out = []
        if not st.looked[seat]:
            out.append({"type": "look"})
        out += st.bid_actions(seat)
        if st.rules.misdeal and st.misdeal_allowed(seat):  # (most games: no call)
            out.append({"type": "misdeal"})
        return out
    if ph == "pass" and seat in st.to_act():
        keep = [{"type": "pass", "count": 0}] if may_decline(st, seat) else []
        return [{"type": "pass", "count": st.pass_steps[0][1]}] + keep
    if ph == "draw" and seat == st.turn:
        return [{"type": "draw", "keep": True}, {"type": "draw", "keep": False}]
    return []


def can_claim(st: State, seat: int) -> bool:
    """Would a claim of every remaining trick by `seat` be accepted now?"""
    try:
        check(st, {"seq": st.seq + 1, "type": "claim", "seat": seat}, live=True)
    except IllegalAction:
        return False
    return True


def apply(st: State, seat: int, action: dict) -> list[dict]:
    """The events that `seat` taking `action` adds to the log; IllegalAction if it may not.
    Does not change `st`: pass each event to `advance`. A `concede` is the side's `resign`
    once no partner is left to ask; an `undo` without a seq takes back the seat's last move."""
    offered = st._offered
    if offered[0] == st.seq and offered[1] == seat and seat.__class__ is int:
        # most moves: one of the cards or plain bids legal() just offered this seat, at
        # this seq (an action of the card table's own, the one its test gives back); a card
        # still in the hand. No other check is needed (the hot path: no call but the test)
        if action.__class__ is Action:
            card = action.get("card")
            if card is None:
                if offered[2](id(action)) is action:  # a bid
                    ev = {"seq": st.seq + 1, "type": "bid", "seat": seat, "bid": action["bid"]}
                    if "blind" in action:
                        ev["blind"] = action["blind"]
                    st._checked = dict(ev)  # (as _apply marks it)
                    return [ev]
            elif offered[2](card) is action and card in st.hands[seat]:
                seq = st.seq + 1
                st._checked = (seq, seat, card)  # what advance() compares
                return [{"seq": seq, "type": "play", "seat": seat, "card": card}]
        elif action.__class__ is dict and len(action) == 2 and action.get("type") == "play":
            card = action.get("card")  # a robot's card: as legal()'s own action for it
            own = offered[2](card) if card.__class__ is str else None
            if own is not None:
                return apply(st, seat, own)
    if (action.__class__ is not Action or action["type"] != "play" or seat.__class__ is not int
            or seat != st.turn or st.phase != "play" or st.declarer is not None):
        return _apply(st, seat, action)
    # most moves: one of legal()'s own card actions (frozen.py: a type and a card, no more)
    # for a card from the seat's own hand, checked here in a few steps (the hot path: no
    # call) and marked checked for advance(); any doubt goes the long way, which says why
    # the card may not be played
    card, hand, table = action["card"], st.hands[seat], st.table
    if card not in hand:  # (perhaps an answer of legal() to another state)
        return _apply(st, seat, action)
    # the answer of `card in st.playable(seat)`, without listing the cards
    if st.must_lead or not table.plain_play:
        if card not in st.playable(seat):
            return _apply(st, seat, action)
    elif st.trick:  # follow suit if you can
        led = table.suit[st.trick[0][1]]
        if table.suit[card] != led and not table.following[led].isdisjoint(hand):
            return _apply(st, seat, action)
    elif table.suit[card] == "S" and not st.broken and (table.lead_once_broken or spades_closed(
            st.rules, st.broken, len(st.tricks))):  # (as in legal())
        if not table.following["S"].issuperset(hand):  # a spade lead: only spades left
            return _apply(st, seat, action)
    seq = st.seq + 1
    st._checked = (seq, seat, card)  # what advance() compares (the event is the caller's)
    return [{"seq": seq, "type": "play", "seat": seat, "card": card}]


def _apply(st: State, seat, action) -> list[dict]:
    """apply() but for legal()'s action of a card from the seat's own hand that may be
    played."""
    try:  # (of what JSON brings only an object has a get)
        kind = action.get("type")
    except AttributeError:
        kind = None
    if kind in SERVER_EVENTS:
        raise IllegalAction("not an action a player can take")
    if kind == "concede" and st.phase != "over" and 0 <= (
            seat if seat.__class__ is int else -1) < st.n:
        events = resign_events(st, seat, action)
        ev = events[0] if events else None
        if ev is not None:
            check(st, ev, live=True)
            return [ev]
    ev = {"seq": st.seq + 1, "type": kind, "seat": seat}
    for k, v in action.items():
        if k not in _NOT_COPIED:
            ev[k] = v
    if ev["type"] == "undo" and "undo" not in ev and seat.__class__ is int:
        ev["undo"] = undo_target(st, seat)
    _check(st, ev, live=True)  # (in full: the event was made just now)
    st._checked = dict(ev)  # so that advance() of this same event need not check it again
    return [ev]


def make_deal(st: State, rng) -> dict:
    """The deal event due now, shuffled by `rng` (the server passes secrets.SystemRandom())."""
    r, n = st.rules, st.n
    deck = list(st.table.deck)
    rng.shuffle(deck)  # the public API: a seed deals as before (tests/test_stored_deals.py)
    ev: dict = {"seq": st.seq + 1, "type": "deal", "dealer": st.dealer}
    if r.deal == "draw":
        ev.update(hands=[[] for _ in range(n)], stock=deck)
    else:  # singly, from the dealer's left (L1): pile k takes every r.hands-th card from k
        dealt = r.hand_size * r.hands
        piles = [deck[k:dealt:r.hands] for k in range(r.hands)]
        first = n - 1 - st.dealer  # the pile of seat 0 (seat dealer + 1 takes the first)
        ev["hands"] = piles[first:n] + piles[:first]
        if r.dummy:  # T4: the dummy's pile is dealt last
            ev["dummy"] = piles[n]
        if dealt < len(deck):
            ev["out"] = deck[dealt:]
    if st.phase == "deal":  # right by construction: advance() need not check it again
        st._checked = {k: [list(h) for h in v] if k == "hands" else
                       (list(v) if v.__class__ is list else v) for k, v in ev.items()}
    return ev


def replay(rules: Rules, events, first_dealer: int | None = None) -> State:
    """The state after `events`; ReplayError names the first event that does not apply."""
    events = list(events)
    if first_dealer is None:
        first_dealer = events[0].get("dealer", 0) if events else 0
    st = State(rules, first_dealer)
    for i, ev in enumerate(events, 1):
        try:
            advance(st, ev)
        except IllegalAction as e:
            seq = ev.get("seq", i) if isinstance(ev, dict) else i
            raise ReplayError(seq, str(e)) from None
    return st


def score_pad(st: State) -> dict:
    """The score pad in the JSON shape of docs/log-format.md ("The score pad")."""
    shown = st.display_scores()
    return {
        "over": st.phase == "over",
        "winner": st.winner,
        "sides": [{"seats": list(s), "score": shown[i], "bags": st.bags[i]}
                  for i, s in enumerate(st.sides)],
        "hands": st.history,
    }


__all__ = ["NILS", "ReplayError", "advance", "apply", "can_claim", "legal", "make_deal",
           "new_game", "replay", "score_pad"]
