"""Scoring (RULES.md S1-S9) and the end of the game (E1-E4), from really played hands.

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
