"""The hard robot (issue 33) and the robot levels in the engine: it reads only its seat's
view, bids nil with a nil hand (and not without one), covers a partner's nil, sets an
opponent's, and the old level names ("fast", "sampler") still mean easy and medium."""

import random

import pytest
from helpers import deal, do, fixed_hands

from bench import robot as match
from pbem.engine import advance, apply, choose, make_deal, new_game, preset, view
from pbem.engine.hard import HardPlayout
from pbem.engine.robot import level_of
from pbem.engine.rules import RulesError
from pbem.engine.tricks import table_for

NIL_HAND = ["2H", "3H", "4H", "5H", "2D", "3D", "4D", "5D", "2C", "3C", "4C", "5C", "6C"]


def game(spec, name="standard", **options):
    rules = preset(name).with_options(**options)
    st = new_game(rules, 3)  # seat 0 bids and leads first
    deal(st, fixed_hands(rules, spec))
    return st


def bids(st, values):
    for seat, b in enumerate(values):
        do(st, seat, {"type": "bid", "bid": b})


def hard(st, seat, seed=1):
    return choose(view(st, seat), seed=seed, level="hard")


def test_levels_and_their_old_names():
    for name in ("easy", "medium", "hard", "fast", "sampler"):
        assert preset("standard").with_options(robot=name).robot == name  # kept as written
    assert [level_of(n) for n in ("fast", "sampler", "easy", "medium", "hard")] == \
        ["easy", "medium", "easy", "medium", "hard"]
    assert level_of(None, preset("tournament-300")) == "medium"
    with pytest.raises(RulesError, match="robot"):
        preset("standard").with_options(robot="genius")
    with pytest.raises(ValueError, match="easy, medium or hard"):
        level_of("genius")


def test_an_old_name_chooses_as_its_level():
    rules = preset("standard")
    st = new_game(rules, 3)
    advance(st, make_deal(st, random.Random(5)))
    bids(st, [3, 3, 3, 3])
    v = view(st, 0)
    for old, new in (("fast", "easy"), ("sampler", "medium")):
        r = rules.with_options(robot=old)
        assert choose(v, seed=2, rules=r) == choose(v, seed=2, rules=rules, level=new)
        assert choose(v, seed=2, rules=rules, level=old) == choose(v, seed=2, level=new)


def test_a_seats_level_overrides_the_rules():
    """level= wins over the rules' option: hard with robot=fast searches, so it keeps the
    trick its side needs where the easy robot (playing low under its partner) would not."""
    st = game({0: ["9H"], 1: ["QH"], 2: ["KH", "2H"], 3: ["5H"]}, robot="fast")
    bids(st, [6, 3, 7, 3])  # all 13: the side must take every trick
    do(st, 0, "9H")
    do(st, 1, "QH")
    assert st.table.beats(hard(st, 2)["card"], st.trick)


@pytest.mark.parametrize("seed", range(4))
def test_the_same_view_gives_the_same_choice_whatever_the_hidden_hands(seed):
    """Two deals that agree on all seat `me` sees give the same bid and the same card."""
    st = new_game(preset("standard"), 3)
    advance(st, make_deal(st, random.Random(seed)))
    other = st.snapshot()
    a, b = 1, 3
    other.hands[a][:4], other.hands[b][:4] = other.hands[b][:4], other.hands[a][:4]
    assert other.hands != st.hands and view(other, 0) == view(st, 0)
    assert hard(st, 0, seed) == hard(other, 0, seed)  # the bid
    bids(st, [3, 3, 3, 3])
    for _ in range(5 + seed):
        do(st, st.turn, hard(st, st.turn, seed))
    me = st.turn
    other = st.snapshot()
    a, b = [(me + 1) % 4, (me + 3) % 4]
    k = min(len(other.hands[a]), len(other.hands[b]), 3)
    other.hands[a][:k], other.hands[b][:k] = other.hands[b][:k], other.hands[a][:k]
    assert other.hands != st.hands and view(other, me) == view(st, me)
    assert hard(st, me, seed) == hard(other, me, seed)


def test_bids_nil_with_a_nil_hand():
    st = game({0: NIL_HAND})
    assert hard(st, 0) == {"type": "bid", "bid": "nil"}


def test_bids_a_number_with_a_strong_hand():
    st = game({0: ["AS", "KS", "QS", "JS", "AH", "KH", "AD", "KD", "AC", "KC", "2H", "2D",
                   "2C"]})
    got = hard(st, 0)["bid"]
    assert isinstance(got, int) and got >= 6


