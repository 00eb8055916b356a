"""Hands that play themselves (issue 33): when no order of play can change what the hand
scores, the rest of it need not wait on anyone.

What must be fixed is what the score reads: each side's tricks, and each nil bidder's own
tricks apart (a nil is made or lost by its bidder alone; which partner of a side without
nil takes a trick changes nothing). A "unit" is one of those: a nil bidder, or the rest of
a side. Rules whose score reads more than those counts (which card or which trick was won:
bonuses for the last trick or the aces, a bag-cancelling card, no-trump bids, Mo's first
tricks; cancelling twins and dead tricks; a dummy) are never settled here.

An exact search decides it, bounded (a cap hit answers "not settled"): every card any
seat may play, every order, must leave each unit the same tricks (a seat's cards of one
suit with no other live card between them play alike, and positions met again are
remembered). The claim search (pbem.engine.claims) cannot decide it: a claim holds when
the claimer's side CAN take every trick whatever the others play, but its own side may
still play so as to lose one (a claimer holding AS KS 9S against QS 6S must lead the KS
first), and then the count is not fixed (tests/test_settled.py).
A position reached from a settled one by any legal card is settled too, so the server
checks once and then plays each seat's lowest legal card (`settled_card`).

Most positions are not settled, and two whole lines of play that end with different counts
prove it: `open_lines` plays a few such lines first (each seat always its highest legal
card, always its lowest, one side high and the other low), about a tenth of a millisecond
a line, where the exact search walks a line and more at some 11 us a position before its
first counterexample. It is exact both ways: lines that differ are a proof, and lines that
agree only send the position on to the search. On 936 positions of six robot games of the
standard rules (Nov 2026, a loaded 2-core machine, CPU time): the search alone 1.30 ms a
position; the lines let 226 through (195 settled), and lines then search 0.45 ms.
"""

from .auto import auto_card
from .game import advance, apply
from .rules import NILS
from .tricks import breaks_spades, playable_cards

EXACT_BUDGET = 1_500  # positions the exact search may visit (tens of ms), then "not settled"


def counts_only(rules) -> bool:
    """Does a hand's score read only the units' trick counts under these rules?"""
    return not (rules.dummy or rules.identical == "cancel" or rules.no_trump
                or rules.bag_cancel_card or rules.last_spades_bonus or rules.last_trick_bonus
                or rules.aces_bonus or rules.mo != "none")


def units(st) -> list[int]:
    """Each seat's unit: its own (n + seat) when it bid nil, else its side's index."""
    return [st.n + s if st.bids[s] in NILS else st.side_of[s] for s in range(st.n)]


def settled(st, budget: int = EXACT_BUDGET) -> bool:
    """Is every unit's trick count for the rest of the hand the same whatever any seat plays
    (pure; bounded: False when the search's cap is hit)?"""
    if not maybe_settled(st):
        return False
    return bool(_Exact(st, budget).fixed())


def maybe_settled(st) -> bool:
    """False when the hand surely is not settled: its rules or phase never are, or two lines
    of play end with different counts (`open_lines`); True leaves it to the search. Pure,
    and bounded by the cards left (a few lines of them)."""
    if st.phase != "play" or not counts_only(st.rules) or st.declarer is not None:
        return False
    return not open_lines(st)


# who plays high on a line (else low): everyone, no one, the even seats, the odd seats
_LINES = (lambda seat: True, lambda seat: False, lambda seat: seat % 2 == 0,
          lambda seat: seat % 2 == 1)


def open_lines(st) -> bool:
    """Do two of a few lines of play (`_LINES`) from `st` give some unit other tricks?"""
    first = None
    for high in _LINES:
        counts = _line(st, high)
        if counts is None or first is not None and counts != first:
            return True
        first = counts
    return False


def _line(st, high) -> tuple[int, ...] | None:
    """Each unit's tricks when every seat plays its highest legal card if `high(seat)`,
    else its lowest, to the end of the hand (None if a seat had no legal card: the engine
    would not get there, and the search answers "not settled" too)."""
    table, rules, n, power = st.table, st.rules, st.n, st.table.power.__getitem__
    unit, counts = units(st), [0] * (2 * st.n)
    hands = [list(h) for h in st.hands]
    trick, turn, broken, done, must = list(st.trick), st.turn, st.broken, len(st.tricks), \
        st.must_lead
    while trick or any(hands):
        cards = playable_cards(rules, table, hands[turn], trick, broken, done, must)
        if not cards:
            return None
        card = (max if high(turn) else min)(cards, key=power)
        must = None
        hands[turn].remove(card)
        trick.append((turn, card))
        broken = broken or breaks_spades(table, trick)
        if len(trick) < n:
            turn = (turn + 1) % n
            continue
        turn = trick[table.winning(trick)][0]
        counts[unit[turn]] += 1
        trick, done = [], done + 1
    return tuple(counts)


