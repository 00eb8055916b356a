"""The hard robot (issue 33): the sampler's determinized playouts, with the nil and the bags
in mind and the game's whole scoring counted.

- Bids: it deals the unseen cards at random a few dozen times, plays each deal out once as
  if it bid a number and once as if it bid nil (the partner covering), and scores every
  candidate bid on those outcomes with the engine's own scoring (scoring.py: Mo, bonuses,
  no trump, the four aces and moons included, since the playouts keep their tricks). The
  seats still to bid are given the fast robot's bid for the hand dealt them. Before it
  looks at its cards it weighs a blind nil the same way, over hands dealt to itself too.
- Plays: the card whose playouts score best for its side less the others' mean, where the
  playout policy covers a partner's nil (plays high before the nil bidder, overtakes it),
  sets an opponent's nil (plays under it, leads low into it), and ducks overtricks once the
  bid is made when bags cost; a bag is valued at its long-run cost unless the game is at
  stake this hand, when only the points and the target count.

Like the sampler it reads only the view and is deterministic given the view and a seed; a
counted budget of simulated card plays keeps a decision within 100 ms (bench/robot.py).
"""

from .rules import MOONS, NILS, promised
from .sampler import _distinct, _Knowledge, _Playout
from .sampler import best_card as sampled_card
from .scoring import _bag_penalty, _score_side
from .tricks import playable_cards, table_for

MAX_SAMPLES = 40  # deals for a card (the sampler's budget of card plays, fewer deals)
BID_SAMPLES = 24  # deals for a bid, each played out once for a number and once for nil
STAKE = 100  # points a won (or lost) game is worth on top of the hand's, when at stake


def best_card(view: dict, rules, rng) -> str:
    """The legal card with the best mean playout value for the seat's side: the sampler's
    search with the hard robot's playouts, over at most MAX_SAMPLES deals."""
    return sampled_card(view, rules, rng, HardPlayout, MAX_SAMPLES)


def card_on_deal(view: dict, rules, hands) -> str:
    """The ceiling's card (bench/robot.py only): the same search on the one true deal."""
    legal = list(dict.fromkeys(a["card"] for a in view["legal"] if a["type"] == "play"))
    t = table_for(rules)
    cands = _distinct(legal, view, rules, t)
    totals = {c: HardPlayout(view, rules, t, hands).run(c) for c in cands}
    return max(cands, key=lambda c: (totals[c], -t.power[c]))


# -- bidding --------------------------------------------------------------------------------

NIL_HOPELESS = 3.5  # the easy robot's sure tricks from which a nil is not played out


def best_bid(view: dict, rules, rng, guess: dict, fast, deals=None, sure=0.0) -> dict:
    """A number, nil or the `guess` (the fast robot's bid: the choice for what this does not
    weigh, such as moons, blind numbers and side bidding). `fast(rules, view, seat, hand, bids)`
    gives the fast robot's bid for another seat on a dealt hand. `deals` (the bench's
    ceiling only) is the one true deal to weigh the bids on instead of sampled ones. With
    `sure` (the easy robot's count of sure tricks) at NIL_HOPELESS or more, a nil is not
    weighed: half the time of a bid, and such a nil never pays."""
    bids = [a for a in view["legal"] if a["type"] == "bid"]
    numbers = sorted({a["bid"] for a in bids if a["bid"].__class__ is int
                      and not a.get("blind") and len(a) == 2})
    nil = sure < NIL_HOPELESS and any(a["bid"] == "nil" and len(a) == 2 for a in bids)
    if rules.bidding != "seat" or not (numbers or nil) or guess["bid"] in MOONS \
            or (guess["bid"].__class__ is int and (guess.get("blind") or len(guess) > 2)):
        return guess
    t = table_for(rules)
    know = _Knowledge(view, rules, t)
    base = guess["bid"] if guess["bid"].__class__ is int else (numbers or [1])[0]
    number_runs, nil_runs = [], []
    for _ in range(BID_SAMPLES if deals is None else 1):
        hands = know.deal(rng) if deals is None else [list(h) for h in deals]
        hands[view["seat"]] = list(view["hand"])
        guessed = _guess_bids(view, rules, hands, fast)
        number_runs.append(_play_whole(view, rules, t, hands, guessed, base))
        if nil:
            nil_runs.append(_play_whole(view, rules, t, hands, guessed, "nil"))
    value: dict[int | str, float] = {b: _mean(number_runs, b) for b in numbers}
    if nil:
        value["nil"] = _mean(nil_runs, "nil")
    best = max(value, key=lambda b: (value[b], -abs(b - base) if isinstance(b, int) else -99))
    return {"type": "bid", "bid": best}


