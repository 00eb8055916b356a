"""Scoring (docs/rules.md S1-S9) and the end of the game (E1-E4), from really played hands.

`play_hand` (from test_seed_checks) deals, bids and plays a hand so each side takes the
tricks a test names; the points, bags and winner all come from the engine.
"""

import pytest
from helpers import deal
from test_seed_checks import game, low_hands, play_hand

from pbem.engine import legal, new_game, preset

RANKS = "AKQJT98765432"


def points(row, side=0):
    return row["sides"][side]["points"]


# -- S1 S2: contract and bags -------------------------------------------------------------


@pytest.mark.parametrize("took, expect", [(5, 50), (7, 52), (4, -50), (0, -50)])
def test_S1_made_contract_and_set(took, expect):
    st = game()
    hands = low_hands(st.rules) if took == 0 else None
    row = play_hand(st, {0: 2, 1: 4, 2: 3, 3: 2}, {(0, 2): took}, hands=hands)
    assert points(row) == expect
    assert points(row, 1) == (60 + 7 - took if 13 - took >= 6 else -60)
    assert st.scores == [expect, points(row, 1)]
    assert st.bags[0] == max(0, took - 5)


def test_S2_carry_the_surplus_bags():
    st = game()
    play_hand(st, {0: 1, 1: 3, 2: 1, 3: 3}, {(0, 2): 8})  # 26, 6 bags
    row = play_hand(st, {1: 3, 2: 1, 3: 3, 0: 1}, {(0, 2): 8})  # 26, 12 bags
    assert row["sides"][0]["bag_penalty"] == 100
    assert (st.scores[0], st.bags[0]) == (26 + 26 - 100, 2)


def test_S2_tournament_300_six_bags_cost_60_and_the_count_resets():
    st = game("tournament-300")
    play_hand(st, {0: 2, 2: 2, 1: 2, 3: 2}, {(0, 2): 9})  # 45, 5 bags
    assert (st.scores[0], st.bags[0]) == (45, 5)
    row = play_hand(st, {1: 2, 3: 2, 0: 2, 2: 2}, {(0, 2): 7})  # 43, 3 more bags
    assert row["sides"][0]["bag_penalty"] == 60
    assert (st.scores[0], st.bags[0]) == (45 + 43 - 60, 0)


def test_S2_carry_once_one_penalty_a_hand_the_surplus_carried():
    st = game(bag_overflow="carry_once", bag_limit=5, bag_penalty=50)
    play_hand(st, {0: 1, 1: 3, 2: 1, 3: 3}, {(0, 2): 8})  # 26, 6 bags: one penalty, 1 kept
    assert (st.scores[0], st.bags[0]) == (26 - 50, 1)
    row = play_hand(st, {1: 3, 2: 1, 3: 3, 0: 1}, {(0, 2): 13})  # 11 more: 12, not 2 penalties
    assert row["sides"][0]["bag_penalty"] == 50
    assert (st.scores[0], st.bags[0]) == (26 - 50 + 31 - 50, 7)


# -- S3: bag variants ---------------------------------------------------------------------


@pytest.mark.parametrize("options, took, expect", [
    ({"overtrick_points": -1, "bag_limit": 0}, 7, 37),  # overtricks worth -1, no penalty
    ({"overtrick_points": 0}, 7, 40),  # no overtrick points
    ({"overtrick_points": -10, "bag_limit": 0}, 6, 20),  # an immediate -10 a bag
    ({"set_by_shortfall": True}, 2, -20),  # set by the shortfall only
    ({}, 2, -40),  # ...where normally the whole bid is lost
    ({"twice_bid_loses": True}, 8, -40),  # taking twice the bid loses it
    ({"twice_bid_loses": True}, 7, 43),
])
def test_S3_bag_variants(options, took, expect):
    st = game(**options)
    row = play_hand(st, {0: 2, 1: 3, 2: 2, 3: 3}, {(0, 2): took})
    assert points(row) == expect
    assert st.scores[0] == expect


def test_S3_no_bag_penalty_at_all():
    st = game(bag_limit=0)
    st.bags[0] = 9
    row = play_hand(st, {0: 2, 1: 3, 2: 2, 3: 3}, {(0, 2): 8})
    assert row["sides"][0]["bag_penalty"] == 0
    assert (st.scores[0], st.bags[0]) == (44, 13)


def test_S3_no_overtrick_points_still_counts_bags_to_the_penalty():
    st = game(overtrick_points=0)
    st.bags[0] = 8
    play_hand(st, {0: 2, 1: 3, 2: 2, 3: 3}, {(0, 2): 6})
    assert (st.scores[0], st.bags[0]) == (40 - 100, 0)


