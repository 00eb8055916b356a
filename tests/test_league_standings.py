"""The league table and the Elo ratings (pbem.league.standings). Every expected number here
is worked out by hand from the rules in the module's docstring, in the comments beside it."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from pbem.league.standings import GameResult, Rating, elo, rating_table, standings

PARTNERS = ((0, 2), (1, 3))
NO_NILS = ((0, 0),) * 4


def pair_game(game_id, a, b, score_a, score_b, bags=(0, 0), nils=NO_NILS, winner=None):
    """Fixed partnerships: entry `a` in seats 0 and 2, entry `b` in seats 1 and 3."""
    if winner is None:
        winner = 0 if score_a > score_b else 1
    return GameResult(game_id=game_id, seats=(a, b, a, b), sides=PARTNERS,
                      scores=(score_a, score_b), bags=bags, nils=nils, winner=winner)


def by_entry(rows):
    return {row.entry: row for row in rows}


def columns(row):
    return (row.played, row.won, row.lost, row.points, row.points_for, row.points_against,
            row.diff, row.bags, row.nils_made, row.nils_failed)


# -- the league table --------------------------------------------------------------------------


def test_fixed_partnerships_count_each_game_once_and_both_seats_nils():
    entries = {1: "Ants", 2: "Bees", 3: "Cats"}
    results = [
        # Ants (seats 0, 2) beat Bees 520-310; seat 0 made a nil, seat 2 failed one
        pair_game(10, 1, 2, 520, 310, bags=(7, 3), nils=((1, 0), (0, 0), (0, 1), (0, 0))),
        # Ants (seats 1, 3) beat Cats 505-250; seat 1 made a nil
        pair_game(11, 3, 1, 250, 505, bags=(4, 6), nils=((0, 0), (1, 0), (0, 0), (0, 0))),
    ]
    table = standings(entries, results)
    rows = by_entry(table)
    # played, won, lost, points, for, against, diff, bags, nils made, nils failed
    assert columns(rows[1]) == (2, 2, 0, 2, 520 + 505, 310 + 250, 1025 - 560, 7 + 6, 2, 1)
    assert columns(rows[2]) == (1, 0, 1, 0, 310, 520, -210, 3, 0, 0)
    assert columns(rows[3]) == (1, 0, 1, 0, 250, 505, -255, 4, 0, 0)
    # Bees and Cats have no points; Bees' diff (-210) beats Cats' (-255)
    assert [(r.rank, r.name) for r in table] == [(1, "Ants"), (2, "Bees"), (3, "Cats")]


def test_drawn_partners_each_entry_gets_its_sides_totals_and_its_own_seats_nils():
    entries = {1: "Zoe", 2: "Bob", 3: "Amy", 4: "Cal"}
    # Zoe (seat 0) and Amy (seat 2) beat Bob (seat 1) and Cal (seat 3) 480-390;
    # Zoe made a nil, Cal failed one
    game = GameResult(game_id=7, seats=(1, 2, 3, 4), sides=PARTNERS, scores=(480, 390),
                      bags=(5, 2), nils=((1, 0), (0, 0), (0, 0), (0, 1)), winner=0)
    table = standings(entries, [game])
    rows = by_entry(table)
    assert columns(rows[1]) == (1, 1, 0, 1, 480, 390, 90, 5, 1, 0)
    assert columns(rows[3]) == (1, 1, 0, 1, 480, 390, 90, 5, 0, 0)
    assert columns(rows[2]) == (1, 0, 1, 0, 390, 480, -90, 2, 0, 0)
    assert columns(rows[4]) == (1, 0, 1, 0, 390, 480, -90, 2, 0, 1)
    # partners are equal on every tie-break: a shared rank, listed by name; the next rank
    # skips the shared place ("1, 1, 3, 3")
    assert [(r.rank, r.name) for r in table] == [(1, "Amy"), (1, "Zoe"), (3, "Bob"), (3, "Cal")]


def test_three_sides_points_against_is_the_best_other_side():
    entries = {1: "North", 2: "East", 3: "West"}
    # six-handed, three fixed partnerships: 1 in seats 0 and 3, 2 in 1 and 4, 3 in 2 and 5
    game = GameResult(game_id=3, seats=(1, 2, 3, 1, 2, 3), sides=((0, 3), (1, 4), (2, 5)),
                      scores=(510, 430, 280), bags=(3, 8, 1), nils=((0, 0),) * 6, winner=0)
    rows = by_entry(standings(entries, [game]))
    assert (rows[1].points_for, rows[1].points_against, rows[1].diff) == (510, 430, 80)
    assert (rows[2].points_for, rows[2].points_against, rows[2].diff) == (430, 510, -80)
    assert (rows[3].points_for, rows[3].points_against, rows[3].diff) == (280, 510, -230)
    assert [(rows[x].won, rows[x].lost, rows[x].bags) for x in (1, 2, 3)] == [
        (1, 0, 3), (0, 1, 8), (0, 1, 1)]


def test_byes_count_as_wins_in_points():
    entries = {1: "Ants", 2: "Bees", 3: "Cats"}
    table = standings(entries, [pair_game(1, 1, 2, 400, 300)], byes={3: 2})
    rows = by_entry(table)
    # Cats sat out twice: two points from byes alone, no games
    assert (rows[3].played, rows[3].won, rows[3].byes, rows[3].points) == (0, 0, 2, 2)
    assert (rows[1].byes, rows[1].points) == (0, 1)
    assert [r.entry for r in table] == [3, 1, 2]


def test_points_decide_before_diff():
    entries = {1: "Zed", 2: "Abe", 9: "Foil"}
    results = [
        pair_game(1, 1, 9, 310, 300),  # Zed: two wins by 10 -> 2 points, diff +20
        pair_game(2, 1, 9, 310, 300),
        pair_game(3, 2, 9, 700, 300),  # Abe: a win by 400, a loss by 10 -> 1 point, diff +390
        pair_game(4, 2, 9, 300, 310),
    ]
    rows = by_entry(standings(entries, results))
    assert (rows[1].points, rows[1].diff) == (2, 20)
    assert (rows[2].points, rows[2].diff) == (1, 390)
    assert (rows[1].rank, rows[2].rank) == (1, 2)


def test_diff_decides_when_points_are_equal():
    entries = {1: "Zed", 2: "Abe", 9: "Foil"}
    results = [
        pair_game(1, 1, 9, 300, 200, bags=(9, 0)),  # Zed: diff +100, for 300, 9 bags
        pair_game(2, 2, 9, 520, 500, bags=(1, 0)),  # Abe: diff +20, for 520, 1 bag
    ]
    rows = by_entry(standings(entries, results))
    assert rows[1].points == rows[2].points == 1
    assert (rows[1].rank, rows[2].rank) == (1, 2)


def test_points_for_decides_when_diff_is_equal():
    entries = {1: "Zed", 2: "Abe", 8: "Foil", 9: "Mop"}
    results = [
        pair_game(1, 1, 8, 400, 300, bags=(9, 0)),  # Zed: diff +100, for 400, 9 bags
        pair_game(2, 2, 9, 350, 250, bags=(1, 0)),  # Abe: diff +100, for 350, 1 bag
    ]
    rows = by_entry(standings(entries, results))
    assert rows[1].diff == rows[2].diff == 100
    assert (rows[1].rank, rows[2].rank) == (1, 2)


def test_fewer_bags_decide_when_points_for_are_equal():
    entries = {1: "Zed", 2: "Abe", 8: "Foil", 9: "Mop"}
    results = [
        pair_game(1, 1, 8, 400, 300, bags=(2, 0)),  # Zed: diff +100, for 400, 2 bags
        pair_game(2, 2, 9, 400, 300, bags=(6, 0)),  # Abe: the same, but 6 bags
    ]
    table = standings(entries, results)
    assert [(r.rank, r.name) for r in table[:2]] == [(1, "Zed"), (2, "Abe")]


def test_name_orders_the_listing_of_a_shared_rank_but_is_no_tie_break():
    entries = {1: "Zed", 2: "Abe", 3: "Abe", 8: "Foil", 9: "Mop", 7: "Nob"}
    results = [pair_game(1, 1, 8, 400, 300), pair_game(2, 3, 9, 400, 300),
               pair_game(3, 2, 7, 400, 300)]
    table = standings(entries, results)
    # three equal winners: one rank, listed by name, then by id for the two Abes
    assert [(r.rank, r.entry) for r in table[:3]] == [(1, 2), (1, 3), (1, 1)]
    assert [r.rank for r in table[3:]] == [4, 4, 4]


def test_entries_without_games_are_listed_with_zeros():
    entries = {5: "Eve", 4: "Dan"}
    table = standings(entries, [])
    assert [(r.rank, r.entry, r.name) for r in table] == [(1, 4, "Dan"), (1, 5, "Eve")]
    for row in table:
        assert columns(row) == (0,) * 10 and row.byes == 0


def test_an_entry_without_games_sits_among_the_others_by_its_zeros():
    entries = {1: "Ants", 2: "Bees", 4: "Dogs"}
    table = standings(entries, (g for g in [pair_game(1, 1, 2, 400, 300)]))
    # Dogs (0 points, diff 0) ranks above Bees (0 points, diff -100)
    assert [r.name for r in table] == ["Ants", "Dogs", "Bees"]


def test_an_unknown_entry_in_a_result_is_refused():
    with pytest.raises(ValueError, match="not in the league"):
        standings({1: "Ants"}, [pair_game(1, 1, 2, 400, 300)])


def test_an_unknown_entry_with_a_bye_is_refused():
    with pytest.raises(ValueError, match="not in the league"):
        standings({1: "Ants"}, [], byes={2: 1})


def test_a_result_whose_parts_do_not_match_is_refused():
    short = GameResult(game_id=1, seats=(1, 2, 1, 2), sides=PARTNERS, scores=(400,),
                       bags=(0, 0), nils=NO_NILS, winner=0)
    with pytest.raises(ValueError, match="do not match"):
        standings({1: "Ants", 2: "Bees"}, [short])
    both_sides = GameResult(game_id=2, seats=(1, 2, 1, 1), sides=PARTNERS, scores=(400, 300),
                            bags=(0, 0), nils=NO_NILS, winner=0)
    with pytest.raises(ValueError, match="two sides"):
        standings({1: "Ants", 2: "Bees"}, [both_sides])


# -- the ratings -------------------------------------------------------------------------------


def two_player(a, b, winner_is_a=True):
    """A game of two single-member sides; the winner scores more."""
    return ([[a], [b]], (500, 300) if winner_is_a else (300, 500), 0 if winner_is_a else 1)


def test_an_even_two_player_game_moves_sixteen_points():
    # expected 1/2 each; the winner +32 * (1 - 1/2), the loser -32 * 1/2
    rated = elo([two_player("a", "b")])
    assert rated == {"a": Rating(1516.0, 1), "b": Rating(1484.0, 1)}


def test_an_uneven_game_follows_the_formula():
    # after game one: a 1516, b 1484. Game two: c, new at 1500, beats a (1516).
    rated = elo([two_player("a", "b"), two_player("c", "a")])
    expected_c = 1 / (1 + 10 ** ((1516 - 1500) / 400))  # 10**0.04 = 1.0965 -> 0.4770
    assert rated["c"].rating == pytest.approx(1500 + 32 * (1 - expected_c))
    assert rated["a"].rating == pytest.approx(1516 - 32 * (1 - expected_c))
    # 32 * (1 - 0.4770) = 16.74 by hand
    assert rated["c"].rating == pytest.approx(1516.74, abs=0.01)
    assert rated["a"].rating == pytest.approx(1499.26, abs=0.01)
    assert (rated["a"].games, rated["b"].games, rated["c"].games) == (2, 1, 1)


def test_a_partnership_is_rated_by_its_members_mean_and_each_gets_the_whole_change():
    games = [
        two_player("a", "c"),  # a 1516, c 1484
        ([["a", "b"], ["d", "e"]], (520, 400), 0),  # a+b: mean (1516 + 1500) / 2 = 1508
    ]
    rated = elo(games)
    # E = 1 / (1 + 10 ** (-8 / 400)) = 1 / (1 + 0.95499) = 0.51151; 32 * 0.48849 = 15.63
    assert rated["a"].rating == pytest.approx(1516 + 15.63, abs=0.01)
    assert rated["b"].rating == pytest.approx(1500 + 15.63, abs=0.01)
    assert rated["d"].rating == pytest.approx(1500 - 15.63, abs=0.01)
    assert rated["e"].rating == pytest.approx(1500 - 15.63, abs=0.01)
    assert rated["c"] == Rating(1484.0, 1)
    assert (rated["a"].games, rated["b"].games) == (2, 1)


def test_a_member_listed_twice_on_a_side_counts_once():
    rated = elo([([["a", "a"], ["b"]], (500, 300), 0)])
    assert rated == {"a": Rating(1516.0, 1), "b": Rating(1484.0, 1)}


def test_cutthroat_four_sides_with_two_losers_tied():
    # w wins; x second; y and z tie on 100. All 1500, so every E is 1/2; K / (m - 1) = 32 / 3
    rated = elo([([["w"], ["x"], ["y"], ["z"]], (300, 200, 100, 100), 0)])
    assert rated["w"].rating == pytest.approx(1500 + 32 / 3 * (0.5 + 0.5 + 0.5))  # +16
    assert rated["x"].rating == pytest.approx(1500 + 32 / 3 * (-0.5 + 0.5 + 0.5))  # +5.33
    assert rated["y"].rating == pytest.approx(1500 + 32 / 3 * (-0.5 - 0.5 + 0))  # -10.67
    assert rated["z"].rating == rated["y"].rating
    assert rated["w"].rating == pytest.approx(1516.0)


def test_the_winner_finishes_first_whatever_its_score():
    # b outscored a but a won the game: order a, b, c; K / (m - 1) = 16
    rated = elo([([["a"], ["b"], ["c"]], (200, 300, 100), 0)])
    assert rated["a"].rating == pytest.approx(1500 + 16 * (0.5 + 0.5))
    assert rated["b"].rating == pytest.approx(1500 + 16 * (-0.5 + 0.5))
    assert rated["c"].rating == pytest.approx(1500 + 16 * (-0.5 - 0.5))


def test_order_matters_so_callers_must_keep_it():
    one = elo([two_player("a", "b"), two_player("b", "a")])
    other = elo([two_player("b", "a"), two_player("a", "b")])
    # after 1516/1484 the underdog's win: E = 1 / (1 + 10 ** (32 / 400)) = 0.4541,
    # 32 * (1 - 0.4541) = 17.47: whoever won second ends ahead
    assert one["a"].rating == pytest.approx(1498.53, abs=0.01)
    assert other["a"].rating == pytest.approx(1501.47, abs=0.01)
    assert one["b"].rating == pytest.approx(other["a"].rating)


def test_start_and_k_can_be_chosen():
    rated = elo([two_player("a", "b")], start=1000.0, k=10.0)
    assert rated == {"a": Rating(1005.0, 1), "b": Rating(995.0, 1)}


def test_bad_rated_games_are_refused():
    with pytest.raises(ValueError):
        elo([([["a"]], (500,), 0)])  # one side
    with pytest.raises(ValueError):
        elo([([["a"], []], (500, 300), 0)])  # an empty side
    with pytest.raises(ValueError):
        elo([([["a"], ["b"]], (500, 300), 2)])  # no such winner
    with pytest.raises(ValueError, match="two sides"):
        elo([([["a", "b"], ["b"]], (500, 300), 0)])


@hs.composite
def equal_sided_games(draw):
    """Random games over a pool of eight players: 2 to 4 sides, all of one size."""
    rng = random.Random(draw(hs.integers(0, 2**32 - 1)))
    games = []
    for _ in range(draw(hs.integers(1, 30))):
        m = rng.choice([2, 3, 4])
        size = rng.choice([1, 2])
        seated = rng.sample(range(8), m * size)
        sides = [seated[i * size:(i + 1) * size] for i in range(m)]
        scores = [rng.randint(-200, 600) for _ in range(m)]
        games.append((sides, scores, rng.randrange(m)))
    return games


@settings(max_examples=200, deadline=None)
@given(games=equal_sided_games())
def test_equal_sided_games_conserve_the_total_rating(games):
    rated = elo(games)
    assert sum(r.rating for r in rated.values()) == pytest.approx(1500 * len(rated))
    assert sum(r.games for r in rated.values()) == sum(
        len(side) for sides, _, _ in games for side in sides)


def test_rating_table_sorts_by_rating_then_name_and_rounds():
    ratings = {1: Rating(1484.04, 3), 2: Rating(1516.26, 3), 3: Rating(1484.0, 2),
               4: Rating(1500.0, 0)}
    names = {1: "Bea", 2: "Cy", 3: "Al"}
    assert rating_table(ratings, names) == [
        {"id": 2, "name": "Cy", "rating": 1516.3, "games": 3},
        {"id": 4, "name": "4", "rating": 1500.0, "games": 0},  # no name: its id
        {"id": 3, "name": "Al", "rating": 1484.0, "games": 2},  # 1484.0 as shown: by name
        {"id": 1, "name": "Bea", "rating": 1484.0, "games": 3},
    ]
