"""The sampling robot (issue 15, rules option robot="sampler"): for a card play it deals the
cards its seat cannot see at random, consistent with what the seat has seen (its own hand,
every card played, the cards it passed, the suits a seat showed out of), plays each deal out
to the end of the hand with a quick policy, and plays the card whose playouts score best for
its side. It reads nothing but the view, is deterministic given the view and a seed, and a
fixed budget of simulated card plays keeps a move well under 100 ms (bench/robot.py).
"""

from collections import Counter

from .rules import NILS, promised
from .scoring import _bag_penalty, _score_side
from .tricks import breaks_spades, playable_cards, table_for

WORK = 1500  # simulated card plays per decision: the time budget, counted, not timed
MIN_SAMPLES, MAX_SAMPLES = 6, 48
BID_SAMPLES = 24  # deals played out to choose a bid
TRIES = 20  # random deals tried before the void inferences are dropped for that sample


def models(rules) -> bool:
    """Does the sampler's model of the unseen hands hold? Not where leftover cards are taken
    up after the bidding (D6: hands of uneven sizes and unseen discards during the play) nor
    with T4's dummy; the fast robot plays those."""
    return not (rules.leftover_after_bid or rules.leftover == "high_side" or rules.dummy)


def best_card(view: dict, rules, rng, playout=None, most: int = MAX_SAMPLES) -> str:
    """The legal card with the best mean playout score for the seat's side, each deal
    played out by `playout` (a _Playout class: the hard robot brings its own), over at
    most `most` deals."""
    playout = playout or _Playout
    legal = list(dict.fromkeys(a["card"] for a in view["legal"] if a["type"] == "play"))
    t = table_for(rules)
    cands = _distinct(legal, view, rules, t)
    if len(cands) == 1:
        return cands[0]
    know = _Knowledge(view, rules, t)
    left = sum(view["hand_sizes"])
    samples = max(MIN_SAMPLES, min(most, WORK // (len(cands) * max(left, 1))))
    totals = dict.fromkeys(cands, 0.0)
    for _ in range(samples):
        hands = know.deal(rng)
        for card in cands:
            totals[card] += playout(view, rules, t, hands).run(card)
    # ties go to the cheaper card: the high one is kept for later
    return max(cands, key=lambda c: (totals[c], -t.power[c]))


def best_bid(view: dict, rules, rng, guess: dict) -> dict:
    """A number bid by playouts: deal the unseen cards, play each deal out from the first
    lead, and bid the number with the best mean score over the tricks this seat took (its
    partner's bid added once known; bags valued at what they cost in the long run). Nil,
    blind bids and side bidding stay with the fast robot's `guess`."""
    numbers = [a["bid"] for a in view["legal"]
               if a["type"] == "bid" and a["bid"].__class__ is int and not a.get("blind")]
    if not numbers or rules.bidding != "seat" or guess["bid"].__class__ is not int:
        return guess
    t = table_for(rules)
    know = _Knowledge(view, rules, t)
    bids = list(view["bids"])
    bids[view["seat"]] = guess["bid"]  # for the playouts' ducking; unmade bids stay None
    took = []
    for _ in range(BID_SAMPLES):
        play = _Playout(dict(view, bids=bids), rules, t, know.deal(rng))
        play.run(None)
        took.append(play.won)
    best = max(numbers, key=lambda b: (_bid_value(view, rules, b, took), -abs(b - guess["bid"])))
    return {"type": "bid", "bid": best}


def _bid_value(view, rules, bid, took) -> float:
    """The mean score of bidding `bid` for this seat's side over the playouts' tricks."""
    seat = view["seat"]
    side_no = next(i for i, s in enumerate(rules.sides) if seat in s)
    side = rules.sides[side_no]
    bids = list(view["bids"])
    bids[seat] = bid
    if any(bids[s] is None for s in side):  # the partner bids later: count this seat alone
        side = (seat,)
    bag_cost = rules.bag_penalty / rules.bag_limit if rules.bag_limit else 0
    total = 0.0
    for won in took:
        pad = _Pad(rules, dict(view, bids=bids), won)
        res = _score_side(pad, side_no, side)
        total += res["points"] - res["bags"] * bag_cost
    return total / len(took)


def _distinct(legal, view, rules, t) -> list[str]:
    """One card of each run of touching cards (between them only cards of this hand or of
    finished tricks: a card on the table splits a run): the others would play the same, so
    they need no playouts of their own."""
    if rules.decks > 1:
        return legal
    seen = set(view["hand"]) | {x["card"] for tr in view["tricks"] for x in tr["cards"]}
    suit, power = t.suit, t.power
    out: list[str] = []
    for card in sorted(legal, key=lambda c: (suit[c], power[c])):
        prev = out[-1] if out else None
        if prev and suit[prev] == suit[card] and all(
                c in seen for c in t.deck
                if suit[c] == suit[card] and power[prev] < power[c] < power[card]):
            continue
        out.append(card)
    return out


class _Knowledge:
    """What the seat knows of the other hands: how many cards each holds, which suits each
    showed out of, which cards it passed (still held unless played), and the unseen pool."""

    def __init__(self, view, rules, t):
        self.seat, self.n, self.suit = view["seat"], rules.players, t.suit
        self.sizes = list(view["hand_sizes"])
        played = [x["card"] for tr in view["tricks"] for x in tr["cards"]]
        played += [x["card"] for x in view["trick"]]
        gone = Counter(view["hand"]) + Counter(played) + Counter(view.get("discards") or [])
        self.fixed = {}  # seat -> cards it surely holds (passed to it by this seat)
        pool = Counter(t.deck) - gone
        partner = _partner(rules, self.seat)
        if partner is not None:
            still = Counter(view.get("passed") or []) - Counter(
                x["card"] for tr in view["tricks"] for x in tr["cards"] if x["seat"] == partner)
            still -= Counter(x["card"] for x in view["trick"] if x["seat"] == partner)
            still &= pool
            self.fixed[partner] = list(still.elements())
            pool -= still
        self.pool = sorted(pool.elements())  # sorted: the same view gives the same deals
        self.voids = [set() for _ in range(self.n)]
        for tr in view["tricks"] + [{"cards": view["trick"]}]:
            cards = tr["cards"]
            if cards:
                led = t.suit[cards[0]["card"]]
                for x in cards[1:]:
                    if t.suit[x["card"]] != led:
                        self.voids[x["seat"]].add(led)

    def deal(self, rng) -> list[list[str]]:
        """One random layout of the unseen cards over the other hands."""
        for _ in range(TRIES):
            hands = self._try(rng, self.voids)
            if hands:
                return hands
        return self._try(rng, [set() for _ in range(self.n)])

    def _try(self, rng, voids):
        hands = [[] for _ in range(self.n)]
        need = list(self.sizes)
        for s, cards in self.fixed.items():
            hands[s] = list(cards)
            need[s] -= len(cards)
        need[self.seat] = 0
        spare = len(self.pool) - sum(need)  # cards out of play (leftover, discards)
        cards = list(self.pool)
        rng.shuffle(cards)
        # the most constrained cards first: those few seats may hold
        cards.sort(key=lambda c: sum(1 for v in voids if self.suit[c] in v), reverse=True)
        for c in cards:
            s = self.suit[c]
            seats = [i for i in range(self.n) if need[i] > 0 and s not in voids[i]]
            weights = [need[i] for i in seats] + ([spare] if spare > 0 else [])
            if not weights:
                return None
            pick = rng.choices(range(len(weights)), weights)[0]
            if pick == len(seats):
                spare -= 1
            else:
                hands[seats[pick]].append(c)
                need[seats[pick]] -= 1
        return hands


def _partner(rules, seat):
    side = next(s for s in rules.sides if seat in s)
    return next((s for s in side if s != seat), None)


class _Playout:
    """The rest of the hand, every seat playing the quick policy; scored for one side."""

    def __init__(self, view, rules, t, hands):
        self.r, self.t, self.seat = rules, t, view["seat"]
        self.hands = [list(h) for h in hands]
        self.hands[self.seat] = list(view["hand"])
        self.trick = [(x["seat"], x["card"]) for x in view["trick"]]
        self.done = len(view["tricks"])
        self.broken = view["spades_broken"]
        self.won = list(view["won"])
        self.bids = view["bids"]
        self.view = view
        self._next = self.seat
        self.side_of = [next(i for i, s in enumerate(rules.sides) if x in s)
                        for x in range(rules.players)]

    def run(self, first: str | None) -> float:
        """Play `first` for this seat, then everything to the hand's end; or, with None
        before the first lead, the whole hand."""
        if first is None:
            self._next, first = self._first_lead()
            if first is None:
                first = self._policy(self._next)
            self._play(self._next, first)
        else:
            self._play(self.seat, first)
        while self.done < self.r.hand_size and any(self.hands):
            seat = self._next
            self._play(seat, self._policy(seat))
        return self._score()

    def _first_lead(self):
        """(the seat that leads the hand, the card it must lead or None)."""
        r, view, n = self.r, self.view, self.r.players
        if r.first_lead == "dealer":
            return view["dealer"], None
        if r.first_lead == "low_club":
            t = self.t
            low = min(((t.power[c], s, c) for s in range(n) for c in self.hands[s]
                       if t.suit[c] == "C"), default=None)
            if low:
                return low[1], low[2]
        return (view["dealer"] + 1) % n, None

    def _play(self, seat, card):
        self.hands[seat].remove(card)
        trick = self.trick
        trick.append((seat, card))
        if breaks_spades(self.t, trick):
            self.broken = True
        if len(trick) < self.r.players:
            self._next = (seat + 1) % self.r.players
            return
        best = self.t.taker(trick)
        winner = trick[0 if best is None else best][0]  # T6a: a dead trick, its leader
        if best is not None:  # leads again
            self.won[winner] += 1
        self.done += 1
        self.trick = []
        self._next = winner

    # -- the quick policy (the fast robot's ideas, with every hand in sight) ------------
    def _policy(self, seat) -> str:
        t, trick = self.t, self.trick
        power = t.power
        cards = playable_cards(self.r, t, self.hands[seat], trick, self.broken, self.done,
                               None)
        if len(cards) == 1:
            return cards[0]
        low = sorted(cards, key=power.__getitem__)
        nil = self.bids[seat] in NILS and self.won[seat] == 0
        if not trick:
            if nil or self._ducking(seat):
                return low[0]
            top = [c for c in low if self._master(c)]
            return top[-1] if top else low[0]
        winners = [c for c in low if t.beats(c, trick)]
        losers = [c for c in low if c not in winners]
        if nil or self._ducking(seat):
            return losers[-1] if losers else low[0]
        lead = trick[t.winning(trick)][0]
        if self.side_of[lead] == self.side_of[seat] and lead != seat:
            if self.bids[lead] in NILS and self.won[lead] == 0:
                return winners[0] if winners else low[0]  # cover the partner's nil
            return losers[0] if losers else low[0]
        if not winners:
            return low[0]
        if len(trick) == self.r.players - 1:
            return winners[0]
        sure = [c for c in winners if self._master(c)]
        return sure[0] if sure else winners[0]

    def _master(self, card) -> bool:
        """No card still held anywhere beats `card` in its suit."""
        suit, power = self.t.suit, self.t.power
        s, p = suit[card], power[card]
        return not any(suit[c] == s and power[c] > p for h in self.hands for c in h)

    def _ducking(self, seat) -> bool:
        """The side has made its bid and more tricks would cost (bags near the limit, or a
        contract that punishes overtricks)."""
        r = self.r
        side = r.sides[self.side_of[seat]]
        bids = [self.bids[s] for s in side]
        if any(b is None for b in bids):
            return False
        need = sum(promised(b, r.hand_size) for b in bids)  # a moon: every trick (B10)
        if sum(self.won[s] for s in side if self.bids[s] not in NILS) < need:
            return False
        if r.contract != "standard" or r.overtrick_points <= 0:
            return True
        bags = self.view["sides"][self.side_of[seat]]["bags"]
        return bool(r.bag_limit) and bags >= r.bag_limit - 3

    # -- the score of the hand for this seat's side, less the others' mean --------------
    def _score(self) -> float:
        pad = _Pad(self.r, self.view, self.won)
        points = []
        for i, side in enumerate(self.r.sides):
            res = _score_side(pad, i, side)
            points.append(res["points"] - _bag_penalty(pad, i, res["bags"]))
        mine = points[self.side_of[self.seat]]
        return mine - (sum(points) - mine) / (len(points) - 1)


class _Pad:
    """Just enough of a State for scoring.py to score one played-out hand."""

    def __init__(self, rules, view, won):
        self.rules, self.won, self.bids = rules, won, view["bids"]
        self.sides = rules.sides  # the aces bonus asks whose the calls are (none here)
        self.blind = view["blind"]
        self.unbid = all(b is None for b in view["bids"])
        self.came_out = [False] * len(rules.sides)  # the view does not say; scores alike
        self.bags = [s["bags"] for s in view["sides"]]
        # a playout keeps no trick history: Mo, bonuses, no trump and the four aces, which
        # need it, are left out of the estimate (the contract and bags decide most hands)
        self.tricks, self.claimed_by, self.mo = [], None, None
        self.aces_called, self.no_trump = [], []
        self.hands = [[] for _ in won]