def test_S3_bags_kept_apart_in_the_units_digit():
    st = game(bags_in_score=True, overtrick_points=0)
    play_hand(st, {0: 2, 1: 3, 2: 2, 3: 3}, {(0, 2): 7})
    assert st.display_scores()[0] == 43
    assert st.scores[0] == 40 and st.bags[0] == 3


# -- S4: a failed nil's tricks --------------------------------------------------------------


@pytest.mark.parametrize("mode, mate_took, expect, bags", [
    ("bags", 3, -100 - 40 + 2, 2),  # S4: the nil's 2 tricks are the side's bags
    ("bags", 5, -100 + 41 + 2, 3),  # ...whether or not the partner made the bid
    ("help", 3, -100 + 41, 1),  # S4a: they help the partner's bid of 4
    ("help", 5, -100 + 43, 3),
    ("set_partner", 5, -100 - 40, 0),  # S4b: the failed nil sets the partner too
    ("set_partner", 3, -100 - 40, 0),
    ("nothing", 3, -100 - 40, 0),  # S4c: they count for nothing
    ("nothing", 5, -100 + 41, 1),
    ("bags_unless_set", 3, -100 - 40, 2),  # set: the nil's tricks are bags worth no point
    ("bags_unless_set", 5, -100 + 41 + 2, 3),  # made: as "bags"
])
def test_S4_failed_nil_tricks(mode, mate_took, expect, bags):
    st = game(nil_fail=mode)
    row = play_hand(st, {0: "nil", 1: 3, 2: 4, 3: 3}, {(0,): 2, (2,): mate_took})
    assert points(row) == expect
    assert (st.scores[0], st.bags[0]) == (expect, bags)


def test_S4_nil_made_scores_100():
    st = game()
    row = play_hand(st, {0: "nil", 1: 3, 2: 4, 3: 3}, {(0,): 0, (2,): 4})
    assert points(row) == 140
    assert row["sides"][0]["nils"] == [{"seat": 0, "bid": "nil", "made": True}]


def test_S4_nil_values_per_preset():
    st = game(nil_points=50)
    row = play_hand(st, {0: "nil", 1: 3, 2: 4, 3: 3}, {(0,): 1, (2,): 4})
    assert points(row) == -50 + 40 + 1


# -- S5: blind nil ----------------------------------------------------------------------------


@pytest.mark.parametrize("options, nil_took, expect", [
    ({}, 0, 200 + 40),
    ({}, 1, -200 + 40 + 1),
    ({"blind_nil_penalty": 100}, 1, -100 + 40 + 1),  # S5a: half penalty
    ({"blind_nil_penalty": 100}, 0, 200 + 40),
])
def test_S5_blind_nil(options, nil_took, expect):
    st = game(**options)
    st.scores = [0, 100]  # behind by 100: blind nil is open before looking
    row = play_hand(st, {0: "blind nil", 1: 3, 2: 4, 3: 3}, {(0,): nil_took, (2,): 4})
    assert row["sides"][0]["nils"][0]["bid"] == "blind nil"
    assert points(row) == expect


# -- S6: double nil ---------------------------------------------------------------------------


@pytest.mark.parametrize("took, expect", [((0, 0), 120), ((1, 0), 0), ((0, 2), 0),
                                          ((1, 1), -120)])
def test_S6_double_nil_tournament_300(took, expect):
    st = game("tournament-300")
    hands = low_hands(st.rules, ["BJ"] * took[0]) if took[1] == 0 else None
    want = {(0,): took[0], (2,): took[1]}
    row = play_hand(st, {0: "nil", 2: "nil", 1: 4, 3: 5}, want, hands=hands)
    assert points(row) == expect
    assert st.scores[0] == expect


def test_S6_double_nil_tournament_500():
    st = game("tournament-500")
    row = play_hand(st, {0: "nil", 2: "nil", 1: 4, 3: 5}, {(0,): 1, (2,): 1})
    assert points(row) == -200


# -- S8: cutthroat for three -----------------------------------------------------------------


@pytest.mark.parametrize("bet, took, expect", [(4, 4, 40), (4, 6, 20), (5, 4, -50),
                                               (0, 0, 0), (2, 8, -40)])
def test_S8_cutthroat_3_overtricks_cost_10(bet, took, expect):
    st = new_game(preset("cutthroat-3"), 2)
    row = play_hand(st, {0: bet, 1: 3, 2: 5}, {(0,): took})
    assert points(row) == expect
    assert st.bags[0] == 0


