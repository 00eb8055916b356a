"""Whole games under every preset, driven by random legal actions and by robots.

Every game is held to properties that need no knowledge of the particular deal: every card
is played once a hand, the tricks add up, the scores follow from the hand results, the
exported log replays to the same state, no view shows a card its seat may not see, and a
robot never makes an illegal move. The README's `scripts/test` plays about a quarter of the
games; PBEM_PROPERTY_GAMES=full (`.ci/run`) all of them.
"""

import json
import os
import random
import re
from collections import Counter
from dataclasses import fields

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as hs

from pbem.engine import (
    PRESETS,
    IllegalAction,
    Rules,
    advance,
    apply,
    choose,
    legal,
    make_deal,
    new_game,
    preset,
    replay,
    score_pad,
    view,
)
from pbem.engine.rules import _CHOICES as CHOICES
from pbem.engine.rules import BOUNDS, MISDEAL_TESTS, RulesError

NAMES = list(PRESETS)
# options no preset plays, so that random games also pass cards, call misdeals, look at
# their cards before bidding blind, come out of blind bids, and keep bags in the score
VARIANTS = {
    "passing": ("standard", dict(pass_to_partner=3, nil_exchange=1, double_nil=(200, 0, -200),
                                 double_nil_exchange=2, misdeal=("one_spade", "long_suit"))),
    "blind": ("standard", dict(blind_nil_behind=0, bags_in_score=True, overtrick_points=0,
                               nil_fail="help", bag_limit=3, misdeal=("one_spade", "long_suit"),
                               misdeal_before="bidding")),
    "blind-bids": ("nyc", dict(blind_behind=-1000, first_hand_unbid=False)),
    "cutthroat-blind": ("cutthroat-4", dict(blind_min=5, blind_nil=True, blind_nil_behind=0,
                                            set_by_shortfall=True, bag_overflow="reset")),
    # issue 17's house rules together: leftover to the dealer, rake, moon, Mo, aces, no
    # trump, a raise round, bonuses and the bag-cancelling card
    "house": ("standard", dict(jokers=True, top_trumps=("BJ", "LJ"), leftover="dealer",
                               rake=True, moon=200, blind_moon=400, mo="mo", aces_bonus=100,
                               no_trump=True, raise_round=True, high_bid_bonus=True,
                               last_spades_bonus=10, last_trick_bonus=10,
                               bag_cancel_card="3S", double_nil=(500, -250, -250),
                               double_nil_bonus=100)),
    # D6: the higher-bidding side takes the leftover cards after the bidding, with passing
    "high-side": ("standard", dict(jokers=True, top_trumps=("BJ", "LJ"), leftover="high_side",
                                   pass_to_partner=2, nil_exchange=1)),
    "discard-after-bid": ("tournament-500", dict(remove=(), leftover="two_clubs",
                                                 leftover_after_bid=True)),
    # the same after passes and an unbid first hand (B13), where no bidding comes first
    "discard-unbid": ("standard", dict(jokers=True, top_trumps=("BJ", "LJ"), leftover="dealer",
                                       leftover_after_bid=True, first_hand_unbid=True,
                                       pass_to_partner=2)),
    # T4 with nil, standard scoring, must_beat, a raise round, moons and a pass to the left
    "dummy": ("dummy-3", dict(nil=True, bid_min=1, contract="standard", bag_limit=10,
                              must_beat=True, raise_round=True, moon=200, pass_to_partner=1,
                              pass_to="left", last_spades_bonus=10, bag_cancel_card="3S")),
    "five": ("cutthroat-4", dict(players=5, remove=("2C", "2D"), pass_to_partner=2,
                                 pass_to="left", must_beat=False)),
    "six-cancel": ("six-handed", dict(identical="cancel", forced_bids="suicide",
                                      blind_nil=False, blind_nil_exchange=0)),
}
# games begun before edition 2 (docs/rules.md "Editions") play on as they were played
VARIANTS |= {f"{name}-edition-1": (base, dict(options, edition=1))
             for name, (base, options) in VARIANTS.items() if name in ("house", "six-cancel")}
