"""League pairing (pbem.league.pairing): round robins, Swiss rounds and seat draws, checked
by their properties (everyone seated once, who meets whom, who sits out) over many fields."""

import json
import random
import time
from collections import Counter
from itertools import combinations
from math import ceil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from pbem.league.pairing import (
    MAX_STARTS,
    START_WORK,
    Round,
    greedy_cap,
    greedy_starts,
    meetings,
    round_robin,
    seat_entries,
    swiss,
    swiss_rounds,
)

AFFINE = [(3, 9), (4, 16), (5, 25)]


def ids(size: int, seed: int = 0) -> list[int]:
    """`size` distinct, shuffled, non-consecutive entry ids."""
    pool = [100 + 7 * i for i in range(size)]
    random.Random(seed).shuffle(pool)
    return pool


def fields(min_size: int = 2, max_size: int = 24):
    return hs.lists(hs.integers(-10_000, 10_000), unique=True, min_size=min_size,
                    max_size=max_size)


def assert_seats_everyone(rnd: Round, entries: list[int], k: int) -> None:
    seated = [e for table in rnd.tables for e in table] + rnd.byes
    assert sorted(seated) == sorted(entries)  # each entry once, at a table or out
    assert all(len(table) == k for table in rnd.tables)


def pair_counts(rounds: list[Round], entries: list[int]) -> list[int]:
    met = meetings(rounds)
    return [met[frozenset(p)] for p in combinations(entries, 2)]


def rematches(rnd: Round, met: Counter) -> int:
    return sum(met[frozenset(p)] > 0 for table in rnd.tables for p in combinations(table, 2))


# --- meetings ---------------------------------------------------------------------------


def test_meetings_counts_pairs_at_tables_not_byes():
    rounds = [Round([[1, 2, 3]], [4]), Round([[1, 2, 4]], [3])]
    met = meetings(rounds)
    assert met[frozenset({1, 2})] == 2
    assert met[frozenset({1, 3})] == met[frozenset({3, 2})] == 1
    assert met[frozenset({3, 4})] == 0
    assert sum(met.values()) == 6


# --- round robin: the circle method -------------------------------------------------------


@given(fields())
def test_circle_every_pair_meets_once(entries):
    rounds = round_robin(entries, 2)
    n = len(entries)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    for rnd in rounds:
        assert_seats_everyone(rnd, entries, 2)
        assert len(rnd.tables) == n // 2
    assert set(pair_counts(rounds, entries)) == {1}


@given(fields(min_size=3).filter(lambda xs: len(xs) % 2 == 1))
def test_circle_odd_field_gives_each_entry_one_bye(entries):
    rounds = round_robin(entries, 2)
    assert all(len(rnd.byes) == 1 for rnd in rounds)
    assert Counter(e for rnd in rounds for e in rnd.byes) == Counter(entries)


@pytest.mark.parametrize("n", range(2, 21))
def test_fixed_partnerships_meet_exactly_once_for_every_field_up_to_twenty(n):
    # pairs at four-player tables are two-entry tables: the circle method, whatever n
    entries = ids(n, seed=n)
    rounds = round_robin(entries, 2)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    assert set(pair_counts(rounds, entries)) == {1}
    for rnd in rounds:
        assert_seats_everyone(rnd, entries, 2)
        assert len(rnd.byes) == n % 2
    assert sorted(e for rnd in rounds for e in rnd.byes) == (sorted(entries) if n % 2 else [])


@pytest.mark.parametrize("k, n", [(2, 9), (2, 10), (3, 9), (4, 16), (3, 11), (4, 13)])
def test_round_robin_is_deterministic_and_leaves_its_input_alone(k, n):
    entries = ids(n)
    before = list(entries)
    assert round_robin(entries, k) == round_robin(list(entries), k)
    assert entries == before


def test_round_robin_follows_the_input_order():
    a, b = ids(8, seed=1), ids(8, seed=2)
    assert round_robin(a, 2) != round_robin(b, 2)


# --- round robin: affine planes ------------------------------------------------------------


@pytest.mark.parametrize("k, n", AFFINE)
@pytest.mark.parametrize("seed", [0, 1])
def test_affine_plane_every_pair_meets_once_in_k_plus_one_rounds(k, n, seed):
    entries = ids(n, seed)
    rounds = round_robin(entries, k)
    assert len(rounds) == k + 1
    for rnd in rounds:
        assert_seats_everyone(rnd, entries, k)
        assert len(rnd.tables) == k and rnd.byes == []
    assert set(pair_counts(rounds, entries)) == {1}