def blind_nil(view: dict, rules, rng, fast) -> bool:
    """Before looking: does a blind nil beat bidding after a look, over hands dealt to this
    seat too (no card is seen yet, so every card is equally likely anywhere)?"""
    t = table_for(rules)
    seat = view["seat"]
    deck = sorted(t.deck)
    runs_bn, runs_look = [], []
    for _ in range(BID_SAMPLES):
        cards = list(deck)
        rng.shuffle(cards)
        hands, at = [], 0
        for size in view["hand_sizes"]:
            hands.append(cards[at:at + size])
            at += size
        seen = dict(view, hand=hands[seat])
        guessed = _guess_bids(seen, rules, hands, fast)
        mine = fast(rules, seen, seat, hands[seat], view["bids"])
        mine = mine if mine.__class__ is int else 1
        runs_look.append((mine, _play_whole(seen, rules, t, hands, guessed, mine)))
        runs_bn.append(_play_whole(seen, rules, t, hands, guessed, "blind nil"))
    look = sum(_value(o, b) for b, o in runs_look) / len(runs_look)
    return _mean(runs_bn, "blind nil") > look


def _guess_bids(view, rules, hands, fast) -> list:
    """The bids made, and the fast robot's for each seat still to bid (on its dealt hand),
    in the bidding order from this seat on (a partner's bid knows of a nil before it)."""
    bids = list(view["bids"])
    n = rules.players
    for k in range(1, n):
        s = (view["seat"] + k) % n
        if bids[s] is None:
            bids[s] = fast(rules, view, s, hands[s], bids)
    return bids


class _Outcome:
    """One played-out hand: the tricks (for scoring) and the playout that made them."""

    def __init__(self, play):
        self.play = play


def _play_whole(view, rules, t, hands, bids, mine) -> "_Outcome":
    bids = list(bids)
    bids[view["seat"]] = mine
    play = HardPlayout(dict(view, bids=bids), rules, t, hands)
    play.run(None)
    return _Outcome(play)


def _value(outcome, bid) -> float:
    return outcome.play.value_for(bid)


def _mean(runs, bid) -> float:
    return sum(_value(o, bid) for o in runs) / len(runs)


# -- the playout ----------------------------------------------------------------------------