# -- S9: New York City ---------------------------------------------------------------------------


def nyc(first_dealer=2, **options):
    return new_game(preset("nyc").with_options(**options), first_dealer)


def unbid_hand(st, took):
    """Play the first, unbid nyc hand (B13) so that side 0 takes `took` tricks."""
    hands = low_hands(st.rules, ["BJ"] * took) if took <= 1 else None
    return play_hand(st, {}, {(0, 2): took}, hands=hands)


def test_S9_B13_nyc_first_hand_unbid_ten_a_trick():
    st = nyc()
    row = play_hand(st, {}, {(0, 2): 4})
    assert [points(row, 0), points(row, 1)] == [40, 90]
    assert st.scores == [40, 90]


@pytest.mark.parametrize("bid, took, expect", [
    (5, 5, 50), (5, 7, 50),  # made: no points for overtricks
    (5, 8, -50),  # three overtricks is a set
    (5, 4, -50),
    (10, 10, 200), (10, 12, 200), (10, 9, -200),  # 10 for 200
])
def test_S9_nyc_contracts(bid, took, expect):
    st = nyc()
    play_hand(st, {}, {(0, 2): 6})
    row = play_hand(st, {0: bid, 1: 4}, {(0, 2): took})
    assert points(row) == expect
    assert st.scores[0] == 60 + expect
    assert st.bags == [0, 0]


@pytest.mark.parametrize("took, expect", [(6, 120), (8, 120), (5, -60)])
def test_S9_nyc_blind_double_if_made_single_if_lost(took, expect):
    st = nyc()
    unbid_hand(st, 1)  # 10 to 120: 110 behind, blind bids open
    row = play_hand(st, {0: ("blind", 6), 1: 4}, {(0, 2): took})
    assert row["sides"][0].get("blind") is True
    assert points(row) == expect


def test_S9_nyc_no_blind_bid_unless_behind_100():
    st = nyc()
    play_hand(st, {}, {(0, 2): 2})  # 20 to 110: only 90 behind
    deal(st)
    assert st.phase == "bid"
    seat = st.to_act()[0]
    assert not any(a.get("blind") for a in legal(st, seat))


@pytest.mark.parametrize("took, expect", [(10, 200), (11, 200), (9, -200)])
def test_S9_nyc_come_out_to_10_for_200(took, expect):
    st = nyc()
    unbid_hand(st, 1)
    row = play_hand(st, {0: ("blind", 6), 1: 4}, {(0, 2): took}, come_out=True)
    assert row["sides"][0].get("came_out") is True
    assert row["sides"][0]["bid"] == 10
    assert points(row) == expect


# -- E: end of the game ------------------------------------------------------------------------


def test_E1_first_to_the_target_wins():
    st = game()
    st.scores = [400, 0]
    play_hand(st, {0: 3, 1: 3, 2: 3, 3: 3}, {(0, 2): 6})
    assert st.scores[0] == 460 and st.phase == "deal"
    play_hand(st, {1: 3, 2: 3, 3: 3, 0: 3}, {(0, 2): 6})
    assert st.scores[0] == 520
    assert st.phase == "over" and st.winner == 0


def test_E1_other_target():
    st = game(target=300)
    st.scores = [250, 190]
    play_hand(st, {0: 3, 1: 3, 2: 3, 3: 3}, {(0, 2): 6})
    assert st.scores == [310, 251] and st.winner == 0


@pytest.mark.parametrize("start, took, over", [(-150, 2, True), (-140, 2, True),
                                               (-130, 2, False)])
def test_E2_floor(start, took, over):
    st = game(floor=-200)
    st.scores = [start, 0]
    play_hand(st, {0: 3, 1: 3, 2: 3, 3: 3}, {(0, 2): took})
    assert st.scores == [start - 60, 65]
    assert (st.phase == "over") == over
    assert st.winner == (1 if over else None)  # far from the target: the floor ended it


def test_E3_set_twice_in_a_row_loses():
    st = game(sets_to_lose=2)
    play_hand(st, {0: 4, 1: 2, 2: 4, 3: 2}, {(0, 2): 5})  # side 0 set
    assert st.phase == "deal"
    play_hand(st, {1: 2, 2: 4, 3: 2, 0: 4}, {(0, 2): 9})  # made: the run is broken
    play_hand(st, {2: 4, 3: 2, 0: 4, 1: 2}, {(0, 2): 5})
    assert st.phase == "deal"
    play_hand(st, {3: 2, 0: 4, 1: 2, 2: 4}, {(0, 2): 5})
    assert st.scores == [-159, 72]  # side 1: 172 less a bag penalty
    assert st.phase == "over" and st.winner == 1


