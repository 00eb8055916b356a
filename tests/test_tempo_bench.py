"""bench/tempo.py, the proof of issue 14: its core on two robot games, the careful player's
orders on a known position, and the answer-delay model's nights."""

import random
from datetime import datetime, timedelta

import pytest
from helpers import deal, do

from bench import tempo
from bench.careful import ahead_bid, careful_lines
from pbem.engine import new_game, preset, view
from pbem.engine.orders import next_card, read
from tests.test_no_stall import HANDS

# one xdist worker runs this file (scripts/test): the tallied games made once for the file
pytestmark = pytest.mark.xdist_group("test_tempo_bench")

STD = preset("standard")


@pytest.fixture(scope="module")
def games():
    return [tempo.tally_game(f"test:{g}") for g in range(2)]


def test_orders_play_only_legal_cards_and_never_ask_more(games):
    played = 0
    for tallies, hands in games:
        d = {name: t.decisions for name, t in tallies.items()}
        assert d[tempo.ORDERS] <= d[tempo.EQUAL] <= d[tempo.FORCED] <= d[tempo.ONE]
        assert d[tempo.FORCED_ORDERS] <= d[tempo.FORCED]
        assert d[tempo.COVER] < d[tempo.ORDERS] and d[tempo.AHEAD] < d[tempo.ORDERS]
        for name in tempo.CAREFUL:
            assert tallies[name].illegal == 0
            assert d[name] >= 4 * hands  # every bid is a person's
        played += tallies[tempo.ORDERS].by_order
    assert played > 0  # the careful player's orders did play cards


def test_settled_hands_playing_themselves_never_ask_more(games):
    """Issue 33: a settled hand's rest plays itself; the policies with it ask fewer cards
    (the same news: a hand still ends with a move)."""
    fewer = 0
    for tallies, hands in games:
        d = {name: t.decisions for name, t in tallies.items()}
        assert d[tempo.FORCED_SETTLED] <= d[tempo.FORCED]
        assert d[tempo.SETTLED] <= d[tempo.AHEAD]
        fewer += d[tempo.FORCED] - d[tempo.FORCED_SETTLED]
        assert tallies[tempo.SETTLED].news("hand") == 3 * (hands - 1)
    assert fewer > 0


def test_bids_ahead_answer_beside_the_first_bid_and_need_no_turn_mail(games):
    for tallies, hands in games:
        t = tallies[tempo.AHEAD]
        assert 0 < t.ahead + t.ahead_overruled <= 3 * hands  # never the first bidder's
        groups = [seats for seats, _ in t.moves if isinstance(seats, tuple)]
        assert 0 < len(groups) <= hands and sum(len(g) - 1 for g in groups) == t.ahead
        assert all(len(set(g)) == len(g) for g in groups)  # each seat answers once
        assert tallies[tempo.COVER].ahead == 0  # without bids ahead nobody answers beside
        assert t.decisions == t.ahead + sum(1 for seats, _ in t.moves
                                             if not isinstance(seats, tuple)) + len(groups)


def test_answering_beside_waits_for_the_slowest_not_for_the_sum():
    one, four, chain = [], [], []
    for i in range(300):
        one.append(tempo.calendar([[0, False]], random.Random(i))[0])
        four.append(tempo.calendar([[(0, 1, 2, 3), False]], random.Random(i))[0])
        chain.append(tempo.calendar([[s, False] for s in range(4)], random.Random(i))[0])
    assert all(f >= o for f, o in zip(four, one, strict=True))  # the first seat is one of them
    assert sum(one) < sum(four) < sum(chain) * 0.75


def test_news_of_every_trick_or_of_every_hand(games):
    """pbem.notify: a move that ends a trick (`notify every trick`) or a hand (`every hand`,
    the default) mails the three players not to act; the last move ends the game (its mail is
    the result)."""
    for tallies, hands in games:
        assert tallies[tempo.ONE].news("trick") == 3 * (13 * hands - 1)
        assert tallies[tempo.ORDERS].news("trick") < tallies[tempo.ONE].news("trick")
        for t in tallies.values():
            assert t.news("hand") == 3 * (hands - 1)