VARIANTS["whiz-raise-edition-1"] = ("whiz", dict(raise_round=True, edition=1))
HANDS = 3  # hands a game is played for at most: enough for scores to carry over
CARD = re.compile(r'"([2-9TJQKA][SHDC]|BJ|LJ)"')  # a card as a JSON string
SLOW = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# .ci/run plays every property's full number of games (PBEM_PROPERTY_GAMES=full); the
# README's run about a quarter: the same tests (in full they took 331 s of its test time)
FULL = os.environ.get("PBEM_PROPERTY_GAMES") == "full"


def games(full: int, quick: int) -> int:
    """A property's hypothesis examples (games) under each preset or variant."""
    return full if FULL else quick


# -- playing -------------------------------------------------------------------------------


def random_pick(rng):
    """A player choosing uniformly among the legal actions (claims aside)."""

    def pick(st, seat):
        act = rng.choice([a for a in legal(st, seat) if a["type"] != "claim"])
        if act["type"] == "pass":  # not rng.sample: hypothesis's random may replay a
            cards = list(st.hands[seat])  # sample drawn from a longer hand (IndexError)
            rng.shuffle(cards)
            return {"type": "pass", "cards": cards[:act["count"]]}
        return act

    return pick


def robot_pick(seed):
    """The robot, which must only ever choose one of the legal actions."""

    def pick(st, seat):
        act = choose(view(st, seat), seed)
        options = legal(st, seat)
        if act["type"] == "pass":
            assert options == [{"type": "pass", "count": len(act["cards"])}]
            assert not Counter(act["cards"]) - Counter(st.hands[seat])
        else:
            assert act in options, f"robot chose {act}, legal: {options}"
        return act

    return pick


def mixed_pick(rng, robots):
    """Seats in `robots` are robots (seeded from `rng`), the others play at random."""
    rand = random_pick(rng)

    def pick(st, seat):
        if seat in robots:
            return robot_pick(rng.randrange(1000))(st, seat)
        return rand(st, seat)

    return pick


def play(rules, pick, rng, first_dealer, hands=HANDS, watch=None):
    """Play until the game is over or `hands` hands are done; `watch(st, events)` sees
    the state after every event. Returns the state and the log."""
    st, events = new_game(rules, first_dealer), []
    limit = 3 * hands * (len(rules.deck()) + 5 * rules.players)  # more means it is stuck
    while st.phase != "over" and st.hand_no < hands:
        assert len(events) < limit, "the game makes no progress"
        if st.phase == "deal":
            new = [make_deal(st, rng)]
        else:
            seat = rng.choice(st.to_act())
            new = apply(st, seat, pick(st, seat))  # raises IllegalAction on a bad move
        for ev in new:
            advance(st, ev)
            events.append(ev)
            if watch:
                watch(st, events)
    return st, events


# -- the properties ------------------------------------------------------------------------


def finished_hands(rules, events):
    """(cards in play, cards played) of each hand played to its end, from the log alone."""
    done, in_play, played, stock, discard = [], Counter(), [], [], 0
    per_hand = rules.hand_size * rules.hands  # T4: the dummy's hand is played too
    prebid = rules.players if rules.pass_to_partner else 0  # pass events before bidding
    for ev in events:
        kind = ev["type"]
        if kind == "deal":
            dealt = [c for h in ev["hands"] for c in h] + ev.get("dummy", [])
            every = dealt + ev.get("stock", []) + ev.get("out", [])
            assert Counter(every) == Counter(rules.deck())
            in_play = Counter(dealt)
            stock, played, passes = list(ev.get("stock", [])), [], 0
            taken = ev.get("out", []) if rules.leftover in LEFTOVER_TAKEN else []
            discard = len(taken)  # D6: a seat takes the leftover cards, discards as many
        elif kind == "pass":
            passes += 1  # the discard: the first passes, or (D6 variants) after the bidding
            if discard and (not discard_after_bid(rules) or passes > prebid):
                in_play += Counter(taken)  # (an unbid first hand, B13: no side bid more,
                in_play -= Counter(ev["cards"])  # and the cards stay out)
                discard -= len(ev["cards"])
                taken = []
        elif kind == "draw":  # T5b: keep the top card and discard the next, or the reverse
            top, nxt = stock.pop(0), stock.pop(0)
            in_play[top if ev["keep"] else nxt] += 1
        elif kind == "play":
            played.append(ev["card"])
            if len(played) == per_hand:
                done.append((in_play, played))
    return done