def test_E3_nyc_set_twice_loses():
    st = nyc()
    play_hand(st, {}, {(0, 2): 9})
    play_hand(st, {0: 5, 1: 9}, {(0, 2): 2})
    assert st.phase == "deal"
    play_hand(st, {0: 5, 1: 9}, {(0, 2): 2})
    assert st.scores == [-10, 220]
    assert st.phase == "over" and st.winner == 1


def test_E3_nyc_both_sides_set_twice_the_higher_wins():
    st = nyc()
    play_hand(st, {}, {(0, 2): 9})  # 90 to 40
    play_hand(st, {0: 5, 1: 4}, {(0, 2): 2})  # both set: 5 short, 7 over
    play_hand(st, {0: 5, 1: 4}, {(0, 2): 2})
    assert st.scores == [-10, -40]
    assert st.phase == "over" and st.winner == 0


def test_E3_S9_boston_bid_10_take_13_wins_the_game():
    st = nyc()
    unbid_hand(st, 1)
    assert st.dealer == 3  # seat 0 leads the next hand
    top = ["BJ", "LJ", "2D", "2S"] + [r + "S" for r in "AKQJT9876"]
    rest = [c for c in preset("nyc").deck() if c not in top]
    hands = [top, rest[0:13], rest[13:26], rest[26:39]]
    row = play_hand(st, {0: 10, 1: 4}, {(0, 2): 13}, hands=hands)
    assert row["sides"][0].get("boston") is True
    assert st.phase == "over" and st.winner == 0
    assert st.scores[0] < 500  # won on the boston, not the target


def test_E4_max_hands_higher_wins_a_tie_plays_one_more():
    st = game(max_hands=2)
    play_hand(st, {0: 3, 1: 4, 2: 3, 3: 3}, {(0, 2): 6})  # 60 to 70
    play_hand(st, {1: 3, 2: 4, 3: 3, 0: 3}, {(0, 2): 7})  # 130 to 130
    assert st.scores == [130, 130]
    assert st.phase == "deal" and st.winner is None
    play_hand(st, {2: 2, 3: 5, 0: 2, 1: 4}, {(0, 2): 4})  # 40 to 90
    assert st.phase == "over" and st.winner == 1


def test_E4_max_hands_ends_with_the_higher_score():
    st = game(max_hands=1)
    play_hand(st, {0: 3, 1: 4, 2: 3, 3: 3}, {(0, 2): 7})
    assert st.phase == "over" and st.winner == 0


# -- S7 bonuses (pagat's three-player page, Szu Kay Wong's bonus scores: "For successful
# bids of seven or more, you get an extra 10 points for each trick bid above six"; "an
# unbroken sequence of tricks at the end ... all with high spades (9 or above), and get
# exactly what you bet ... 10 points per trick"; the encyclopedia: "the winner of last
# trick wins 10 bonus points").

ALL_SPADES = [r + "S" for r in RANKS]


def spades_hand(options, bids, spade_order):
    """Seat 1 holds every spade and leads each in `spade_order`; the others follow with
    their first legal card. Returns side 1's pad entry."""
    from helpers import bid_round, do, fixed_hands

    r = preset("standard").with_options(**options)
    st = new_game(r, 0)
    deal(st, fixed_hands(r, {1: ALL_SPADES}))
    bid_round(st, bids)
    for card in spade_order:
        do(st, 1, card)
        for seat in (2, 3, 0):
            do(st, seat, legal(st, seat)[0]["card"])
    return st.history[-1]["sides"][1]


def test_S7_high_bid_and_last_high_spades_made_exactly():
    side = spades_hand(dict(high_bid_bonus=True, last_spades_bonus=10), {1: 12, 3: 1},
                       ALL_SPADES[::-1])  # 2S first: the last six tricks won by 9S..AS
    assert side["bonus"] == {"high_bid": 70, "last_spades": 60}
    assert side["points"] == 130 + 70 + 60 and side["bags"] == 0


def test_S7_no_spade_bonus_with_a_bag_or_a_low_spade_last():
    side = spades_hand(dict(high_bid_bonus=True, last_spades_bonus=10), {1: 11, 3: 1},
                       ALL_SPADES[::-1])
    assert side["bonus"] == {"high_bid": 60} and side["points"] == 120 + 1 + 60
    side = spades_hand(dict(last_spades_bonus=10), {1: 12, 3: 1}, ALL_SPADES)  # 2S last
    assert "bonus" not in side and side["points"] == 130


