"""The robots that play any seat of any preset from that seat's view alone, at three levels
(the rules option `robot`, or a seat's own level): "easy" (this module's rules of thumb; its
old name "fast"), "medium" (the sampler, sampler.py; old name "sampler") and "hard" (hard.py).

The easy robot

It bids about its sure tricks, plays low when its partner is winning, covers a partner's
nil, ducks tricks when a nil or the bag limit is at stake, and is deterministic given its
view and a seed (ties are broken by a generator seeded from both).
"""

import random

from .hard import best_bid as hard_bid
from .hard import best_card as hard_card
from .hard import blind_nil
from .rules import MOONS, NILS, Rules
from .sampler import best_bid, best_card, models
from .tricks import table_for

# every name a level has had: stored games and logs carry the old ones (the log format is a
# contract), so they are read for ever
LEVELS = {"easy": "easy", "medium": "medium", "hard": "hard", "fast": "easy",
          "sampler": "medium"}
LEVEL_NAMES = ("easy", "medium", "hard")


def level_of(name: str | None, rules=None) -> str:
    """The level a name stands for ("fast" is "easy", "sampler" "medium"); None: the
    rules' level. ValueError for a name that is none of them."""
    if name is None:
        name = rules.robot if rules is not None else "easy"
    try:
        return LEVELS[name.strip().lower()]
    except KeyError:
        raise ValueError(f"a robot level is easy, medium or hard, not {name!r}") from None

_SHARE = {2: 0.9, 3: 1.3, 4: 1.0, 5: 1.0, 6: 0.7}  # sure-trick estimate scaled by table size


def choose(view: dict, seed: int = 0, rules=None, *, level: str | None = None) -> dict:
    """The robot's action for the seat whose view this is, at `level` (a seat's own level;
    None: the rules' `robot` option)."""
    legal = view["legal"]
    if not legal:
        raise ValueError("the robot has nothing to do: this seat may not act now")
    rules = rules or Rules.from_dict(view["rules"])
    bot = _Robot(view, rules, random.Random(f"{seed}:{view['seq']}:{view['seat']}"))
    kinds = {a["type"] for a in legal}
    level = level_of(level, rules) if models(rules) else "easy"
    if "play" in kinds:
        if level == "hard":
            return {"type": "play", "card": hard_card(view, rules, bot.rng)}
        if level == "medium":  # looks ahead over sampled deals (sampler.py)
            return {"type": "play", "card": best_card(view, rules, bot.rng)}
        return {"type": "play", "card": bot.play([a["card"] for a in legal])}
    if "look" in kinds:
        blind = next((a for a in legal if a["type"] == "bid" and a["bid"] == "blind nil"), None)
        if level == "hard" and blind and blind_nil(view, rules, bot.rng, fast_bid):
            return dict(blind)
        return {"type": "look"}
    if "misdeal" in kinds:
        return {"type": "misdeal"}
    if "bid" in kinds:
        guess = bot.bid([a for a in legal if a["type"] == "bid"])
        if level == "hard":
            return hard_bid(view, rules, bot.rng, guess, fast_bid, sure=bot.sure_tricks())
        return best_bid(view, rules, bot.rng, guess) if level == "medium" else guess
    if "pass" in kinds:
        return {"type": "pass", "cards": bot.pass_cards(legal[0]["count"])}
    if "draw" in kinds:
        if "drawn_second" in view:  # T5a: keep the better of the two
            power = bot.t.power
            return {"type": "draw", "keep": power[view["drawn"]] >= power[view["drawn_second"]]}
        return {"type": "draw", "keep": bot.keep(view["drawn"])}
    if "come_out" in kinds:
        return {"type": "come_out"} if bot.sure_tricks() * 2 >= 10 else {"type": "stay"}
    return dict(legal[0])


def sure_tricks(view: dict, rules) -> float:
    """The easy robot's count of the seat's sure tricks (its bid's starting point)."""
    return _Robot(view, rules, random.Random(0)).sure_tricks()


def fast_bid(rules, view: dict, seat: int, hand: list[str], bids: list):
    """The easy robot's bid for `seat` holding `hand` after `bids` (the hard robot's guess at
    the bids of seats still to bid, on the hands it deals them)."""
    seen = dict(view, seat=seat, hand=hand, bids=bids)
    bot = _Robot(seen, rules, random.Random(0))
    top = rules.max_bid
    options = [{"type": "bid", "bid": b} for b in range(max(1, rules.bid_min), top + 1)]
    if rules.nil:
        options.append({"type": "bid", "bid": "nil"})
    return bot.bid(options)["bid"]