def _position(bids=(4, 3, 1, 1)):
    """HANDS: seat 0 AS-JS and AH-6H, seat 1 TS-2S and 5H-2H, seat 2 diamonds, seat 3
    clubs; seat 0 leads."""
    st = new_game(STD, 3)
    deal(st, HANDS)
    for seat in (0, 1, 2, 3):
        do(st, seat, {"type": "bid", "bid": bids[seat]})
    return st


def test_the_careful_player_orders_only_what_it_cannot_lose():
    st = _position()
    do(st, 0, "AH")
    # AH may yet be trumped (so no run), but KH is now the top heart and not alone
    assert careful_lines(view(st, 0), STD, equal=True) == ["lead KH next"]
    do(st, 1, "5H")
    # seat 1's hearts and spades are all below every one still out: it cannot win them
    assert careful_lines(view(st, 1), STD) == ["follow low in spades", "follow low in hearts"]
    assert careful_lines(view(st, 1), STD, equal=True) == []  # auto equal plays those
    do(st, 2, "2D")
    do(st, 3, "2C")
    assert careful_lines(view(st, 0), STD, equal=True) == ["lead KH next"]  # spades closed


def test_the_careful_player_covers_unless_its_side_ducks_bags():
    st = _position()
    do(st, 0, "AH")
    do(st, 1, "5H")
    assert careful_lines(view(st, 1), STD, cover=True)[-1] == "cover"
    v = view(st, 1)  # as if its side had made its bid with 8 bags: each trick is a bag
    v["won"][1], v["won"][3] = 3, 1
    v["sides"][1]["bags"] = 8
    assert "cover" not in careful_lines(v, STD, cover=True)
    v["sides"][1]["bags"] = 2
    assert "cover" in careful_lines(v, STD, cover=True)


def test_a_bid_ahead_is_the_robots_bid_on_the_new_hand():
    from pbem.engine import choose

    st = new_game(STD, 3)
    deal(st, HANDS)
    ahead = {seat: ahead_bid(view(st, seat), STD) for seat in (1, 2, 3)}
    for seat in range(4):
        do(st, seat, choose(view(st, seat), rules=STD))
    assert ahead == {1: st.bids[1], 2: st.bids[2], 3: st.bids[3]}  # nobody bid nil here
    st = new_game(STD, 3)
    deal(st, HANDS)
    st.looked[2] = False  # it may bid blind: no bid ahead before it looks
    assert ahead_bid(view(st, 2), STD) is None


def test_no_orders_on_a_side_with_a_nil():
    st = _position((4, 3, 1, "nil"))
    do(st, 0, "AH")
    do(st, 1, "5H")
    assert careful_lines(view(st, 1), STD) == []  # its partner, seat 3, bid nil
    assert careful_lines(view(st, 0), STD) == ["lead KH next"]


def test_a_run_of_top_trumps_ends_with_the_side_suit_top_card():
    st = _position()
    for card, low in (("AH", "5H"), ("KH", "4H"), ("QH", "3H"), ("JH", "2H")):
        for seat, c in ((0, card), (1, low), (2, None), (3, None)):
            do(st, seat, c or st.playable(seat)[0])
    for seat, card in ((0, "TH"), (1, "2S"), (2, None), (3, None), (1, "TS"), (2, None),
                       (3, None), (0, "AS")):
        do(st, seat, card or st.playable(seat)[0])
    line = "play KS then QS then JS then 9H"
    assert careful_lines(view(st, 0), STD, equal=True) == [line]
    orders = read(line)
    assert next_card(st, 0, orders) == (0, "KS")


def test_nobody_answers_at_night_in_their_zone():
    rng = random.Random(1)
    t = datetime(2027, 1, 4, 9)
    for i in range(2000):
        zone = tempo.ZONES[i % 4]
        t2 = tempo.answered(t, zone, rng)
        local = (t2 + timedelta(hours=zone)).hour
        assert t2 > t and not (local >= tempo.SLEEP[0] or local < tempo.SLEEP[1])
        t = t2


def test_a_game_takes_days_and_a_digest_a_day_it_moved(games):
    tallies, _ = games[0]
    moves = tallies[tempo.ONE].moves
    days, digests, quiet = tempo.calendar(moves, random.Random(1))
    assert 0 < quiet <= digests <= 4 * (int(days) + 2)
    assert digests >= 4 * days * 0.8  # the game moves on most days
    fewer, _, _ = tempo.calendar(tallies[tempo.ORDERS].moves, random.Random(1))
    assert fewer < days