def test_covers_a_partners_nil_by_overtaking():
    # partner (seat 0) bid nil and leads the queen of hearts; seat 2 can take it over
    st = game({0: ["QH"], 1: ["4H"], 2: ["AH", "3H"], 3: ["5H"]})
    bids(st, ["nil", 3, 4, 3])
    do(st, 0, "QH")
    do(st, 1, "4H")
    assert hard(st, 2)["card"] == "AH"


def test_plays_high_before_a_partners_nil():
    """Seat 0 leads a heart; seat 1 plays before its nil partner (seat 3), whose hearts are
    all high: it plays its queen, under which the nil can duck with the jack, not its two
    (the jack would then win)."""
    st = game({0: ["8H"], 1: ["QH", "2H"], 2: ["TH", "9H"], 3: ["AH", "KH", "JH"]})
    bids(st, [3, 4, 3, "nil"])
    do(st, 0, "8H")
    assert hard(st, 1)["card"] == "QH"


def test_sets_an_opponents_nil_by_playing_under():
    """Seat 0 bid nil and leads the queen of hearts; seat 1 (an opponent) holds the ace and
    the three: it plays the three, and the nil bidder's queen may win the trick."""
    st = game({0: ["QH"], 1: ["AH", "3H"], 2: ["4H"], 3: ["5H"]})
    bids(st, ["nil", 2, 4, 2])
    do(st, 0, "QH")
    assert hard(st, 1)["card"] == "3H"


# a table of each size and contract, Mo, suicide's forced nils, and the scoring options the
# estimate counts (bonuses, no trump, aces, moons): hard plays each legally
HANDS = [("standard", {}), ("nyc", {}), ("cutthroat-3", {}),
         pytest.param("six-handed", {}, marks=pytest.mark.slow), ("mo", {}),
         ("suicide", {}), ("two-handed", {}),
         ("standard", dict(high_bid_bonus=True, last_trick_bonus=10, last_spades_bonus=10,
                           aces_bonus=100, no_trump=True, moon=200, blind_moon=400))]


@pytest.mark.parametrize(("name", "options"), HANDS)
def test_plays_a_legal_hand(name, options):
    rules = preset(name).with_options(robot="hard", **options)
    st = new_game(rules, 1)
    rng = random.Random(name)
    while st.hand_no == 0 and st.phase != "over":
        if st.phase == "deal":
            advance(st, make_deal(st, rng))
            continue
        seat = st.to_act()[0]
        v = view(st, seat)
        act = choose(v, seed=3)
        if len(st.trick) == 0 and len(v["hand"] or ()) % 4 == 0:  # a few, for the time
            assert act == choose(v, seed=3)  # deterministic given the view and seed
        if act["type"] in ("play", "bid"):
            assert act in v["legal"]
        for ev in apply(st, seat, act):
            advance(st, ev)
    assert st.history


def test_the_bench_plays_each_deal_twice_and_counts_nils():
    """bench/robot.py: a deal is played twice with the same cards, the sides swapped, so a
    robot against itself comes out exactly even; the cheater's match runs and is timed."""
    for i in range(2):
        m, margin, bagged, _ = match.duplicate(("easy-easy", "standard", "t", i))
        assert m == "easy-easy" and margin == 0 and bagged == 0
    _, margin, _, tally = match.duplicate(("cheater-hard", "standard", "t", 0))
    assert isinstance(margin, float) and tally["cheater"]["ms"] and tally["hard"]["ms"]
    assert not tally["easy"]["ms"]


def test_its_estimate_counts_a_bonus_of_the_rules():
    """The last trick's bonus (S7) reads the hand's tricks: the hard robot's playouts keep
    them, so the bonus moves a playout's value by exactly its points, for the side that
    took the last trick (the sampler's playouts keep no tricks and miss it)."""
    values, last = [], []
    for bonus in (0, 30):
        st = game({}, last_trick_bonus=bonus)
        bids(st, [3, 3, 3, 3])
        v = view(st, 0)
        play = HardPlayout(v, st.rules, table_for(st.rules), [list(h) for h in st.hands])
        values.append(play.run(st.hands[0][0]))
        last.append(play.history[-1][1])
    assert len(play.history) == 13 and last[0] == last[1]
    assert values[1] - values[0] == (30 if last[0] in (0, 2) else -30)