class HardPlayout(_Playout):
    """The sampler's playout, keeping its tricks (for Mo, bonuses, no trump and aces) and
    playing a policy that knows the nils and the bags."""

    def __init__(self, view, rules, t, hands):
        super().__init__(view, rules, t, hands)
        self.bids = list(self.bids)
        self.history = [([(x["seat"], x["card"]) for x in tr["cards"]], tr["winner"])
                        for tr in view["tricks"]]
        self.opp_nil_set = [False] * rules.players

    def _play(self, seat, card):
        before = len(self.trick)
        trick = self.trick + [(seat, card)]
        super()._play(seat, card)
        if before + 1 == self.r.players:
            best = self.t.taker(trick)
            self.history.append((trick, None if best is None else trick[best][0]))

    def _policy(self, seat) -> str:
        t, trick = self.t, self.trick
        cards = playable_cards(self.r, t, self.hands[seat], trick, self.broken, self.done,
                               None)
        if len(cards) == 1:
            return cards[0]
        power = t.power
        low = sorted(cards, key=power.__getitem__)
        if self._live_nil(seat):
            if not trick:
                return low[0]
            losers = [c for c in low if not t.beats(c, trick)]
            return losers[-1] if losers else low[-1]  # can't duck: win with the top, then
        mate = self._mate_nil(seat)
        foe = self._foe_nil(seat)
        if mate is not None:
            return self._cover(seat, mate, low)
        if foe is not None and not self._behind_bid(seat):
            return self._set(seat, foe, low)
        return super()._policy(seat)

    # -- nil situations --
    def _live_nil(self, seat) -> bool:
        return self.bids[seat] in NILS and self.won[seat] == 0

    def _mate_nil(self, seat):
        return next((s for s in self.r.sides[self.side_of[seat]]
                     if s != seat and self._live_nil(s)), None)

    def _foe_nil(self, seat):
        return next((s for s in range(self.r.players)
                     if self.side_of[s] != self.side_of[seat] and self._live_nil(s)), None)

    def _to_play(self, seat) -> list[int]:
        """The seats after `seat` in the current trick."""
        n = self.r.players
        return [(seat + k) % n for k in range(1, n - len(self.trick))]

    def _cover(self, seat, mate, low) -> str:
        """Partner bid nil: lead high, play over the nil bidder's card or before it."""
        t, trick = self.t, self.trick
        if not trick:
            return low[-1]
        if mate in self._to_play(seat):
            winners = [c for c in low if t.beats(c, trick)]
            return winners[-1] if winners else low[0]
        lead = trick[t.winning(trick)][0]
        if lead == mate:
            winners = [c for c in low if t.beats(c, trick)]
            return winners[0] if winners else low[0]
        return low[0]  # the nil is safe this trick

    def _set(self, seat, foe, low) -> str:
        """An opponent bid nil: lead low, and play under its card so it wins the trick."""
        t, trick = self.t, self.trick
        if not trick:
            return low[0]
        lead = trick[t.winning(trick)][0]
        losers = [c for c in low if not t.beats(c, trick)]
        if lead == foe:
            return losers[-1] if losers else low[0]
        if foe in self._to_play(seat):
            return losers[-1] if losers else low[0]  # leave the trick low for it to top
        return super()._policy(seat)

    def _behind_bid(self, seat) -> bool:
        """Has the side still to make its own bid? Then it takes tricks first."""
        side = self.r.sides[self.side_of[seat]]
        need = sum(promised(self.bids[s], self.r.hand_size) for s in side
                   if self.bids[s] is not None and self.bids[s] not in NILS)
        got = sum(self.won[s] for s in side if self.bids[s] not in NILS)
        left = self.r.hand_size - self.done
        return got < need and need - got >= left - 1

    # -- value --
    def _score(self) -> float:
        return self.value_for(None)

    def value_for(self, bid) -> float:
        """This side's hand points less the others' mean, by the engine's scoring, with
        this seat's bid as `bid` (None: as played); bags at their long-run cost unless the
        game is at stake, when a won or lost game counts STAKE."""
        bids = list(self.bids)
        if bid is not None:
            bids[self.seat] = bid
        pad = _FullPad(self, bids)
        r, view = self.r, self.view
        stake = _at_stake(r, view)
        cost = r.bag_penalty / r.bag_limit if r.bag_limit and not stake else 0
        points, totals = [], []
        for i, side in enumerate(r.sides):
            res = _score_side(pad, i, side)
            hand = res["points"] - _bag_penalty(pad, i, res["bags"])
            totals.append(view["sides"][i]["score"] + hand)
            points.append(hand - cost * res["bags"])
        me = self.side_of[self.seat]
        value = points[me] - (sum(points) - points[me]) / (len(points) - 1)
        if stake:
            value += STAKE * _game_result(r, totals, me)
        return value


def _at_stake(rules, view) -> bool:
    """May this hand end the game (a side within a big hand of the target)?"""
    return max(s["score"] for s in view["sides"]) >= rules.target - 150


def _game_result(rules, totals, me) -> int:
    """+1 if this side wins the game on these totals, -1 if another does, 0 if it goes on."""
    top = max(totals)
    if top < rules.target or totals.count(top) > 1:
        return 0
    return 1 if totals[me] == top else -1


class _FullPad:
    """Enough of a State for scoring.py to score a played-out hand, tricks and calls
    included (what the sampler's pad leaves out)."""

    def __init__(self, play, bids):
        view, rules = play.view, play.r
        self.rules, self.won, self.bids = rules, play.won, bids
        self.sides, self.side_of, self.n = rules.sides, play.side_of, rules.players
        self.table = play.t
        self.blind = view["blind"]
        self.unbid = all(b is None for b in view["bids"]) and rules.first_hand_unbid \
            and view["hand_no"] == 1
        self.came_out = [view.get("come_out_side") == i for i in range(len(rules.sides))]
        self.bags = [s["bags"] for s in view["sides"]]
        self.tricks = play.history
        self.claimed_by = None
        self.mo = view.get("mo")
        self.aces_called = list(view.get("aces") or [])
        self.no_trump = list(view.get("no_trump") or [])
        self.hands = play.hands
        self.looked = [True] * rules.players