LEFTOVER_TAKEN = ("dealer", "two_clubs", "high_side")  # D6: taken up, then discarded


def discard_after_bid(rules) -> bool:
    return rules.leftover == "high_side" or rules.leftover_after_bid


def check_cards(rules, st, events):
    hands = finished_hands(rules, events)
    assert len(hands) == len(st.history)
    for in_play, played in hands:
        assert sum(in_play.values()) == rules.hand_size * rules.hands
        assert Counter(played) == in_play


def check_tricks(rules, st):
    for row in st.history:
        # T6a: a dead trick (identical cards cancelled, edition 2) is won by no side
        assert sum(side["tricks"] for side in row["sides"]) + row.get("dead", 0) \
            == rules.hand_size
        assert not row.get("dead") or (rules.identical == "cancel" and rules.edition >= 2)


def bag_rule(rules, total):
    """S2: (penalty, bags kept) for a side now holding `total` bags."""
    if not rules.bag_limit:
        return 0, total
    if rules.bag_overflow == "carry":
        times, kept = divmod(total, rules.bag_limit)
        return times * rules.bag_penalty, kept
    if rules.bag_overflow == "carry_once":
        return (rules.bag_penalty, total - rules.bag_limit) if total >= rules.bag_limit \
            else (0, total)
    return (rules.bag_penalty, 0) if total >= rules.bag_limit else (0, total)


def plain_contract(rules, side) -> bool:
    """A side's row that S1 or S8 alone scores: a number bid, no nil, no blind, no bonus."""
    if side["bid"] is None or side.get("nils") or side.get("blind") or side.get("mo") \
            or side.get("moon") or side.get("bonus") or side.get("bag_cancelled") \
            or "no_trump" in side:
        return False
    if rules.contract == "cutthroat":
        return not rules.twice_bid_loses  # taking twice the bid loses it there too (S3)
    return (rules.contract == "standard" and not (rules.ten_for and side["bid"] >= 10)
            and not rules.twice_bid_loses and not rules.set_by_shortfall)


def check_contract(rules, side):
    if not plain_contract(rules, side):
        return
    bid, tricks = side["bid"], side["tricks"]
    over = tricks - bid
    if over < 0:
        assert (side["points"], side["set"]) == (-10 * bid, True)
    elif rules.contract == "cutthroat":  # S8: each overtrick takes 10 off
        assert (side["points"], side["set"]) == (10 * bid - 10 * over, False)
    else:
        assert (side["points"], side["bags"], side["set"]) == (
            10 * bid + over * rules.overtrick_points, over, False)


def check_scores(rules, st):
    """Recompute every running total and bag count from the hand results alone."""
    scores, bags = [0] * len(st.sides), [0] * len(st.sides)
    for row in st.history:
        assert len(row["sides"]) == len(st.sides)
        for i, side in enumerate(row["sides"]):
            check_contract(rules, side)
            penalty, bags[i] = bag_rule(rules, bags[i] + side["bags"])
            scores[i] += side["points"] - penalty
            shown = scores[i] + (bags[i] if rules.bags_in_score else 0)
            assert (side["bag_penalty"], side["total_bags"], side["score"]) == (
                penalty, bags[i], shown)
    pad = score_pad(st)
    assert [s["bags"] for s in pad["sides"]] == bags
    assert [s["score"] - (s["bags"] if rules.bags_in_score else 0)
            for s in pad["sides"]] == scores


def check_end(rules, st):
    """E1/E4: the game ends with the single highest score at or over the target."""
    shown = [s["score"] for s in score_pad(st)["sides"]]
    if rules.sets_to_lose or rules.floor is not None or rules.boston_wins or rules.moon_wins \
            or rules.double_nil_ends or rules.blind_double_nil_ends:
        return  # other ways to end: the scores alone do not say
    top = max(shown)
    unique = shown.count(top) == 1
    ends = top >= rules.target or (rules.max_hands and len(st.history) >= rules.max_hands)
    if st.phase == "over":
        assert unique and ends and shown[st.winner] == top
    else:
        assert st.winner is None and not (unique and ends)


