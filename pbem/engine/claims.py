"""Claims (Y6): does the claimer's side win every remaining trick however the others play?

The server knows every hand, so it decides this exactly with a search: at the claimer's
side's turns some card must keep the claim alive, at the others' turns every card must.
What keeps the search small (docs/rules.md, "Claims"):
- only who could win a trick matters: the claim fails whenever a seat outside the winners
  takes one, so those seats' cards with no winner's card between them are one card, and
  a winner's touching cards are one card;
- positions are remembered by that abstraction, so transposed plays meet again;
- a leader that holds the top cards of every suit it holds, and can draw the others'
  trumps first, takes every trick without searching;
- a node budget: a claim made far too early is "not provable yet", never seconds of work.
"""

import threading

from .errors import N_, IllegalAction
from .rules import NILS
from .tricks import breaks_spades, playable_cards, spades_closed

# Budgets in positions searched for a 52-card deal (fewer when more cards are live: each
# position costs more). A claim made now: about 30 ms, else "not provable yet".
LIVE_BUDGET = 1_200
# A logged claim is verified again on replay; earlier versions accepted claims within
# 50,000 positions of a cruder search, so replay allows more and stays bounded.
REPLAY_BUDGET = 200_000
TOO_EARLY = N_("the server cannot prove that claim yet (too many ways to play on): "
               "play a trick or two and claim again; nothing has changed")
KNOWN = 512  # positions whose answer is kept: the server checks a claim before its write
_known: dict[tuple, object] = {}  # position -> True, False, or the budget that ran out
_lock = threading.Lock()
TRUMP = "S"


class _TooDeep(Exception):
    pass


def claim_holds(st, seat: int, budget: int = REPLAY_BUDGET) -> bool:
    """The answer for this position, searched once per budget (the same claim is checked
    outside the write transaction and again as it is applied: the second is free).
    IllegalAction(TOO_EARLY) when `budget` nodes do not settle it."""
    key = (st.rules, seat, tuple(map(tuple, st.hands)), tuple(map(tuple, st.trick)), st.turn,
           st.broken, len(st.tricks), st.must_lead, tuple(st.bids))
    with _lock:
        known = _known.get(key)
    if known is None or (type(known) is int and known < budget):
        known = _search(st, seat, budget)
        with _lock:
            _known[key] = budget if known is None else known
            while len(_known) > KNOWN:
                _known.pop(next(iter(_known)))
    if type(known) is bool:
        return known
    raise IllegalAction(TOO_EARLY)


def _search(st, seat: int, budget: int) -> bool | None:
    """True or False exactly, or None when `budget` nodes were not enough. Pure."""
    side = set(st.sides[st.side_of[seat]])
    # beside a nil bidder only the claimer may take the tricks; else anyone of the side
    winners = {seat} if any(st.bids[s] in NILS for s in side) else side
    if _foe_holds_top_trump(st, winners):
        return False
    search = _Search(st, side, winners, budget)
    try:
        return search.root()
    except _TooDeep:
        return None


def _foe_holds_top_trump(st, winners) -> bool:
    """A seat outside the winners with the one best live trump takes a trick whatever
    happens: it wins when played, and it must be played by the last trick."""
    power, suit = st.table.power, st.table.suit
    live = [(power[c], s) for s in range(st.n) for c in st.hands[s] if suit[c] == TRUMP]
    live += [(power[c], s) for s, c in st.trick if suit[c] == TRUMP]
    if not live:
        return False
    top = max(p for p, _ in live)
    holders = [s for p, s in live if p == top]
    return len(holders) == 1 and holders[0] not in winners