# --- round robin: the greedy schedule ------------------------------------------------------


def greedy_size(k: int, n: int) -> bool:
    return n >= k and (k, n) not in AFFINE


@settings(max_examples=60)
@given(hs.integers(3, 6), fields(min_size=3, max_size=22))
def test_greedy_rounds_seat_everyone_and_share_byes(k, entries):
    n = len(entries)
    if not greedy_size(k, n):
        return
    rounds = round_robin(entries, k)
    assert 1 <= len(rounds) <= greedy_cap(n, k)
    byes: Counter = Counter({e: 0 for e in entries})
    for rnd in rounds:
        assert_seats_everyone(rnd, entries, k)
        assert len(rnd.byes) == n % k
        byes.update(rnd.byes)
        # nobody has a second bye while someone has none, and so on
        assert max(byes.values()) - min(byes.values()) <= 1
    if n % k:  # the last in the input sit out first
        assert sorted(rounds[0].byes) == sorted(entries[-(n % k):])


@settings(max_examples=40)
@given(hs.integers(3, 6), fields(min_size=3, max_size=22))
def test_greedy_stops_early_only_when_every_pair_has_met(k, entries):
    n = len(entries)
    if not greedy_size(k, n):
        return
    rounds = round_robin(entries, k)
    counts = pair_counts(rounds, entries)
    if len(rounds) < greedy_cap(n, k):
        assert min(counts) >= 1
    assert min(pair_counts(rounds[:-1], entries)) == 0  # the last round was needed


