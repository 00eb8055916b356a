"""Claims (Y6): does the claimer's side win every remaining trick however the others play?

The server knows every hand, so it decides this exactly with a search: at the claimer's
side's turns some card must keep the claim alive, at the opponents' turns every card must.
Cards with no other live card between them are interchangeable, and positions repeat, so
the search stays small; a node budget bounds the rare claim made far too early.
"""

import threading

from .errors import IllegalAction
from .rules import NILS
from .tricks import breaks_spades, playable_cards

BUDGET = 50_000
KNOWN = 512  # positions whose answer is kept: the server checks a claim before its write
_known: dict[tuple, bool | None] = {}  # position -> holds (None: too early to tell)
_lock = threading.Lock()


class _TooDeep(Exception):
    pass


def claim_holds(st, seat: int) -> bool:
    """The answer for this position, searched once (the same claim is checked outside the
    write transaction and again as it is applied: the second is free)."""
    key = (st.rules, seat, tuple(map(tuple, st.hands)), tuple(map(tuple, st.trick)), st.turn,
           st.broken, len(st.tricks), st.must_lead, tuple(st.bids))
    with _lock:
        known = _known.get(key, ...)
    if known is ...:
        try:
            known = _search(st, seat)
        except _TooDeep:
            known = None
        with _lock:
            _known[key] = known
            while len(_known) > KNOWN:
                _known.pop(next(iter(_known)))
    if known is None:
        raise IllegalAction("too early to check that claim: play a few more tricks")
    return known


def _search(st, seat: int) -> bool:
    side = st.sides[st.side_of[seat]]
    # beside a nil bidder only the claimer may take the tricks; else anyone of the side
    winners = {seat} if any(st.bids[s] in NILS for s in side) else set(side)
    if _foe_holds_top_trump(st, set(side)):
        return False
    if any(_sweeps_with_top_trumps(st, s) for s in winners):
        return True
    search = _Search(st, set(side), winners)
    hands = tuple(tuple(h) for h in st.hands)
    return search.holds(hands, tuple(st.trick), st.turn, st.broken, len(st.tricks),
                        st.must_lead)


def _foe_holds_top_trump(st, ours) -> bool:
    """An opponent with the best live trump takes a trick whatever happens: it wins when
    played, and it can always be kept for the last trick. (A twin of it may beat it.)"""
    power, suit = st.table.power, st.table.suit
    live = [(power[c], s) for s in range(st.n) for c in st.hands[s] if suit[c] == "S"]
    live += [(power[c], s) for s, c in st.trick if suit[c] == "S"]
    if not live:
        return False
    top = max(p for p, _ in live)
    holders = {s for p, s in live if p == top}
    return len([p for p, _ in live if p == top]) == 1 and not holders & ours


def _sweeps_with_top_trumps(st, seat) -> bool:
    """`seat` holds only trumps, each above every other live card, and has yet to play to
    this trick: it wins this trick and every one after (it leads a winner each time)."""
    power, suit = st.table.power, st.table.suit
    hand = st.hands[seat]
    if not hand or any(suit[c] != "S" for c in hand) or any(s == seat for s, _ in st.trick):
        return False
    others = [c for s in range(st.n) if s != seat for c in st.hands[s]]
    others += [c for _, c in st.trick]
    lowest = min(power[c] for c in hand)
    return all(power[c] < lowest for c in others)


class _Search:
    def __init__(self, st, ours, winners):
        self.st, self.ours, self.winners = st, ours, winners
        self.memo = {}
        self.nodes = 0

    def holds(self, hands, trick, turn, broken, done, must_lead) -> bool:
        if not trick and not any(hands):
            return True
        key = (tuple(tuple(sorted(h)) for h in hands), trick, turn, broken, done)
        if key in self.memo:
            return self.memo[key]
        self.nodes += 1
        if self.nodes > BUDGET:
            raise _TooDeep
        st = self.st
        cards = playable_cards(st.rules, st.table, list(hands[turn]), list(trick), broken, done,
                               must_lead)
        cards = self._distinct(cards, hands, trick)
        cards.sort(key=st.table.power.__getitem__, reverse=True)  # winners first: quick answers
        results = (self._after(hands, trick, turn, broken, done, c) for c in cards)
        ok = any(results) if turn in self.ours else all(results)
        self.memo[key] = ok
        return ok

    def _after(self, hands, trick, turn, broken, done, card) -> bool:
        st = self.st
        hand = list(hands[turn])
        hand.remove(card)
        hands = hands[:turn] + (tuple(hand),) + hands[turn + 1:]
        trick = trick + ((turn, card),)
        broken = broken or breaks_spades(st.table, trick)
        if len(trick) < st.n:
            return self.holds(hands, trick, (turn + 1) % st.n, broken, done, None)
        winner = trick[st.table.winning(list(trick))][0]
        if winner not in self.winners:
            return False
        return self.holds(hands, (), winner, broken, done + 1, None)

    def _distinct(self, cards, hands, trick):
        """One card of each run with no live card between them: they play alike."""
        if self.st.table.cancel:  # T6a: a card's twin on the trick sets it apart
            return list(dict.fromkeys(cards))
        suit, power = self.st.table.suit, self.st.table.power
        live = sorted({(suit[c], power[c]) for h in hands for c in h}
                      | {(suit[c], power[c]) for _, c in trick})
        index = {sp: i for i, sp in enumerate(live)}
        keep, prev = [], None
        for c in sorted(cards, key=lambda c: (suit[c], power[c])):
            here = (suit[c], index[(suit[c], power[c])])
            if not (prev and prev[0] == here[0] and here[1] - prev[1] == 1):
                keep.append(c)
            prev = here
        return keep