class _Search:
    """Positions: `hands` (a tuple of card tuples a seat) and `suits`, the same live cards
    by suit as sorted (power, label, holder, card) tuples. A holder is a seat, or n + seat
    for that seat's card on the trick; the label is the seat for a winner (and for every
    seat when the rules make a seat beat the cards already played), else -1: the claim
    fails whoever of the others wins a trick, so their cards are told apart only by the
    winners' cards."""

    def __init__(self, st, ours, winners, budget):
        self.st, self.rules, self.table = st, st.rules, st.table
        self.n, self.ours, self.winners = st.n, ours, winners
        live = sum(map(len, st.hands)) + len(st.trick)
        self.budget = budget * 52 // max(52, live)
        self.suit, self.power = st.table.suit, st.table.power
        # who beats whom among the others matters when a seat must beat the cards played
        # (T2a), and which twins meet on a trick when identical cards cancel (T6a)
        apart = st.rules.must_beat or st.table.cancel
        self.label = [s if s in winners or apart else -1 for s in range(self.n)]
        self.merge = not st.table.cancel  # twins cancel: every card level stands alone
        self.names = sorted({self.suit[c] for c in st.table.deck})
        self.trumps = self.names.index(TRUMP) if TRUMP in self.names else None
        self.at = {c: self.names.index(self.suit[c]) for c in st.table.deck}
        self.memo, self.runs_memo = {}, {}
        self.nodes = 0

    def root(self) -> bool:
        st = self.st
        hands = tuple(tuple(h) for h in st.hands)
        trick = tuple(st.trick)
        by_name: dict[str, list[tuple]] = {name: [] for name in self.names}
        for s, h in enumerate(hands):
            for c in h:
                by_name[self.suit[c]].append((self.power[c], self.label[s], s, c))
        for s, c in trick:
            by_name[self.suit[c]].append((self.power[c], self.label[s], self.n + s, c))
        suits = tuple(tuple(sorted(by_name[name])) for name in self.names)
        return self.holds(hands, suits, trick, st.turn, st.broken, len(st.tricks),
                          st.must_lead)

    # -- the abstraction --------------------------------------------------------------
    def runs(self, raw):
        """One suit's live cards as runs: cards of one label with no other label's card
        between (or level with) them play alike. -> (key, {(holder, card): run index})"""
        got = self.runs_memo.get(raw)
        if got is not None:
            return got
        levels = []  # [power, {labels}, [holders], [(holder, card)]]
        for power, label, holder, card in raw:
            if levels and levels[-1][0] == power:
                lv = levels[-1]
                lv[1].add(label)
                lv[2].append(holder)
                lv[3].append((holder, card))
            else:
                levels.append([power, {label}, [holder], [(holder, card)]])
        key, index, last = [], {}, None  # last: the single label of the run being built
        for _, labels, holders, cards in levels:
            single = next(iter(labels)) if len(labels) == 1 else None
            if single is None or single != last or not self.merge:
                key.append([single, []])
            key[-1][1].extend(holders)
            for hc in cards:
                index[hc] = len(key) - 1
            last = single
        got = (tuple((lab, tuple(sorted(h))) for lab, h in key), index)
        self.runs_memo[raw] = got
        return got

    # -- the search -------------------------------------------------------------------
    def holds(self, hands, suits, trick, turn, broken, done, must_lead=None) -> bool:
        if not trick and not any(hands):
            return True
        shapes = tuple(self.runs(raw) for raw in suits)
        key = (tuple(k for k, _ in shapes), tuple(s for s, _ in trick), turn, broken, done)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > self.budget:
            raise _TooDeep
        if self.foe_tops_trumps(suits):
            ok = False
        elif not trick and must_lead is None and turn in self.winners \
                and self.sweeps(hands, turn, broken, done):
            ok = True
        else:
            ok = self.expand(hands, suits, shapes, trick, turn, broken, done, must_lead)
        self.memo[key] = ok
        return ok

    def expand(self, hands, suits, shapes, trick, turn, broken, done, must_lead) -> bool:
        cards = playable_cards(self.rules, self.table, list(hands[turn]), list(trick), broken,
                               done, must_lead)
        power, at = self.power, self.at
        seen, choices = set(), []
        for c in sorted(cards, key=power.__getitem__, reverse=True):  # winners first
            i = at[c]
            cls = (i, shapes[i][1][(turn, c)])
            if cls not in seen:
                seen.add(cls)
                choices.append(c)
        if trick and turn in self.winners and \
                trick[self.table.winning(list(trick))][0] in self.winners:
            choices.reverse()  # the side is winning this trick: play low, keep the winners
        elif turn not in self.winners:
            # the others: a card taking this trick first, then lowest first (keep the
            # high cards that may take a later one); a nil bidder's partner ducks
            beats, trick_l = self.table.beats, list(trick)
            choices.sort(key=lambda c: (not (trick and beats(c, trick_l)), power[c]))
        results = (self.after(hands, suits, trick, turn, broken, done, c) for c in choices)
        return any(results) if turn in self.ours else all(results)

    def after(self, hands, suits, trick, turn, broken, done, card) -> bool:
        n = self.n
        hand = list(hands[turn])
        hand.remove(card)
        hands = hands[:turn] + (tuple(hand),) + hands[turn + 1:]
        i = self.at[card]
        raw = list(suits[i])
        at = raw.index((self.power[card], self.label[turn], turn, card))
        raw[at] = (raw[at][0], raw[at][1], n + turn, card)
        raw.sort()
        suits = suits[:i] + (tuple(raw),) + suits[i + 1:]
        trick = trick + ((turn, card),)
        broken = broken or breaks_spades(self.table, trick)
        if len(trick) < n:
            return self.holds(hands, suits, trick, (turn + 1) % n, broken, done)
        best = self.table.taker(list(trick))
        if best is None or trick[best][0] not in self.winners:  # (T6a: a dead trick)
            return False
        winner = trick[best][0]
        suits = tuple(tuple(x for x in raw if x[2] < n) for raw in suits)
        return self.holds(hands, suits, (), winner, broken, done + 1)

    def foe_tops_trumps(self, suits) -> bool:
        """The best live trump is only the others' (in hand or on the trick): whenever it
        is played, and it must be by the last trick, no winner's card beats it."""
        if self.trumps is None or not suits[self.trumps]:
            return False
        raw, n, winners = suits[self.trumps], self.n, self.winners
        top = raw[-1][0]
        if self.st.table.cancel and len(raw) > 1 and raw[-2][0] == top:
            return False  # its twin is live: the two may cancel
        for power, _, holder, _ in reversed(raw):
            if power != top:
                return True
            if holder % n in winners:
                return False
        return True

    def sweeps(self, hands, seat, broken, done) -> bool:
        return sweeps(self.rules, self.table, hands, seat, broken, done)


def sweeps(rules, table, hands, seat, broken, done) -> bool:
    """`seat`, on lead, holds in each of its suits only cards above every other live
    card of that suit, and holds at least as many trumps as any other seat and may
    lead them: it draws trumps, then every lead wins."""
    suit, power = table.suit, table.power
    low: dict[str, int] = {}
    count: dict[str, int] = {}
    for c in hands[seat]:
        s = suit[c]
        low[s] = min(low.get(s, 999), power[c])
        count[s] = count.get(s, 0) + 1
    most = 0  # the most trumps another seat holds
    for other, hand in enumerate(hands):
        if other == seat:
            continue
        trumps = 0
        for c in hand:
            s = suit[c]
            if s in low and power[c] >= low[s]:
                return False
            trumps += s == TRUMP
        most = max(most, trumps)
    if not most:
        return True
    if count.get(TRUMP, 0) < most:
        return False
    return len(count) == 1 or not spades_closed(rules, broken, done)
