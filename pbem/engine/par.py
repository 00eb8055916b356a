"""Double-dummy par (issue 33): the tricks a side takes from a position when all four hands
are known and every seat plays perfectly, its side to take the most, the others the fewest.

Only for a finished hand's review, when every card may be seen. Pure and bounded:
- alpha-beta on the cards, each trick's winner counted as it is taken;
- a seat's cards that play alike (no other live card between them) are searched once
  (pbem.engine.settled.one_of_each_run);
- a transposition table at each trick's start, keyed on the live cards by their order
  within each suit and who holds them (not which cards they are), so transposed plays and
  positions that differ only in cards already gone meet again; it holds bounds;
- quick tricks as bounds at a lead: a leader that takes every trick (claims.sweeps), and
  the one best live trump, which takes a trick whoever holds it;
- a node cap: over it the answer is None ("not worked out"), never seconds of work.

Rules it models: following suit, the spade lead (Y3 and its variants), the first trick's
lead (low club), top trumps and jokers, T2a must-beat, two packs with the second card or
cancelling twins winning (T6a, dead tricks won by no one). Refused (`supported` is False):
a dummy (T4), whose hand is played by another seat, and Y5 "rake", where one joker's name
changes what the others must play.
"""

from .claims import sweeps
from .settled import one_of_each_run
from .tricks import breaks_spades, playable_cards

CAP = 30_000  # nodes a solve may visit: about 1 s of CPU (bench/par.py); an 8-trick
# endgame of `standard` takes ~28k at p50, a whole 13-trick deal far more (None)
TRUMP = "S"


def supported(rules) -> bool:
    """Does the solver model the play of these rules?"""
    return not (rules.dummy or rules.rake)


class Capped(Exception):
    """The node cap was hit."""