def check_replay(rules, st, events):
    """The exported log (JSON) replays, under the stored rules, to the same state."""
    stored = Rules.from_dict(json.loads(rules.to_json()))
    assert stored == rules
    again = replay(stored, json.loads(json.dumps(events)))
    assert (again.seq, again.phase) == (st.seq, st.phase)
    assert score_pad(again) == score_pad(st)
    for seat in [None, *range(st.n)]:
        assert view(again, seat) == view(st, seat)


def check_game(rules, st, events):
    assert st.seq == len(events)
    check_cards(rules, st, events)
    check_tricks(rules, st)
    check_scores(rules, st)
    check_end(rules, st)
    check_replay(rules, st, events)


# -- what views show -------------------------------------------------------------------------


def cards_in(obj) -> set:
    """Every card named anywhere in a view, as a JSON string (the ruleset's lists aside)."""
    if isinstance(obj, dict):
        obj = {k: v for k, v in obj.items() if k != "rules"}
    return set(CARD.findall(json.dumps(obj)))


def own_cards(st, seat) -> set:
    """What a seat may know: its hand once looked at, what it passed, received, discarded
    and the card it is drawing."""
    mine = set(st.passed_away[seat]) | set(st.passed_to[seat]) | set(st.discards[seat])
    if st.looked[seat]:
        mine |= set(st.hands[seat])
    if st.phase == "draw" and st.turn == seat:
        mine.update(st.stock[:2] if st.rules.draw_two else st.stock[:1])
    return mine


class ViewWatch:
    """After every event: each view shows only its own cards and the public ones."""

    def __init__(self, rules):
        self.deck = set(rules.deck())
        self.played = []  # this hand's cards on the table, from the log
        self.dummy = []  # T4: the dummy's cards, from the deal: public once a card is led

    def __call__(self, st, events):
        ev = events[-1]
        if ev["type"] == "deal":
            self.played, self.dummy = [], ev.get("dummy", [])
        elif ev["type"] == "play":
            self.played.append(ev["card"])
        in_play = st.phase not in ("deal", "over")
        public = set(self.played) if in_play else self.deck  # a finished hand is shown
        if in_play and self.played:
            public |= set(self.dummy)
        assert cards_in(view(st, None)) <= public
        for seat in range(st.n):
            extra = cards_in(view(st, seat)) - public - own_cards(st, seat)
            assert not extra, f"seat {seat} sees {sorted(extra)} in phase {st.phase}"


def check_legal_agrees(st):
    """apply() accepts exactly what legal() offers: every card of every hand, every bid."""
    for seat in range(st.n):
        offered = legal(st, seat)
        cards = st.hands[seat] + st.dummy_hand  # T4: the dummy's only at its turn, by its
        tries = [{"type": "play", "card": c} for c in dict.fromkeys(cards)]  # declarer
        if st.phase == "bid":
            bids = ["nil", "blind nil", *range(st.rules.max_bid + 2)]
            tries = [{"type": "bid", "bid": b} for b in bids]
            tries += [{"type": "bid", "bid": b, "blind": True} for b in range(st.rules.max_bid + 1)]
        for action in tries:
            assert accepts(st, seat, action) == (action in offered), (seat, action, offered)


def accepts(st, seat, action) -> bool:
    try:
        apply(st, seat, action)
    except IllegalAction:
        return False
    return True


class LegalWatch(ViewWatch):
    def __call__(self, st, events):
        super().__call__(st, events)
        check_legal_agrees(st)


# -- the tests -------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@settings(SLOW, max_examples=games(full=8, quick=2))
@given(rng=hs.randoms(use_true_random=False), first=hs.integers(0, 5),
       max_hands=hs.sampled_from([0, 1, 2]), robots=hs.sets(hs.integers(0, 5), max_size=3))
def test_random_games(name, rng, first, max_hands, robots):
    """Random legal play (some seats robots); max_hands lets some games reach their end."""
    rules = preset(name)
    if max_hands:
        rules = rules.with_options(max_hands=max_hands)
    pick = mixed_pick(rng, robots)
    st, events = play(rules, pick, rng, first % rules.players, watch=LegalWatch(rules))
    check_game(rules, st, events)