def settled_card(st) -> str | None:
    """The card the seat to play plays in a settled hand: its lowest legal one."""
    cards = st.playable(st.turn) if st.phase == "play" else []
    return min(cards, key=st.table.power.__getitem__) if cards else None


def by_themselves(st) -> list[dict]:
    """The cards the server plays by itself after a move at a table where every player has
    `auto on` (as pbem.play plays them), advanced into `st`: each seat's only legal card
    while there is one, then, if the hand is settled, the rest of it. For the benches'
    copies of a game, which must be where the server's is."""
    events: list[dict] = []
    while (card := auto_card(st, st.turn)) is not None:
        events += _play(st, card, "forced")
    if settled(st):
        hand = st.hand_no
        while st.phase == "play" and st.hand_no == hand:
            events += _play(st, settled_card(st), "settled")
    return events


def _play(st, card, why: str) -> list[dict]:
    events = apply(st, st.turn, {"type": "play", "card": card, "auto": why})
    for ev in events:
        advance(st, ev)
    return events


def one_of_each_run(table, cards, hands, trick, turn) -> list[str]:
    """Of `cards` (the seat's legal ones), one of each run that plays alike: no other seat's
    live card, in hand or on the trick, of that suit at or between their powers. Also the
    double-dummy solver's (pbem.engine.par)."""
    suit, power = table.suit, table.power
    others: dict[str, list[int]] = {}
    for i, h in enumerate(hands):
        if i != turn:
            for x in h:
                others.setdefault(suit[x], []).append(power[x])
    for _, x in trick:
        others.setdefault(suit[x], []).append(power[x])
    out, seen = [], set()
    for c in cards:
        s, p = suit[c], power[c]
        theirs = others.get(s, ())
        run = (c,) if p in theirs else (s, sum(o < p for o in theirs))
        if run not in seen:
            seen.add(run)
            out.append(c)
    return out


class _Open(Exception):
    """Two orders of play give different counts, or the cap was hit."""


class _Exact:
    """Every order of play from `st`, counting each unit's tricks; `_Open` at the first
    position whose cards lead to different counts."""

    def __init__(self, st, budget: int):
        self.rules, self.table, self.n = st.rules, st.table, st.n
        self.suit, self.power = st.table.suit, st.table.power
        self.unit, self.width = units(st), 2 * st.n
        self.st, self.budget, self.nodes = st, budget, 0
        self.memo: dict[tuple, tuple[int, ...]] = {}
        self.capped = False

    def fixed(self) -> bool | None:
        """True (settled), False (not), or None (the cap was hit first)."""
        st = self.st
        try:
            self.rest(tuple(tuple(h) for h in st.hands), tuple(st.trick), st.turn, st.broken,
                      len(st.tricks), st.must_lead)
        except _Open:
            return None if self.capped else False
        return True

    def rest(self, hands, trick, turn, broken, done, must_lead=None) -> tuple[int, ...]:
        """Each unit's tricks from here to the end of the hand, the same on every line."""
        if not trick and not any(hands):
            return (0,) * self.width
        key = (hands, trick, turn, broken, done, must_lead)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > self.budget:
            self.capped = True
            raise _Open
        got = None
        for card in self.choices(hands, trick, turn, broken, done, must_lead):
            counts = self.after(hands, trick, turn, broken, done, card)
            if got is not None and counts != got:
                raise _Open
            got = counts
        if got is None:  # no legal card: the engine would not get here
            raise _Open
        self.memo[key] = got
        return got

    def choices(self, hands, trick, turn, broken, done, must_lead) -> list[str]:
        cards = playable_cards(self.rules, self.table, list(hands[turn]), list(trick), broken,
                               done, must_lead)
        return one_of_each_run(self.table, cards, hands, trick, turn)

    def after(self, hands, trick, turn, broken, done, card) -> tuple[int, ...]:
        hand = list(hands[turn])
        hand.remove(card)
        hands = hands[:turn] + (tuple(hand),) + hands[turn + 1:]
        trick = trick + ((turn, card),)
        broken = broken or breaks_spades(self.table, list(trick))
        if len(trick) < self.n:
            return self.rest(hands, trick, (turn + 1) % self.n, broken, done)
        winner = trick[self.table.winning(list(trick))][0]
        later = self.rest(hands, (), winner, broken, done + 1)
        u = self.unit[winner]
        return later[:u] + (later[u] + 1,) + later[u + 1:]