class Solver:
    """One side's double-dummy values under one set of rules. Keep it for a whole hand:
    its table of bounds serves every position of that hand (and of others: the keys name
    no card)."""

    def __init__(self, rules, table, side, cap: int = CAP):
        self.rules, self.table, self.n = rules, table, rules.players
        self.ours = frozenset(side)
        self.suit, self.power = table.suit, table.power
        self.names = sorted({self.suit[c] for c in table.deck})
        self.cap, self.nodes = cap, 0
        self.bounds: dict[tuple, tuple[int, int]] = {}

    # -- the questions --------------------------------------------------------------
    def value(self, hands, trick, turn, broken, done, must_lead=None) -> int | None:
        """The side's tricks from here to the end of the hand (the trick in play
        included), or None when the cap was hit. The cap counts this call's nodes."""
        self.nodes = 0
        hands, trick = tuple(tuple(h) for h in hands), tuple(trick)
        low, high = 0, len(hands[turn]) + (1 if trick else 0)
        try:  # null windows: "at least k?", halving the range (cheaper than one full window)
            while low < high:
                k = (low + high + 1) // 2
                if self.search(hands, trick, turn, broken, done, must_lead, k - 1, k) >= k:
                    low = k
                else:
                    high = k - 1
        except Capped:
            return None
        return low

    def after(self, hands, trick, turn, broken, done, card, must_lead=None) -> int | None:
        """The side's tricks from here if `turn` plays `card` now (cap: None)."""
        self.nodes = 0
        try:
            return self.play(tuple(tuple(h) for h in hands), tuple(trick), turn, broken, done,
                             card, 0, 99)
        except Capped:
            return None

    # -- the search -----------------------------------------------------------------
    def search(self, hands, trick, turn, broken, done, must_lead, alpha, beta) -> int:
        if not trick:
            if not hands[turn]:
                return 0
            return self.lead(hands, turn, broken, done, must_lead, alpha, beta)
        return self.best(hands, trick, turn, broken, done, must_lead, alpha, beta)

    def lead(self, hands, turn, broken, done, must_lead, alpha, beta) -> int:
        key = (self.shape(hands), turn, broken, done, must_lead)
        low, high = self.bounds.get(key) or self.quick(hands, turn, broken, done, must_lead)
        if low >= beta or high <= alpha or low == high:
            return low if low >= beta or low == high else high
        a, b = max(alpha, low), min(beta, high)
        got = self.best(hands, (), turn, broken, done, must_lead, a, b)
        if got <= a:
            high = got
        elif got >= b:
            low = got
        else:
            low = high = got
        self.bounds[key] = (low, high)
        return got

    def best(self, hands, trick, turn, broken, done, must_lead, alpha, beta) -> int:
        self.nodes += 1
        if self.nodes > self.cap:
            raise Capped
        cards = playable_cards(self.rules, self.table, list(hands[turn]), list(trick), broken,
                               done, must_lead)
        cards = one_of_each_run(self.table, cards, hands, trick, turn)
        cards.sort(key=self.power.__getitem__, reverse=True)  # winners first
        mine = turn in self.ours
        top = -1 if mine else 99
        for card in cards:
            got = self.play(hands, trick, turn, broken, done, card, alpha, beta)
            if mine:
                top = max(top, got)
                alpha = max(alpha, got)
            else:
                top = min(top, got)
                beta = min(beta, got)
            if alpha >= beta:
                break
        return top

    def play(self, hands, trick, turn, broken, done, card, alpha, beta) -> int:
        hand = list(hands[turn])
        hand.remove(card)
        hands = hands[:turn] + (tuple(hand),) + hands[turn + 1:]
        trick = trick + ((turn, card),)
        broken = broken or breaks_spades(self.table, trick)
        if len(trick) < self.n:
            return self.search(hands, trick, (turn + 1) % self.n, broken, done, None,
                               alpha, beta)
        at = self.table.taker(list(trick))
        if at is None:  # T6a: a dead trick; its leader leads again
            return self.search(hands, (), trick[0][0], broken, done + 1, None, alpha, beta)
        winner = trick[at][0]
        gain = 1 if winner in self.ours else 0
        return gain + self.search(hands, (), winner, broken, done + 1, None,
                                  alpha - gain, beta - gain)

    # -- keys and bounds ------------------------------------------------------------
    def shape(self, hands) -> tuple:
        """The live cards as each suit's holders, lowest first (equal powers, two packs'
        twins, as one level): the same for positions that play alike."""
        suit, power = self.suit, self.power
        by: dict[str, list[tuple[int, int]]] = {name: [] for name in self.names}
        for seat, hand in enumerate(hands):
            for c in hand:
                by[suit[c]].append((power[c], seat))
        out = []
        for name in self.names:
            cards = sorted(by[name])
            level, last, row = -1, None, []
            for p, seat in cards:
                if p != last:
                    level, last = level + 1, p
                row.append((level, seat))
            out.append(tuple(row))
        return tuple(out)

    def quick(self, hands, turn, broken, done, must_lead) -> tuple[int, int]:
        """Bounds on the side's tricks from a lead, without searching."""
        left = len(hands[turn])
        if must_lead is None and sweeps(self.rules, self.table, hands, turn, broken, done):
            return (left, left) if turn in self.ours else (0, 0)
        holder = self.top_trump(hands)
        if holder is None:
            return 0, left
        return (1, left) if holder in self.ours else (0, left - 1)

    def top_trump(self, hands) -> int | None:
        """The seat holding the one best live trump (no twin to cancel it), if any: that
        card takes a trick whenever it is played, and it must be played by the last."""
        suit, power = self.suit, self.power
        best, holder, twin = -1, None, False
        for seat, hand in enumerate(hands):
            for c in hand:
                if suit[c] == TRUMP:
                    if power[c] > best:
                        best, holder, twin = power[c], seat, False
                    elif power[c] == best:
                        twin = True
        return None if twin else holder


def position(st) -> tuple:
    """The arguments of Solver.value for a State in its play (no dummy)."""
    return (st.hands, st.trick, st.turn, st.broken, len(st.tricks), st.must_lead)