class _Robot:
    def __init__(self, view, rules, rng):
        self.v, self.r, self.rng = view, rules, rng
        self.t = table_for(rules)
        self.seat = view["seat"]
        self.hand = list(view["hand"] or [])
        self.side = next(i for i, s in enumerate(rules.sides) if self.seat in s)
        self.mates = [s for s in rules.sides[self.side] if s != self.seat]

    # -- bidding --------------------------------------------------------------
    def sure_tricks(self) -> float:
        suit, power = self.t.suit, self.t.power
        by_suit: dict[str, list[int]] = {}
        for c in self.hand:
            by_suit.setdefault(suit[c], []).append(power[c])
        est = 0.0
        spades = sorted(by_suit.get("S", []), reverse=True)
        top = 100 + 12 + len(self.r.top_trumps)  # power of the best trump in the deck
        for i, p in enumerate(spades):
            gap = (top - p) if p >= 200 else (112 - p + len(self.r.top_trumps))
            if gap <= i:  # no more higher spades out than spades of mine above it
                est += 1
            elif gap <= i + 2 and len(spades) > gap:
                est += 0.6
        est += max(0, len(spades) - 4) * 0.7
        for s, ps in by_suit.items():
            if s == "S":
                continue
            ps.sort(reverse=True)
            if ps[0] == 12:
                est += 1
            if any(p == 11 for p in ps) and len(ps) >= 2:
                est += 0.7 if len(ps) <= 5 else 0.3
            if any(p == 10 for p in ps) and len(ps) >= 3:
                est += 0.3
        short = sum(1 for s in "HDC" if len(by_suit.get(s, [])) <= 1)
        if len(spades) >= 3:
            est += 0.5 * short
        # fewer players means each high card is likelier to hold (4 is the base)
        return est * _SHARE[self.r.players] if self.hand else 3.0

    def bid(self, options) -> dict:
        v, r = self.v, self.r
        est = self.sure_tricks()
        numbers = [o for o in options if isinstance(o["bid"], int) and not o.get("blind")]
        nil = next((o for o in options if o["bid"] == "nil"), None)
        spades_high = any(self.t.power[c] >= 110 for c in self.hand)
        partner_nil = any(v["bids"][m] in NILS for m in self.mates)
        if nil and est < 1.2 and not spades_high and not partner_nil:
            return {"type": "bid", "bid": "nil"}
        want = est
        if r.bidding == "side":
            want = est + 2.5  # the partner's hand is unseen: count on an average one
        if partner_nil:
            want += 1
        if r.bag_limit and v["sides"][self.side]["bags"] >= r.bag_limit - 3:
            want += 0.5  # bid up rather than collect the bags that cost the penalty
        moon = next((o for o in options if o["bid"] == "moon"), None)
        if moon and est >= self.r.hand_size - 0.5:  # B10: every trick looks sure
            return {"type": "bid", "bid": "moon"}
        target = max(round(want), 1)
        if not numbers:
            pick = nil or options[0]
        else:
            pick = min(numbers, key=lambda o: (abs(o["bid"] - target), o["bid"]))
        return {"type": "bid", **{k: val for k, val in pick.items() if k != "type"}}

    # -- passing and drawing --------------------------------------------------------
    def pass_cards(self, count) -> list[str]:
        power = self.t.power
        v = self.v
        me_nil = v["bids"][self.seat] in NILS
        high_first = sorted(self.hand, key=lambda c: -power[c])
        if me_nil:
            return high_first[:count]  # the nil bidder sheds its winners
        return high_first[::-1][:count]  # partner gets our low cards only when covering

    def keep(self, card) -> bool:
        return self.t.suit[card] == "S" or self.t.power[card] >= 10

    # -- play ------------------------------------------------------------------
    def play(self, cards) -> str:
        v = self.v
        power = self.t.power
        trick = [(x["seat"], x["card"]) for x in v["trick"]]
        me_nil = v["bids"][self.seat] in NILS
        mate_nil = any(v["bids"][m] in NILS and v["won"][m] == 0 for m in self.mates)
        low = sorted(cards, key=lambda c: power[c])
        if not trick:
            return self._lead(low, me_nil, mate_nil)
        winners = [c for c in low if self.t.beats(c, trick)]
        losers = [c for c in low if c not in winners]
        leader_seat = trick[self.t.winning(trick)][0]
        last = len(trick) == self.r.players - 1
        if me_nil or self._ducking():
            return losers[-1] if losers else low[0]
        if leader_seat in self.mates:
            if mate_nil and winners:
                return winners[0]  # cover the nil: take it over
            if not mate_nil:
                return losers[0] if losers else low[0]
        if winners:
            if last:
                return winners[0]
            return winners[-1] if power[winners[-1]] >= 112 else winners[0]
        return low[0]

    def _lead(self, low, me_nil, mate_nil) -> str:
        if me_nil or self._ducking():
            return low[0]
        suit = self.t.suit
        masters = [c for c in low if self._master(c)]
        if masters and not mate_nil:
            return masters[-1]
        non_spades = [c for c in low if suit[c] != "S"]
        if mate_nil:
            return (non_spades or low)[-1]
        pool = non_spades or low
        return self.rng.choice(pool[: max(1, len(pool) // 3)])

    def _master(self, card) -> bool:
        """No card still out beats `card` in its suit."""
        suit, power = self.t.suit, self.t.power
        seen = set(self.hand)
        for t in self.v["tricks"]:
            seen |= {x["card"] for x in t["cards"]}
        higher = [c for c in self.r.deck() if suit[c] == suit[card] and power[c] > power[card]]
        return all(c in seen for c in higher)

    def _ducking(self) -> bool:
        """Has our side made its bid with the bag limit near? Then take no more."""
        v, r = self.v, self.r
        side = r.sides[self.side]
        bids = [v["bids"][s] for s in side]
        if r.bidding == "seat" and any(b is None for b in bids):
            return False
        if any(b in MOONS for b in bids):
            return False  # a moon needs every trick
        need = sum(b for b in bids if isinstance(b, int))
        got = sum(v["won"][s] for s in side if v["bids"][s] not in NILS)
        if got < need:
            return False
        if r.contract != "standard" or r.overtrick_points <= 0:
            return True  # overtricks cost points outright (S8, S9, S3)
        return bool(r.bag_limit) and v["sides"][self.side]["bags"] >= r.bag_limit - 3