def test_S7_ten_for_the_last_trick_and_no_bonus_by_default():
    side = spades_hand(dict(last_trick_bonus=10), {1: 12, 3: 1}, ALL_SPADES)
    assert side["bonus"] == {"last_trick": 10} and side["points"] == 140
    assert "bonus" not in spades_hand({}, {1: 12, 3: 1}, ALL_SPADES)


# pagat, "playing with aces": "a partnership scores a 100 point bonus for holding all four
# aces and bringing them all home in tricks, provided that they announce this before the
# play ... There is no penalty for a team that announces four aces but fails".
ACES_HAND = ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "AH", "AD", "AC"]


def test_S7_four_aces_announced_and_won():
    from helpers import bid_round, do, fixed_hands

    r = preset("standard").with_options(aces_bonus=100, spade_lead="any")
    st = new_game(r, 0)
    deal(st, fixed_hands(r, {1: ACES_HAND}))
    assert {"bid": 12, "aces": True} in st.bid_options(1)
    bid_round(st, {1: {"bid": 12, "aces": True}})
    assert not any(o.get("aces") for o in st.bid_options(3) + st.bid_options(2))
    for card in ACES_HAND:  # spades first draw the others' spades; then the aces hold
        do(st, 1, card)
        for seat in (2, 3, 0):
            do(st, seat, legal(st, seat)[0]["card"])
    side = st.history[-1]["sides"][1]
    assert side["bonus"] == {"aces": 100} and side["points"] == 130 + 100


def test_S7_four_aces_only_for_a_side_holding_them():
    from helpers import do, fixed_hands

    from pbem.engine import IllegalAction

    r = preset("standard").with_options(aces_bonus=100)
    st = new_game(r, 0)
    deal(st, fixed_hands(r, {0: ["AS", "AH"], 1: ["AD", "AC"]}))  # split between sides
    assert not any(o.get("aces") for o in st.bid_options(1))
    with pytest.raises(IllegalAction, match="cannot announce the four aces"):
        do(st, 1, {"type": "bid", "bid": 3, "aces": True})


def test_S3_a_special_card_cancels_one_bag_of_the_side_that_takes_it():
    """pagat: "a special card which cancels one sandbag on that hand for the side that takes
    it in their tricks. If the side which wins the special card makes no overtricks, or
    loses their bid, the special card has no effect ... for example the three of spades"."""
    side = spades_hand(dict(bag_cancel_card="3S"), {1: 10, 3: 1}, ALL_SPADES)
    assert (side["bags"], side["points"], side["bag_cancelled"]) == (1, 110 + 1, True)
    side = spades_hand(dict(bag_cancel_card="3S"), {1: 12, 3: 1}, ALL_SPADES)
    assert (side["bags"], side["points"]) == (0, 130) and "bag_cancelled" not in side
    side = spades_hand({}, {1: 10, 3: 1}, ALL_SPADES)
    assert (side["bags"], side["points"]) == (2, 112)


@pytest.mark.parametrize("edition, bags, cancelled", [(2, 3, False), (1, 2, True)])
def test_S3_the_special_card_has_no_effect_for_a_side_whose_nils_failed(edition, bags,
                                                                         cancelled):
    """pagat: "If the side which wins the special card makes no overtricks, or loses their
    bid, the special card has no effect." Both partners bid nil and both took tricks (the
    3S among them): the side lost its bid, so its 3 bags stay 3 (edition 1 cancelled one)."""
    from pbem.engine.scoring import score_hand

    st = new_game(preset("standard").with_options(bag_cancel_card="3S", edition=edition), 0)
    deal(st)
    st.bids, st.won = ["nil", 4, "nil", 5], [2, 5, 1, 5]
    st.tricks = [([(0, "3S"), (1, "2H"), (2, "3H"), (3, "4H")], 0)]  # the 3S: seat 0's
    side = score_hand(st)["sides"][0]
    assert (side["bags"], side.get("bag_cancelled", False)) == (bags, cancelled)
    assert side["points"] == -200 + bags


def test_S3_special_card_must_be_in_the_pack():
    from pbem.engine import RulesError

    with pytest.raises(RulesError, match="bag_cancel_card"):
        preset("tournament-300").with_options(bag_cancel_card="2H")  # removed there