# With tables of 3 or 4 the greedy schedule has every pair meet, for every field up to 40
# (pbem.league.pairing's docstring says so). The number of rounds is bounded below by what
# any schedule needs.
@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("n", range(5, 41))
def test_greedy_coverage_for_small_fields(k, n):
    if not greedy_size(k, n):
        return
    entries = ids(n, seed=n)
    rounds = round_robin(entries, k)
    counts = pair_counts(rounds, entries)
    tables = n // k
    # an entry meets at most k - 1 new opponents a round; a round covers so many pairs
    least = max(ceil((n - 1) / (k - 1)), ceil(len(counts) / (tables * k * (k - 1) // 2)))
    assert least <= len(rounds) <= greedy_cap(n, k)
    assert counts.count(0) == 0


# --- round robin: schedule versions ------------------------------------------------------

# Schedule 1's output before schedule 2 existed (written by the old round_robin for
# entries 100, 101, ...): running seasons keep it, so it must never change.
SCHEDULE_V1 = json.loads((Path(__file__).parent / "data" / "schedule_v1.json").read_text())


@pytest.mark.parametrize("key", sorted(SCHEDULE_V1))
def test_schedule_1_is_the_old_schedule_exactly(key):
    k, n = map(int, key.split(":"))
    rounds = round_robin(list(range(100, 100 + n)), k, schedule=1)
    assert [[r.tables, r.byes] for r in rounds] == SCHEDULE_V1[key]
    assert round_robin(list(range(100, 100 + n)), k) == rounds  # 1 is the default


def schedule_figures(rounds: list[Round], entries: list[int]) -> tuple[int, int, int]:
    counts = pair_counts(rounds, entries)
    return counts.count(0), len(rounds), sum(c > 1 for c in counts)


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("n", range(5, 25))
def test_schedule_2_is_never_worse_than_schedule_1(k, n):
    """Every pair meets; no more rounds; no more pairs meeting twice or more at as many
    rounds; byes as fair as ever."""
    if not greedy_size(k, n):
        return
    entries = ids(n, seed=n)
    old = schedule_figures(round_robin(entries, k, schedule=1), entries)
    rounds = round_robin(entries, k, schedule=2)
    new = schedule_figures(rounds, entries)
    assert new[0] == 0 and new <= old
    byes: Counter = Counter({e: 0 for e in entries})
    for rnd in rounds:
        assert_seats_everyone(rnd, entries, k)
        byes.update(rnd.byes)
        assert max(byes.values()) - min(byes.values()) <= 1
    assert round_robin(list(entries), k, schedule=2) == rounds  # deterministic


def test_schedule_2_does_better_than_schedule_1_for_15_singles():
    """The issue's field: 15 singles at tables of four took 10 rounds, 64 pairs repeated."""
    entries = ids(15)
    assert schedule_figures(round_robin(entries, 4, schedule=1), entries) == (0, 10, 64)
    new = schedule_figures(round_robin(entries, 4, schedule=2), entries)
    assert new[1] <= 9 and new[2] < 64


def test_schedule_2_bounds_its_work():
    assert greedy_starts(5) == MAX_STARTS
    assert greedy_starts(200) == 1  # one run, schedule 1's own cost
    for n in range(5, 201):
        assert 1 <= greedy_starts(n) <= MAX_STARTS
        assert greedy_starts(n) == 1 or greedy_starts(n) * n**3 <= START_WORK


def test_round_robin_refuses_an_unknown_schedule():
    with pytest.raises(ValueError, match="no schedule version 3"):
        round_robin(list(range(10)), 4, schedule=3)


# --- round robin: bad fields -------------------------------------------------------------


@pytest.mark.parametrize("entries, k, message", [
    ([1, 2, 3], 1, "at least 2"),
    ([1], 2, "cannot fill"),
    ([1, 2, 3], 4, "cannot fill"),
    ([1, 2, 2, 3], 2, "more than once"),
])
def test_round_robin_refuses_bad_fields(entries, k, message):
    with pytest.raises(ValueError, match=message):
        round_robin(entries, k)


# --- Swiss -------------------------------------------------------------------------------


def naive_pairs(ranked: list[int], met: Counter) -> list[list[int]]:
    """Top down without looking ahead: the best unpaired with the next best not met."""
    free, pairs = list(ranked), []
    while free:
        top = free.pop(0)
        other = next((e for e in free if not met[frozenset((top, e))]), free[0])
        free.remove(other)
        pairs.append([top, other])
    return pairs


def all_pairings(entries: list[int]):
    """Every way to pair off `entries`, the best entry's partner running down the ranks."""
    if not entries:
        yield []
        return
    top, rest = entries[0], entries[1:]
    for i, other in enumerate(rest):
        for tail in all_pairings(rest[:i] + rest[i + 1:]):
            yield [[top, other], *tail]


def test_swiss_avoids_the_rematch_naive_pairing_makes():
    ranked = [1, 2, 3, 4, 5, 6]
    met = Counter({frozenset({5, 6}): 1, frozenset({1, 3}): 1})
    assert rematches(Round(naive_pairs(ranked, met), []), met) == 1  # 1-2, 3-4, 5-6
    rnd = swiss(ranked, 2, met, Counter())
    assert rematches(rnd, met) == 0
    assert rnd.tables == [[1, 2], [3, 5], [4, 6]]


@given(hs.integers(1, 16).map(lambda half: 2 * half))
def test_swiss_first_round_pairs_down_the_standings(n):
    ranked = ids(n)
    rnd = swiss(ranked, 2, Counter(), Counter())
    assert rnd.tables == [ranked[i:i + 2] for i in range(0, n, 2)]


@settings(max_examples=150)
@given(hs.integers(1, 5), hs.data())
def test_swiss_pairs_with_fewest_rematches_first_in_rank_order(half, data):
    ranked = ids(2 * half, seed=half)
    pairs = list(combinations(ranked, 2))
    old = data.draw(hs.lists(hs.sampled_from(pairs), unique=True, max_size=len(pairs)))
    met = Counter(frozenset(p) for p in old)
    rnd = swiss(ranked, 2, met, Counter())
    assert_seats_everyone(rnd, ranked, 2)
    options = list(all_pairings(ranked))
    fewest = min(rematches(Round(p, []), met) for p in options)
    first = next(p for p in options if rematches(Round(p, []), met) == fewest)
    assert rnd.tables == first


@given(hs.integers(2, 5), fields(min_size=2, max_size=20), hs.data())
def test_swiss_byes_go_to_the_lowest_ranked_with_fewest_byes(k, ranked, data):
    if len(ranked) < k:
        return
    byes = Counter({e: data.draw(hs.integers(0, 2)) for e in ranked})
    rnd = swiss(ranked, k, Counter(), byes)
    assert_seats_everyone(rnd, ranked, k)
    assert len(rnd.byes) == len(ranked) % k
    rank = {e: i for i, e in enumerate(ranked)}
    playing = set(ranked) - set(rnd.byes)
    for out in rnd.byes:
        for p in playing:
            assert byes[out] < byes[p] or (byes[out] == byes[p] and rank[out] > rank[p])


@given(hs.integers(3, 5), fields(min_size=3, max_size=20))
def test_swiss_bigger_tables_first_round_fill_down_the_standings(k, ranked):
    if len(ranked) < k:
        return
    rnd = swiss(ranked, k, Counter(), Counter())
    playing = [e for e in ranked if e not in rnd.byes]
    assert rnd.tables == [playing[i:i + k] for i in range(0, len(playing), k)]


def test_swiss_bigger_table_takes_whoever_met_it_least():
    ranked = [1, 2, 3, 4, 5, 6]
    met = Counter({frozenset({1, 2}): 2, frozenset({1, 3}): 1, frozenset({2, 4}): 1})
    rnd = swiss(ranked, 3, met, Counter())
    assert rnd.tables[0][0] == 1
    # 1 opens; 4 (never met 1) joins; then 5 beats 2 (met both) and 3 (met 1)
    assert rnd.tables == [[1, 4, 5], [2, 3, 6]]


def test_swiss_sixteen_entries_tables_of_four_over_a_season():
    rounds = swiss_rounds(16, 4)
    assert rounds == 4
    repeats = random_repeats = 0
    for seed in range(20):
        rng = random.Random(seed)
        ranked = ids(16, seed)
        met: Counter = Counter()
        byes: Counter = Counter()
        random_met: Counter = Counter()
        for r in range(rounds):
            rng.shuffle(ranked)
            rnd = swiss(ranked, 4, met, byes)
            assert_seats_everyone(rnd, ranked, 4)
            assert rnd.byes == []
            if r == 1:  # one from each first-round table always fits at every table
                assert rematches(rnd, met) == 0
            met.update(meetings([rnd]))
            byes.update(rnd.byes)
            rng.shuffle(ranked)
            random_met.update(meetings([Round([ranked[i:i + 4] for i in range(0, 16, 4)], [])]))
        repeats += sum(c - 1 for c in met.values())
        random_repeats += sum(c - 1 for c in random_met.values())
    assert repeats < random_repeats / 2  # far fewer repeat meetings than seating at random


def test_swiss_stays_fast_for_64_entries():
    ranked = list(range(64))
    # an odd group of 33 have met all 31 others: one rematch is forced, and one is enough
    split = Counter({frozenset((a, b)): 1 for a in range(33) for b in range(33, 64)})
    # nearly everyone has met everyone: the search gives up and the fallback pairs instead
    rng = random.Random(4)
    crowded = Counter({frozenset(p): 1 for p in combinations(ranked, 2) if rng.random() < 0.97})
    for met, fewest in [(split, 1), (crowded, None)]:
        start = time.perf_counter()
        rnd = swiss(ranked, 2, met, Counter())
        assert time.perf_counter() - start < 2
        assert_seats_everyone(rnd, ranked, 2)
        if fewest is not None:
            assert rematches(rnd, met) == fewest


def test_swiss_season_of_63_avoids_rematches():
    rng = random.Random(7)
    ranked = ids(63)
    met: Counter = Counter()
    byes: Counter = Counter()
    for _ in range(swiss_rounds(63, 2)):
        rng.shuffle(ranked)
        rnd = swiss(ranked, 2, met, byes)
        assert_seats_everyone(rnd, ranked, 2)
        assert rematches(rnd, met) == 0
        met.update(meetings([rnd]))
        byes.update(rnd.byes)
    assert max(byes.values()) == 1


@pytest.mark.parametrize("ranked, k, message", [
    ([1, 2, 3], 4, "cannot fill"),
    ([1, 1], 2, "more than once"),
    ([1, 2], 1, "at least 2"),
])
def test_swiss_refuses_bad_fields(ranked, k, message):
    with pytest.raises(ValueError, match=message):
        swiss(ranked, k, Counter(), Counter())


# --- swiss_rounds -----------------------------------------------------------------------


@pytest.mark.parametrize("n, k, expected", [
    (2, 2, 3),    # at least three rounds, even for two
    (4, 4, 3),    # one table of singles: new partners each round
    (5, 2, 3),
    (9, 2, 4),    # ceil(log2(9)) = 4
    (16, 2, 4),
    (17, 2, 5),
    (16, 4, 4),
    (64, 2, 6),
])
def test_swiss_rounds(n, k, expected):
    assert swiss_rounds(n, k) == expected


@given(hs.integers(2, 5), hs.integers(2, 40))
def test_swiss_rounds_separate_the_field(k, n):
    if n < k:
        with pytest.raises(ValueError):
            swiss_rounds(n, k)
        return
    rounds = swiss_rounds(n, k)
    assert rounds >= 3 and 2 ** rounds >= n and (rounds == 3 or 2 ** (rounds - 1) < n)


# --- seat_entries -----------------------------------------------------------------------

PARTNERS = [[0, 2], [1, 3]]
SINGLES = [[0], [1], [2], [3]]
SIX_HANDED = [[0, 3], [1, 4], [2, 5]]


@pytest.mark.parametrize("sides", [PARTNERS, SIX_HANDED])
def test_fixed_partnerships_take_a_whole_side_each(sides):
    table = ids(len(sides))
    seats = seat_entries(table, sides, True, random.Random(3))
    assert len(seats) == sum(len(side) for side in sides)
    on_side = [{seats[s] for s in side} for side in sides]
    assert all(len(entries) == 1 for entries in on_side)
    assert sorted(e for entries in on_side for e in entries) == sorted(table)


@pytest.mark.parametrize("sides", [SINGLES, PARTNERS, SIX_HANDED])
def test_individuals_take_a_seat_each(sides):
    table = ids(sum(len(side) for side in sides))
    seats = seat_entries(table, sides, False, random.Random(3))
    assert sorted(seats) == sorted(table)


@pytest.mark.parametrize("sides, pairs", [(PARTNERS, True), (SINGLES, False),
                                          (SIX_HANDED, True)])
def test_seat_draw_repeats_with_the_same_rng_and_leaves_the_table_alone(sides, pairs):
    table = ids(len(sides) if pairs else sum(len(side) for side in sides))
    before = list(table)
    first = seat_entries(table, sides, pairs, random.Random(42))
    assert seat_entries(table, sides, pairs, random.Random(42)) == first
    assert table == before


@pytest.mark.parametrize("sides", [PARTNERS, SIX_HANDED])
def test_each_partnership_lands_on_every_side(sides):
    table = ids(len(sides))
    landed = {(seats[side[0]], i) for seed in range(200)
              for seats in [seat_entries(table, sides, True, random.Random(seed))]
              for i, side in enumerate(sides)}
    assert landed == {(e, i) for e in table for i in range(len(sides))}


@pytest.mark.parametrize("sides", [SINGLES, PARTNERS])
def test_each_individual_lands_in_every_seat(sides):
    table = ids(4)
    landed = {(e, seat) for seed in range(200)
              for seat, e in enumerate(seat_entries(table, sides, False, random.Random(seed)))}
    assert landed == {(e, seat) for e in table for seat in range(4)}


@pytest.mark.parametrize("table, sides, pairs, message", [
    ([1, 2, 3], PARTNERS, True, "3 entries for 2 sides"),
    ([1, 2], SINGLES, False, "2 entries for 4 seats"),
    ([1, 2], PARTNERS, False, "2 entries for 4 seats"),
    ([1, 2, 3, 4], PARTNERS, True, "4 entries for 2 sides"),
    ([1, 1], PARTNERS, True, "same entry twice"),
    ([1, 2], [[0, 2], [1, 2]], True, "once each"),
    ([1, 2], [[0, 3], [1, 4]], True, "once each"),
    ([], [], True, "once each"),
])
def test_seat_entries_refuses_a_mismatch(table, sides, pairs, message):
    with pytest.raises(ValueError, match=message):
        seat_entries(table, sides, pairs, random.Random(0))


def test_swiss_tables_of_four_swap_out_a_rematch_the_greedy_fill_leaves():
    met = Counter(frozenset(p) for p in ((0, 2), (0, 4), (0, 6), (1, 2), (1, 6), (3, 6),
                                         (4, 7)))
    # filled greedily, 0 1 3 5 is clean but 2 4 6 7 holds 4-7; swapping 5 and 7 clears it
    rnd = swiss(list(range(8)), 4, met, Counter())
    assert [sorted(t) for t in rnd.tables] == [[0, 1, 3, 7], [2, 4, 5, 6]]
    assert not any(met[frozenset(p)] for t in rnd.tables for p in combinations(t, 2))


@pytest.mark.parametrize("seed", range(10))
def test_a_swiss_season_of_24_at_tables_of_4_has_no_rematch_for_three_rounds(seed):
    rng = random.Random(seed)
    ranked, met = list(range(24)), Counter()
    for _ in range(3):
        rnd = swiss(ranked, 4, met, Counter())
        assert not any(met[frozenset(p)] for t in rnd.tables for p in combinations(t, 2))
        met.update(meetings([rnd]))
        rng.shuffle(ranked)  # any standings at all
