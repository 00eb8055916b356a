"""The robot: sensible bids and plays from its own view only, deterministic per seed."""

import random

from helpers import deal, do, fixed_hands

from pbem.engine import advance, apply, choose, make_deal, new_game, preset, view

STRONG = ["AS", "KS", "QS", "JS", "TS", "AH", "KH", "AD", "KD", "AC", "KC", "2H", "2D"]
WEAK = ["2S", "3H", "4H", "5H", "3D", "4D", "5D", "6D", "3C", "4C", "5C", "6C", "7C"]


def game(name="standard", spec=None, **options):
    rules = preset(name).with_options(**options) if options else preset(name)
    st = new_game(rules, 3)  # seat 0 bids first
    deal(st, fixed_hands(rules, spec or {}))
    return st


def bid_of(st, seat):
    return choose(view(st, seat), seed=1)


def test_bids_about_its_sure_tricks():
    strong = bid_of(game(spec={0: STRONG}), 0)
    weak = bid_of(game(spec={0: WEAK}), 0)
    assert strong["type"] == "bid" and isinstance(strong["bid"], int) and strong["bid"] >= 9
    assert weak == {"type": "bid", "bid": "nil"}


def test_deterministic_given_view_and_seed():
    st = new_game(preset("standard"), 0)
    advance(st, make_deal(st, random.Random(5)))
    seat = st.to_act()[0]
    assert choose(view(st, seat), seed=9) == choose(view(st, seat), seed=9)


def _to_play(st, bids):
    for seat, b in bids:
        do(st, seat, {"type": "bid", "bid": b})


def test_plays_low_when_partner_is_winning():
    # seat 0 leads the ace of hearts; seat 1 follows low; seat 2 (partner) holds K and 3
    st = game(spec={0: ["AH"], 1: ["4H"], 2: ["KH", "3H"], 3: ["5H"]})
    _to_play(st, [(0, 3), (1, 3), (2, 3), (3, 3)])
    do(st, 0, "AH")
    do(st, 1, "4H")
    assert choose(view(st, 2), seed=1) == {"type": "play", "card": "3H"}


def test_covers_a_partners_nil():
    # partner (seat 0) bid nil and leads the queen of hearts; seat 2 can take it over
    st = game(spec={0: ["QH"], 1: ["4H"], 2: ["AH", "3H"], 3: ["5H"]})
    _to_play(st, [(0, "nil"), (1, 3), (2, 4), (3, 3)])
    do(st, 0, "QH")
    do(st, 1, "4H")
    assert choose(view(st, 2), seed=1) == {"type": "play", "card": "AH"}


def test_a_nil_bidder_ducks_under_the_winning_card():
    st = game(spec={0: ["TH"], 1: ["QH", "2H", "3S"], 2: ["4H"], 3: ["5H"]})
    _to_play(st, [(0, 3), (1, "nil"), (2, 3), (3, 3)])
    do(st, 0, "TH")
    card = choose(view(st, 1), seed=1)["card"]
    losers = [c for c in st.playable(1) if not st.table.beats(c, st.trick)]
    assert card in losers and st.table.power[card] == max(st.table.power[c] for c in losers)


def _bag_pressure(bags):
    st = game(spec={0: ["9H"], 1: ["QH"], 2: ["KH", "2H"], 3: ["5H"]})
    st.bags = [bags, 0]
    _to_play(st, [(0, 1), (1, 3), (2, 1), (3, 3)])
    st.won[0] = 2  # the side (seats 0 and 2) has already made its bid of 2
    do(st, 0, "9H")
    do(st, 1, "QH")
    card = choose(view(st, 2), seed=1)["card"]
    return st.table.beats(card, st.trick)


def test_avoids_bags_near_the_limit_once_the_bid_is_made():
    assert _bag_pressure(0)  # far from the limit: take the trick from the opponent
    assert not _bag_pressure(8)  # two bags from the penalty: duck under the queen


def test_robots_play_whole_games_of_every_preset_legally():
    for name in ("standard", "nyc", "cutthroat-3", "two-handed", "six-handed"):
        st = new_game(preset(name), 0)
        rng = random.Random(2)
        while st.phase != "over" and st.hand_no < 3:
            if st.phase == "deal":
                advance(st, make_deal(st, rng))
                continue
            seat = st.to_act()[0]
            for ev in apply(st, seat, choose(view(st, seat), seed=st.seq)):
                advance(st, ev)
        assert st.hand_no == 3 or st.phase == "over"