@pytest.mark.slow
@pytest.mark.parametrize("name", VARIANTS)
@settings(SLOW, max_examples=games(full=8, quick=2))
@given(rng=hs.randoms(use_true_random=False), first=hs.integers(0, 5),
       robots=hs.sets(hs.integers(0, 5), max_size=2))
def test_random_games_variants(name, rng, first, robots):
    """As above, under options no preset plays (passing, misdeals, blind bids)."""
    base, options = VARIANTS[name]
    rules = preset(base).with_options(**options)
    st, events = play(rules, mixed_pick(rng, robots), rng, first % rules.players,
                      watch=LegalWatch(rules))
    check_game(rules, st, events)


@hs.composite
def option_sets(draw):
    """A preset with a random draw of options changed (booleans, choices, numbers in their
    bounds, misdeal tests), kept only if the engine accepts the combination."""
    base = preset(draw(hs.sampled_from(NAMES)))
    keys = draw(hs.sets(hs.sampled_from(sorted(OPTION_VALUES)), min_size=1, max_size=6))
    options = {k: draw(OPTION_VALUES[k]) for k in keys}
    try:
        return base.with_options(**options)
    except RulesError:
        assume(False)


_FLAGS = [f.name for f in fields(Rules) if f.type in (bool, "bool")]
OPTION_VALUES = {name: hs.booleans() for name in _FLAGS} | {
    key: hs.sampled_from(choices) for key, choices in CHOICES.items()} | {
    key: hs.integers(lo, hi) for key, (lo, hi) in BOUNDS.items() if key != "target"} | {
    "target": hs.integers(50, 300),  # games that end within the hands played
    "misdeal": hs.sets(hs.sampled_from(MISDEAL_TESTS), max_size=2).map(tuple),
    "bag_cancel_card": hs.sampled_from(["", "3S", "7H", "2C"]),
    "double_nil": hs.none() | hs.tuples(*[hs.integers(-300, 300)] * 3)}


@pytest.mark.slow
@settings(SLOW, max_examples=int(os.environ.get("PBEM_OPTION_EXAMPLES",
                                                games(full=40, quick=10))))
@given(rules=option_sets(), rng=hs.randoms(use_true_random=False),
       robots=hs.sets(hs.integers(0, 5), max_size=2))
def test_random_option_combinations(rules, rng, robots):
    """Any combination the engine accepts plays legally: every property holds."""
    st, events = play(rules, mixed_pick(rng, robots), rng, 0, hands=2,
                      watch=LegalWatch(rules))
    check_game(rules, st, events)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@settings(SLOW, max_examples=games(full=10, quick=3))
@given(seed=hs.integers(0, 2**32 - 1))
def test_robot_games(name, seed):
    """Four (or 2, 3, 6) robots: every move legal, every property holds."""
    rules = preset(name)
    rng = random.Random(seed)
    st, events = play(rules, robot_pick(seed), rng, seed % rules.players,
                      watch=ViewWatch(rules))
    check_game(rules, st, events)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_robot_game_to_the_end(name):
    """Robots play a whole game (up to 40 hands); views checked at every step."""
    rules = preset(name)
    rng = random.Random(name)
    st, events = play(rules, robot_pick(7), rng, 1, hands=40, watch=ViewWatch(rules))
    check_game(rules, st, events)
    assert len(st.history) >= 1


def test_view_check_catches_a_leak():
    """The view check itself: a seat's view with another hand in it is refused."""
    rules = preset("standard")
    st = new_game(rules, 0)
    advance(st, make_deal(st, random.Random(3)))
    leak = st.hands[2][0]
    assert leak not in own_cards(st, 1)
    assert leak not in cards_in(view(st, 1))
    assert leak in cards_in({"anywhere": [{"deep": leak}]})
    assert not cards_in({"rules": {"remove": [leak]}})


def test_score_check_catches_a_wrong_total():
    """The score check itself: a history row with a wrong running score is refused."""
    rules = preset("standard")
    st, _ = play(rules, robot_pick(1), random.Random(1), 0, hands=1)
    check_scores(rules, st)
    st.history[0]["sides"][0]["score"] += 1
    with pytest.raises(AssertionError):
        check_scores(rules, st)
