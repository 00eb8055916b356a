"""Catalogue rules P (passing cards) and B (bidding), each on a crafted deal."""

import pytest

from pbem.engine import IllegalAction, RulesError, legal, new_game, preset, view
from tests.helpers import bid, bid_round, deal, do, fixed_hands, play_out, top_trumps

STANDARD = preset("standard")
TOURNAMENT = preset("tournament-300")


def started(rules, spec=None, dealer=0, scores=None):
    """A game with a crafted deal made; `scores` set first (to be behind for blind bids)."""
    st = new_game(rules, dealer)
    if scores:
        st.scores = list(scores)
    deal(st, fixed_hands(rules, spec))
    return st


def numbers(st, seat):
    return [o["bid"] for o in st.bid_options(seat) if isinstance(o["bid"], int)
            and not o.get("blind")]


def blinds(st, seat):
    return [o["bid"] for o in st.bid_options(seat) if o.get("blind")]


def last_side(st, side):
    return st.history[-1]["sides"][side]


# -- P: passing cards -------------------------------------------------------------


def test_P1_simultaneous_pass_to_partner():
    r = STANDARD.with_options(pass_to_partner=3)
    st = started(r)
    assert st.phase == "pass" and st.to_act() == [0, 1, 2, 3]
    assert legal(st, 0) == [{"type": "pass", "count": 3}]
    gift = st.hands[0][:3]
    before = list(st.hands[2])
    do(st, 0, {"type": "pass", "cards": gift})
    assert st.hands[2] == before and len(st.hands[0]) == 10  # nothing arrives yet
    for seat in (1, 2):
        do(st, seat, {"type": "pass", "cards": st.hands[seat][:3]})
    assert not set(gift) & set(st.hands[2])
    do(st, 3, {"type": "pass", "cards": st.hands[3][:3]})
    assert set(gift) <= set(st.hands[2]) and all(len(h) == 13 for h in st.hands)
    assert st.passed_to[2] == gift and st.phase == "bid"


def test_P1_pass_exactly_three_cards_you_hold():
    st = started(STANDARD.with_options(pass_to_partner=3))
    with pytest.raises(IllegalAction, match="exactly 3"):
        do(st, 0, {"type": "pass", "cards": st.hands[0][:2]})
    with pytest.raises(IllegalAction, match="cards you hold"):
        do(st, 0, {"type": "pass", "cards": st.hands[1][:3]})


def test_P2_blind_nil_exchange_of_two():
    st = started(STANDARD, scores=[0, 100])  # side 0 (seats 0, 2) behind by 100
    bid_round(st, {2: "blind nil"})
    assert st.bids[2] == "blind nil" and st.blind[2]
    assert st.phase == "pass" and st.to_act() == [2]
    give = st.hands[2][:2]
    do(st, 2, {"type": "pass", "cards": give})
    assert st.to_act() == [0] and set(give) <= set(st.hands[0])
    back = [c for c in st.hands[0] if c not in give][:2]
    do(st, 0, {"type": "pass", "cards": back})
    assert set(back) <= set(st.hands[2]) and st.phase == "play"
    assert [len(h) for h in st.hands] == [13] * 4


@pytest.mark.parametrize("optional", [True, False])
def test_P2_the_blind_nil_bidder_may_keep_its_cards(optional):
    """pagat: after the bidding "the bidder may exchange two cards with partner"."""
    st = started(STANDARD.with_options(blind_nil_exchange_optional=optional), scores=[0, 100])
    bid_round(st, {2: "blind nil"})
    hands = [list(h) for h in st.hands]
    assert ({"type": "pass", "count": 0} in legal(st, 2)) is optional
    if not optional:
        with pytest.raises(IllegalAction, match="pass exactly 2 cards"):
            do(st, 2, {"type": "pass", "cards": []})
        return
    do(st, 2, {"type": "pass", "cards": []})
    assert st.phase == "play" and st.hands == hands and not st.passed_to[0]
    assert {"type": "pass", "count": 0} not in legal(st, 0)  # the partner may not decline


def test_P2_partners_both_on_blind_nil_exchange_in_full():
    """Each partner's step may be the return of the other's exchange: declining there would
    give cards and get none back (the random games found a hand of 9 tricks this way)."""
    st = started(STANDARD, scores=[0, 100])
    bid_round(st, {0: "blind nil", 2: "blind nil"})
    while st.phase == "pass":
        seat = st.to_act()[0]
        assert {"type": "pass", "count": 0} not in legal(st, seat)
        do(st, seat, {"type": "pass", "cards": st.hands[seat][:2]})
    assert [len(h) for h in st.hands] == [13] * 4


def test_P2_nil_exchange_option_and_none_by_default():
    st = started(STANDARD)
    bid_round(st, {1: "nil"})
    assert st.phase == "play"  # standard: no exchange for a plain nil
    st = started(STANDARD.with_options(nil_exchange=1))
    bid_round(st, {1: "nil"})
    assert st.phase == "pass" and legal(st, 1) == [{"type": "pass", "count": 1}]


def test_P3_double_nil_each_partner_passes_two():
    r = TOURNAMENT.with_options(double_nil_exchange=2)
    st = started(r)
    bid_round(st, {1: "nil", 3: "nil"})
    assert st.phase == "pass" and st.to_act() == [1, 3]
    one, three = st.hands[1][:2], st.hands[3][:2]
    do(st, 1, {"type": "pass", "cards": one})
    assert not set(one) & set(st.hands[3])
    do(st, 3, {"type": "pass", "cards": three})
    assert set(one) <= set(st.hands[3]) and set(three) <= set(st.hands[1])


def test_P3_double_nil_exchange_needs_partnerships():
    with pytest.raises(RulesError, match="double_nil_exchange"):
        preset("cutthroat-4").with_options(double_nil_exchange=2)


# -- B: bidding -------------------------------------------------------------------


def test_B1_round_the_table_from_dealers_left_once_each():
    st = started(STANDARD, dealer=2)
    assert numbers(st, 3) == list(range(1, 14)) and {"bid": "nil"} in st.bid_options(3)
    with pytest.raises(IllegalAction, match="not your turn"):
        bid(st, 0, 3)
    order = []
    while st.phase == "bid":
        order.append(st.to_act()[0])
        bid(st, order[-1], 2)
    assert order == [3, 0, 1, 2] and st.phase == "play"
    with pytest.raises(IllegalAction):
        bid(st, 3, 4)  # bids are final


def test_B1a_dealer_bids_first():
    st = started(STANDARD.with_options(bid_order="dealer"), dealer=2)
    assert st.to_act() == [2]


def test_B2_nil_is_the_bid_of_zero():
    st = started(STANDARD)
    assert {"bid": "nil"} in st.bid_options(1)
    with pytest.raises(IllegalAction):
        bid(st, 1, 0)


def test_B2a_zero_is_not_nil():
    r = STANDARD.with_options(nil=False, blind_nil=False, bid_min=0)
    st = started(r, {1: top_trumps(STANDARD)})
    assert numbers(st, 1)[0] == 0 and {"bid": "nil"} not in st.bid_options(1)
    bid_round(st, {2: 0})
    play_out(st)
    assert last_side(st, 0)["points"] == 0 and last_side(st, 0)["bid"] == 0
    st = started(STANDARD.with_options(nil=False, blind_nil=False))
    assert numbers(st, 1)[0] == 1 and {"bid": "nil"} not in st.bid_options(1)


def test_B2_zero_needs_nil_off():
    with pytest.raises(RulesError, match="bid_min"):
        STANDARD.with_options(bid_min=0)


@pytest.mark.parametrize("behind, offered", [(99, False), (100, True), (250, True)])
def test_B3_blind_nil_only_when_behind_100(behind, offered):
    st = started(STANDARD, dealer=1, scores=[0, behind])  # seat 2 bids first
    assert ({"bid": "blind nil"} in st.bid_options(2)) is offered
    assert ({"type": "look"} in legal(st, 2)) is offered
    assert st.looked[3]  # the side ahead sees its cards at once


def test_B3_no_blind_nil_after_looking():
    st = started(STANDARD, scores=[0, 100])
    bid(st, 1, 3)
    do(st, 2, {"type": "look"})
    assert {"bid": "blind nil"} not in st.bid_options(2)
    with pytest.raises(IllegalAction):
        bid(st, 2, "blind nil")


@pytest.mark.parametrize("rules, blind_after_partner", [(STANDARD, True), (TOURNAMENT, False)])
def test_B3_tournament_blind_nil_only_while_neither_partner_has_looked(rules,
                                                                          blind_after_partner):
    """The tournament sheet: blind nil "must be declared by a side before either partner
    looks"; the standard rules let a seat that has not looked bid it after its partner."""
    st = started(rules, dealer=0, scores=[100, 0])  # seats 1 and 3 trail by 100
    assert not st.looked[1] and not st.looked[3]
    do(st, 1, {"type": "look"})
    bid(st, 1, 4)
    if 2 in st.to_act():  # standard bids round the table; the tournament side by side
        bid(st, 2, 4)
    assert ({"bid": "blind nil"} in st.bid_options(3)) is blind_after_partner
    assert st.looked[3] is not blind_after_partner  # no blind left: seat 3 sees its cards


def test_B3_blind_side_unseen_needs_partnerships():
    with pytest.raises(RulesError, match="blind_side_unseen"):
        STANDARD.with_options(partnerships=False, players=3, leftover="out",
                              blind_nil_exchange=0, blind_side_unseen=True)


def test_B4_team_minimum_with_nil_partner():
    st = started(TOURNAMENT)  # non-dealing side first: seats 1, 3, then 2, 0
    assert st.to_act() == [1]
    bid(st, 1, "nil")
    assert numbers(st, 3) == list(range(4, 14))
    assert {"bid": "nil"} in st.bid_options(3)  # both nil is allowed
    with pytest.raises(IllegalAction):
        bid(st, 3, 3)
    bid(st, 3, "nil")
    bid(st, 2, 1)
    assert numbers(st, 0) == list(range(3, 14))
    assert {"bid": "nil"} not in st.bid_options(0)  # partner bid 1: nil would leave 1


def test_B4_off_in_standard():
    st = started(STANDARD)
    bid(st, 1, "nil")
    bid(st, 2, 1)
    assert numbers(st, 3)[0] == 1


@pytest.mark.parametrize("name", ["barmore", "nyc"])
def test_B5_partnership_bidding_either_partner_non_dealers_first(name):
    r = preset(name)
    st = new_game(r, 3)
    if r.first_hand_unbid:  # nyc: get past the unbid first hand
        deal(st)
        play_out(st)
    assert st.dealer == (0 if name == "nyc" else 3)
    deal(st, fixed_hands(r))
    d = st.dealer
    first = st.to_act()
    assert sorted(first) == sorted([(d + 1) % 4, (d + 3) % 4])
    assert numbers(st, first[1]) == list(range(r.bid_min, (r.bid_max or 13) + 1))
    assert {"bid": "nil"} not in st.bid_options(first[0])
    bid(st, first[1], 5)
    with pytest.raises(IllegalAction):
        bid(st, first[0], 5)  # the side has bid
    assert sorted(st.to_act()) == sorted([d, (d + 2) % 4])
    bid(st, d, 6)
    assert st.phase == "play"
    play_out(st)
    assert [s["bid"] for s in st.history[-1]["sides"]] == (
        [6, 5] if d % 2 == 0 else [5, 6])


def test_B5_ranges():
    assert (preset("barmore").bid_min, preset("barmore").max_bid) == (1, 13)
    assert (preset("nyc").bid_min, preset("nyc").max_bid) == (4, 10)


def test_B6_barmore_blind_seven_doubles_both_ways():
    r = preset("barmore")
    strong = top_trumps(r)
    st = started(r, {1: strong})  # side 1 (seats 1, 3) takes all 13
    assert blinds(st, 1) == list(range(7, 14)) and not st.looked[1]
    bid_round(st, {3: (7,)})
    play_out(st)
    assert last_side(st, 1)["points"] == 140 + 6  # overtricks one each
    st = started(r, {0: strong})
    bid_round(st, {1: (7,)})
    play_out(st)
    assert last_side(st, 1)["points"] == -140


def test_B6_barmore_no_blind_after_looking_or_when_ahead():
    r = preset("barmore")
    st = started(r)
    do(st, 1, {"type": "look"})
    assert blinds(st, 3) == []
    st = started(r, scores=[10, 0])
    assert blinds(st, 2) == [] and blinds(st, 1) == list(range(7, 14))


def nyc_second_hand(strong_seat, scores):
    """nyc, hand 2 (seat 0 deals, side 1 bids first), `strong_seat` holding the top 13."""
    r = preset("nyc")
    st = new_game(r, 3)
    deal(st)
    play_out(st)
    st.scores = list(scores)
    deal(st, fixed_hands(r, {strong_seat: top_trumps(r)}))
    return st


def test_B6_nyc_blind_six_only_when_behind_100():
    st = nyc_second_hand(1, [99, 0])
    assert blinds(st, 1) == []
    st = nyc_second_hand(1, [100, 0])
    assert blinds(st, 1) == list(range(6, 11)) and blinds(st, 2) == []


@pytest.mark.parametrize("strong, points", [(1, 120), (0, -60)])
def test_B6_nyc_blind_double_if_made_single_if_lost(strong, points):
    st = nyc_second_hand(strong, [100, 0])
    bid_round(st, {1: (6,)})
    assert st.to_act() == [1, 3] and legal(st, 3) == [{"type": "come_out"}, {"type": "stay"}]
    do(st, 3, {"type": "stay"})
    bid_round(st)
    play_out(st)
    assert last_side(st, 1)["points"] == points


def test_B6_nyc_come_out_to_ten_scores_single():
    st = nyc_second_hand(1, [100, 0])
    bid_round(st, {1: (7,)})
    do(st, 1, {"type": "come_out"})
    assert st.bids[1] == 10 and not st.blind[1]
    bid_round(st)
    play_out(st)
    side = last_side(st, 1)
    assert side["points"] == 200 and side["came_out"] and "blind" not in side


def test_B8_bids_must_not_total_the_tricks():
    st = started(STANDARD.with_options(no_exact_total=True))
    for seat in (1, 2, 3):
        bid(st, seat, 3)
    assert 4 not in numbers(st, 0) and {3, 5} <= set(numbers(st, 0))
    with pytest.raises(IllegalAction):
        bid(st, 0, 4)
    st = started(STANDARD)
    for seat in (1, 2, 3):
        bid(st, seat, 3)
    assert 4 in numbers(st, 0)


def test_B8_three_players_not_seventeen():
    r = preset("cutthroat-3").with_options(no_exact_total=True)
    st = started(r)
    bid(st, 1, 8)
    bid(st, 2, 4)
    assert 5 not in numbers(st, 0) and 4 in numbers(st, 0)


TEN_FOR = {1: top_trumps(TOURNAMENT)}  # side 1 takes all 13


@pytest.mark.parametrize("rules, points", [
    (TOURNAMENT, 120 + 3),
    (preset("tournament-500"), 200 + 3),
    (TOURNAMENT.with_options(ten_for_exact=True), -120),
])
def test_B9_ten_for_two_hundred(rules, points):
    st = started(rules, TEN_FOR)
    bid_round(st, {1: 5, 3: 5})
    play_out(st)
    assert last_side(st, 1)["points"] == points


def test_B9_ten_for_lost():
    st = started(TOURNAMENT, {0: top_trumps(TOURNAMENT)})
    bid_round(st, {1: 4, 3: 6})
    play_out(st)
    assert last_side(st, 1)["points"] == -120


@pytest.mark.parametrize("strong, points", [(1, 120), (0, 0)])
def test_B11_double_nil(strong, points):
    st = started(TOURNAMENT, {strong: top_trumps(TOURNAMENT)})
    bid_round(st, {1: 4, 3: 4, 2: "nil", 0: "nil"})
    play_out(st)
    assert last_side(st, 0)["points"] == points


def test_B11_double_nil_off_scores_two_nils():
    st = started(STANDARD, {1: top_trumps(STANDARD)})
    bid_round(st, {2: "nil", 0: "nil"})
    play_out(st)
    assert last_side(st, 0)["points"] == 200


def test_B13_first_hand_unbid_ten_a_trick():
    r = preset("nyc")
    st = started(r, {1: top_trumps(r)})
    assert st.phase == "play" and st.bids == [None] * 4
    play_out(st)
    sides = st.history[-1]["sides"]
    assert [s["points"] for s in sides] == [0, 130] and sides[1]["bid"] is None
    deal(st)
    assert st.phase == "bid"  # the second hand is bid


def test_B13_option_in_standard():
    r = STANDARD.with_options(first_hand_unbid=True)
    st = started(r, {2: top_trumps(r)[:7]})
    assert st.phase == "play"
    play_out(st)
    assert sum(s["points"] for s in st.history[-1]["sides"]) == 130


# -- B15 forced bids. The source texts do not describe them; docs/rules.md's catalogue does:
# "B15 forced-bid games: whiz and mirror (bid your number of spades or nil), suicide (one
# partner of each side bids nil)". Mirror follows the brief: the spades held, no choice.

FIVE_SPADES = ["AS", "KS", "QS", "JS", "TS", "AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D"]
NO_SPADES = ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4H", "3H", "2H"]


def spades_in(st, seat):
    return sum(1 for c in st.hands[seat] if c[1] == "S")


def test_B15_whiz_bids_the_spades_held_or_nil():
    st = started(preset("whiz"), {1: FIVE_SPADES})
    assert [o["bid"] for o in st.bid_options(1)] == ["nil", 5]
    with pytest.raises(IllegalAction, match="you may bid nil, 5"):
        bid(st, 1, 4)
    bid(st, 1, 5)
    for seat in (2, 3, 0):  # every seat: nil or exactly its own spades
        assert [o["bid"] for o in st.bid_options(seat)] == ["nil", spades_in(st, seat)]
        bid(st, seat, spades_in(st, seat))
    assert st.phase == "play"


def test_B15_whiz_with_no_spades_bids_nil_and_unseen_cards_only_blind_nil():
    r = STANDARD.with_options(forced_bids="whiz")
    st = started(r, {1: NO_SPADES}, scores=[100, 0])  # side 1 behind: blind nil open
    assert st.bid_options(1) == [{"bid": "blind nil"}]  # the count would show the cards
    do(st, 1, {"type": "look"})
    assert st.bid_options(1) == [{"bid": "nil"}]


def test_B15_mirror_bids_exactly_the_spades_held():
    r = STANDARD.with_options(forced_bids="mirror", blind_nil=False)
    st = started(r, {1: FIVE_SPADES, 2: NO_SPADES})
    assert st.bid_options(1) == [{"bid": 5}]
    bid(st, 1, 5)
    assert st.bid_options(2) == [{"bid": "nil"}]  # no spades: nil
    r0 = STANDARD.with_options(forced_bids="mirror", blind_nil=False, nil=False, bid_min=0)
    assert started(r0, {1: NO_SPADES}).bid_options(1) == [{"bid": 0}]


def test_B15_suicide_one_partner_nil_the_other_a_number():
    st = started(preset("suicide"))
    assert [o["bid"] for o in st.bid_options(1)][:3] == ["nil", 4, 5]  # 4+: B4's minimum
    bid(st, 1, 5)
    bid(st, 2, "nil")
    assert st.bid_options(3) == [{"bid": "nil"}]  # partner bid a number: nil
    bid(st, 3, "nil")
    assert [o["bid"] for o in st.bid_options(0)] == list(range(4, 14))  # partner nil
    with pytest.raises(IllegalAction):
        bid(st, 0, "nil")


@pytest.mark.parametrize("options, named", [
    (dict(forced_bids="whiz", bidding="side", nil=False, blind_nil=False), "seat bidding"),
    (dict(forced_bids="whiz", side_min=4), "side_min=0"),
    (dict(forced_bids="mirror"), "no blind nil"),
    (dict(forced_bids="suicide", partnerships=False, blind_nil_exchange=0), "partnerships"),
    (dict(forced_bids="whiz", nil=False, blind_nil=False), "needs nil"),
])
def test_B15_forced_bids_refuse_options_that_would_close_every_bid(options, named):
    with pytest.raises(RulesError, match=named):
        STANDARD.with_options(**options)


@pytest.mark.parametrize("preset_name", ["whiz", "mirror"])
def test_B15_a_forced_bid_is_not_raised(preset_name):
    """Seed 004 on whiz: "each player must bid the exact number of spades in their hand or
    go Nil"; on mirror: "Each player must bid the number of spades in their hand". A raise
    round (B7) would let a forced bid grow: edition 2 refuses the combination."""
    base = preset("whiz") if preset_name == "whiz" else STANDARD.with_options(
        forced_bids="mirror", blind_nil=False)
    with pytest.raises(RulesError, match="raise_round=false"):
        base.with_options(raise_round=True)
    old = base.with_options(edition=1, raise_round=True)  # games begun before: as then
    st = started(old, {1: FIVE_SPADES})
    for seat in (1, 2, 3, 0):
        bid(st, seat, spades_in(st, seat) or "nil")
    assert st.raising and {"bid": 6} in st.bid_options(1)
    assert preset("suicide").with_options(raise_round=True).raise_round  # not forced to a
    # number: the suicide's number bidder may raise as any other


def test_B15_robots_play_whole_forced_games():
    for name in ("whiz", "suicide"):
        st = started(preset(name))
        play_out(st, seed=3)
        row = st.history[-1]
        assert sum(s["tricks"] for s in row["sides"]) == 13
        if name == "suicide":
            assert all(len(s["nils"]) == 1 for s in row["sides"])


# -- B12 Bemo and Mo. pagat: "Little Bemo commits the team to win the first six tricks. It
# is additional to the normal bid; ... bonus of 60 if successful and loses 60 if not. Big
# Bemo ... the first nine tricks; ... 90". The encyclopedia: "If a team declares Little Mo,
# they must take the first 7 tricks ... 150 points ... Big Mo ... the first 10 tricks ...
# 250 points ... immune to bags for that hand and will lead the first trick".

MO = preset("mo")


def test_B12_little_mo_made_leads_and_takes_no_bags():
    st = started(MO, {3: top_trumps(MO)}, dealer=0)
    assert {"bid": 4, "mo": "little mo"} in st.bid_options(1)
    bid_round(st, {1: 1, 2: 2, 3: {"bid": 4, "mo": "little mo"}})
    assert st.phase == "play" and st.turn == 3  # the calling seat leads, not seat 1
    play_out(st)
    side = last_side(st, 1)
    assert side["mo"] == {"seat": 3, "call": "little mo", "made": True, "points": 150}
    assert (side["bid"], side["tricks"], side["bags"]) == (5, 13, 0)
    assert side["points"] == 50 + 150  # the bid, no bag, the call


def test_B12_big_mo_lost_when_the_other_side_takes_an_early_trick():
    st = started(MO, {0: top_trumps(MO)})
    bid_round(st, {1: {"bid": 3, "mo": "big mo"}})
    assert st.turn == 1
    play_out(st)
    side = last_side(st, 1)
    assert side["mo"]["made"] is False and side["points"] == -40 - 250  # bid 3 + 1, set


def test_B12_bemo_adds_to_the_bid_and_keeps_the_usual_lead_and_bags():
    r = STANDARD.with_options(mo="bemo")
    st = started(r, {1: top_trumps(r)})
    bid_round(st, {1: {"bid": 4, "mo": "little bemo"}})
    assert st.turn == 1  # dealer's left as usual
    play_out(st)
    side = last_side(st, 1)
    assert (side["bags"], side["points"]) == (8, 50 + 8 + 60)


def test_B12_one_call_a_hand_with_a_number_bid_and_the_game_own_word():
    st = started(MO)
    with pytest.raises(IllegalAction, match="little mo and big mo, not 'little bemo'"):
        do(st, 1, {"type": "bid", "bid": 4, "mo": "little bemo"})
    with pytest.raises(IllegalAction, match="goes with a number bid"):
        do(st, 1, {"type": "bid", "bid": "nil", "mo": "little mo"})
    do(st, 1, {"type": "bid", "bid": 4, "mo": "little mo"})
    assert not any("mo" in o for o in st.bid_options(2))
    with pytest.raises(IllegalAction, match="already called little mo"):
        do(st, 2, {"type": "bid", "bid": 4, "mo": "big mo"})
    with pytest.raises(IllegalAction, match="no Mo or Bemo"):
        do(started(STANDARD), 1, {"type": "bid", "bid": 4, "mo": "little mo"})


def test_B4_a_first_bid_leaves_the_minimum_within_the_partner_reach():
    """Found by the random option draw: with side_min above one seat's tricks, a first
    partner's bid of 1 left the other no bid at all (the game stalled)."""
    st = started(STANDARD.with_options(side_min=17))
    assert numbers(st, 1) == list(range(4, 14))  # 13 more at most from the partner
    bid(st, 1, 4)
    bid(st, 2, "nil")  # the other side: nil, and its partner may bid nil too
    assert numbers(st, 3) == [13]
    bid(st, 3, 13)
    assert {"bid": "nil"} in st.bid_options(0)


# -- B10 moon. pagat: "Moon or Boston - This is a bid to take all 13 tricks and is worth
# 200 points. The side loses 200 points if they fail to take all the tricks. If playing
# with 10-for-200 the Moon or Boston is worth 500 points. Some people play that a
# successful Moon bid automatically wins the game". "Blind moon - ... made before either
# partner has looked at their cards. It is worth 400 points if it succeeds, and the side
# loses 400 points if it fails."

MOON = STANDARD.with_options(moon=200)


def test_B10_moon_takes_every_trick_for_200_and_the_partner_does_not_bid():
    st = started(MOON, {1: top_trumps(MOON)})
    assert st.bid_options(1)[-1] == {"bid": "moon"}
    bid(st, 1, "moon")
    bid_round(st)
    assert st.bids == [1, "moon", 1, None] and st.phase == "play"  # seat 3 was skipped
    play_out(st)
    side = last_side(st, 1)
    assert side["moon"] == {"seat": 1, "bid": "moon", "made": True}
    assert (side["points"], side["bags"], side["set"]) == (200, 0, False)


def test_B10_moon_lost_costs_the_same_and_one_moon_a_hand():
    r = MOON.with_options(moon=500, ten_for=200)  # "with 10-for-200 ... worth 500"
    st = started(r, {0: top_trumps(r)[:1]})
    bid(st, 1, "moon")
    assert {"bid": "moon"} not in st.bid_options(2)
    bid_round(st)
    play_out(st)
    assert (last_side(st, 1)["points"], last_side(st, 1)["set"]) == (-500, True)


def test_B10_no_moon_beside_a_nil_and_none_where_not_played():
    st = started(MOON)
    bid(st, 1, "nil")
    bid(st, 2, 3)
    assert {"bid": "moon"} not in st.bid_options(3)
    with pytest.raises(IllegalAction, match="not allowed"):
        bid(st, 3, "moon")
    with pytest.raises(IllegalAction, match="not allowed"):
        bid(started(STANDARD), 1, "moon")


def test_B10_no_moon_against_a_double_nil_and_no_double_nil_against_a_moon():
    """The encyclopedia: "A team cannot bid to Shoot The Moon if the other team bids Double
    Nil, and vice versa." The second of the two is refused, with the reason, and is not
    among the legal bids (edition 2)."""
    st = started(MOON, {1: top_trumps(MOON)})
    bid(st, 1, "moon")  # seat 3, its partner, is skipped
    bid(st, 2, "nil")
    assert {"bid": "nil"} not in st.bid_options(0)
    assert {"type": "bid", "bid": "nil"} not in legal(st, 0)
    with pytest.raises(IllegalAction, match="cannot bid double nil against a moon"):
        bid(st, 0, "nil")
    assert st.bids[0] is None
    bid(st, 0, 1)
    st = started(MOON)
    bid(st, 1, "nil")
    bid(st, 2, 3)
    bid(st, 3, "nil")  # side 1: double nil
    assert {"bid": "moon"} not in st.bid_options(0)
    with pytest.raises(IllegalAction, match="cannot bid a moon against a double nil"):
        bid(st, 0, "moon")
    old = started(MOON.with_options(edition=1))  # games begun before: both were accepted
    for seat, value in ((1, "nil"), (2, 3), (3, "nil"), (0, "moon")):
        bid(old, seat, value)
    assert old.bids == ["moon", "nil", 3, "nil"]


def test_B10_a_moon_side_takes_the_last_trick_bonus():
    """S7 (the encyclopedia): "the winner of last trick wins 10 bonus points": the moon's
    side took it (edition 1 scored the moon and returned before any bonus)."""
    for edition, points in ((2, 210), (1, 200)):
        r = MOON.with_options(last_trick_bonus=10, edition=edition)
        st = started(r, {1: top_trumps(r)})
        bid(st, 1, "moon")
        bid_round(st)
        play_out(st)
        side = last_side(st, 1)
        assert side["moon"]["made"] and side["points"] == points
        assert side.get("bonus") == ({"last_trick": 10} if edition == 2 else None)


def test_B10_blind_moon_400_only_before_either_partner_looks():
    r = STANDARD.with_options(blind_moon=400, blind_nil=False, blind_nil_exchange=0)
    st = started(r, {1: top_trumps(r)})
    assert st.bid_options(1)[-1] == {"bid": "blind moon"}  # cards unseen
    bid(st, 1, "blind moon")
    assert st.blind[1] and st.looked[3]  # the skipped partner sees its cards
    bid_round(st)
    play_out(st)
    assert last_side(st, 1)["points"] == 400
    st = started(r)
    do(st, 1, {"type": "look"})
    bid(st, 1, 3)
    assert {"bid": "blind moon"} not in st.bid_options(3)  # partner 1 has looked


def test_B10_a_made_moon_wins_the_game():
    r = MOON.with_options(moon_wins=True)
    st = started(r, {1: top_trumps(r)}, scores=[400, -300])
    bid(st, 1, "moon")
    bid_round(st)
    play_out(st)
    assert st.phase == "over" and st.winner == 1
    with pytest.raises(RulesError, match="moon_wins needs moon"):
        STANDARD.with_options(moon_wins=True)


# -- B11 pagat's double nil: "The score if successful is 500 points (or for some people an
# automatic win). ... The penalty is variously set at 250, 500 or automatic loss. In
# addition, if both partners win a trick, their opponents get a bonus of 100 points. ...
# 'Blind Double Nil' ... If successful, the bidders win the whole game; if not their
# opponents win the game." B6, pagat's blind 6: "It scores 120 points if the side takes
# exactly 6 tricks. If they take some other number of tricks they lose 120."

PAGAT_DOUBLE_NIL = STANDARD.with_options(double_nil=(500, -250, -250), double_nil_bonus=100)


def scored(rules, bids, won, blind=(), scores=None):
    """The pad row and winner of a hand with these bids and tricks (the play itself is
    covered elsewhere: this is the scoring of its result)."""
    from pbem.engine.scoring import end_of_game, score_hand

    st = started(rules, scores=scores)
    st.bids, st.won = list(bids), list(won)
    st.blind = [s in blind for s in range(4)]
    row = score_hand(st)
    st.hand_no += 1
    return row, end_of_game(st, row)


def test_B11_pagat_double_nil_500_or_250_and_100_to_the_opponents_when_both_fail():
    row, _ = scored(PAGAT_DOUBLE_NIL, ["nil", 4, "nil", 5], [0, 7, 0, 6])
    assert row["sides"][0]["points"] == 500 and row["sides"][0]["double_nil"]["made"]
    row, _ = scored(PAGAT_DOUBLE_NIL, ["nil", 4, "nil", 5], [1, 6, 0, 6])
    assert [s["points"] for s in row["sides"]] == [-250 + 1, 90 + 3]  # one failed: no bonus
    row, _ = scored(PAGAT_DOUBLE_NIL, ["nil", 4, "nil", 5], [1, 6, 2, 4])
    assert row["sides"][0]["points"] == -250 + 3
    assert row["sides"][1]["bonus"] == {"double_nil_failed": 100}
    assert row["sides"][1]["points"] == 90 + 1 + 100


def test_B11_double_nil_wins_or_loses_the_game():
    r = PAGAT_DOUBLE_NIL.with_options(double_nil_ends=True)
    assert scored(r, ["nil", 4, "nil", 5], [0, 7, 0, 6], scores=[-300, 400])[1] == 0
    assert scored(r, ["nil", 4, "nil", 5], [1, 6, 0, 6], scores=[300, -400])[1] == 1


def test_B11_blind_double_nil_wins_or_loses_the_game_a_plain_one_scores():
    r = PAGAT_DOUBLE_NIL.with_options(blind_double_nil_ends=True)
    blind = ("blind nil", 4, "blind nil", 5)
    assert scored(r, blind, [0, 7, 0, 6], blind=(0, 2))[1] == 0
    assert scored(r, blind, [0, 7, 1, 5], blind=(0, 2))[1] == 1
    row, winner = scored(r, ["nil", 4, "nil", 5], [0, 7, 0, 6], scores=[-300, 0])
    assert winner is None and row["sides"][0]["points"] == 500
    with pytest.raises(RulesError, match="needs double nil scoring"):
        STANDARD.with_options(double_nil_ends=True)


@pytest.mark.parametrize("won, points", [((4, 2, 3, 4), 140), ((4, 2, 4, 3), -140)])
def test_B6_blind_bid_that_needs_exactly_its_tricks(won, points):
    r = preset("barmore").with_options(blind_exact=True)
    row, _ = scored(r, [7, 4, None, None], won, blind=(0,))
    assert row["sides"][0]["points"] == points
    row, _ = scored(preset("barmore"), [7, 4, None, None], (4, 2, 4, 3), blind=(0,))
    assert row["sides"][0]["points"] == 141  # at least 7: made, one bag


@pytest.mark.parametrize("way, to", [("left", 1), ("right", 3)])
def test_P4_passing_to_an_opponent_left_or_right(way, to):
    """docs/rules.md P4: "passing to an opponent (left or right), hearts-style"; seat 0's three
    cards reach seat 1 (left) or seat 3 (right), never its partner."""
    st = started(STANDARD.with_options(pass_to_partner=3, pass_to=way))
    gift = st.hands[0][:3]
    for seat in range(4):
        do(st, seat, {"type": "pass", "cards": gift if seat == 0 else st.hands[seat][:3]})
    assert set(gift) <= set(st.passed_to[to]) and set(gift) <= set(st.hands[to])
    assert not set(gift) & set(st.hands[2]) and st.phase == "bid"


def test_P4_cutthroat_passes_to_the_left():
    r = preset("cutthroat-4").with_options(pass_to_partner=2, pass_to="left")
    st = started(r)
    gifts = {s: st.hands[s][:2] for s in range(4)}
    for seat in range(4):
        do(st, seat, {"type": "pass", "cards": gifts[seat]})
    assert all(st.passed_to[(s + 1) % 4] == gifts[s] for s in range(4))
    with pytest.raises(RulesError, match="pass_to_partner"):
        preset("cutthroat-4").with_options(pass_to_partner=2)


def test_B7_a_second_round_keeps_or_raises_each_bid_by_one():
    """The encyclopedia: "Another game variation allows each player to optionally increase
    their bid by one point after all players have bid but before game play starts. A
    reduction in bid, once bids are made, is never allowed." """
    st = started(STANDARD.with_options(raise_round=True))
    for seat, value in ((1, 3), (2, "nil"), (3, 13), (0, 4)):
        bid(st, seat, value)
    assert st.phase == "bid" and st.to_act() == [1]  # nil aside
    assert view(st, 1)["raising"] is True
    assert st.bid_options(1) == [{"bid": 3}, {"bid": 4}]
    with pytest.raises(IllegalAction):
        bid(st, 1, 2)  # never lower
    with pytest.raises(IllegalAction, match="keeps a bid or raises it"):
        do(st, 1, {"type": "bid", "bid": 3, "mo": "little mo"})
    bid(st, 1, 4)
    assert st.to_act() == [3] and st.bid_options(3) == [{"bid": 13}]
    bid(st, 3, 13)
    bid(st, 0, 4)
    assert st.bids == [4, 4, "nil", 13] and st.phase == "play"
    st = started(STANDARD)
    bid_round(st)
    assert st.phase == "play"  # no second round by default


# -- B14 no-trump bids (pagat): "promises not to win any tricks with spades, except when
# spades are led. You are only allowed to bid 'No Trump' if you hold at least one spade
# ... double that of a normal bid ... if won; the penalty ... double".

NT = STANDARD.with_options(no_trump=True)


@pytest.mark.parametrize("edition, points", [(2, 2 * 30 + 10 + 4), (1, 2 * 40 + 4)])
def test_B14_no_trump_made_scores_double_and_is_public(edition, points):
    """Edition 2 doubles the no-trump bidder's own bid (pagat: "The value of the bid is
    double that of a normal bid for that number of tricks"), not the partner's plain 1;
    edition 1 (old games) doubled the side's whole contract."""
    rules = NT.with_options(edition=edition)
    hearts = ["AH", "KH", "QH", "JH", "TH", "9H", "8H"]
    st = started(rules, {1: ["2S"] + hearts + ["AC", "KC", "QC", "JC", "TC"]})
    assert {"bid": 3, "no_trump": True} in st.bid_options(1)
    bid_round(st, {1: {"bid": 3, "no_trump": True}})
    assert view(st, 0)["no_trump"] == [1] and st.bids[1] == 3
    from pbem.engine.scoring import score_hand

    assert st.bids[3] == 1  # the partner's plain bid
    st.won = [2, 6, 3, 2]  # the side's 3 + 1 made with 8, no trick won by a ruff
    side = score_hand(st)["sides"][1]
    assert (side["no_trump"], side["points"], side["bags"]) == (True, points, 4)


def test_B14_the_partners_plain_bid_is_not_doubled_when_set():
    """pagat: "the penalty is if you lose is double the penalty for a normal bid": the
    no-trump bidder's 3 costs 60, the partner's plain 1 costs 10."""
    from pbem.engine.scoring import score_hand

    st = started(NT, {1: ["2S", "AH", "KH", "QH", "JH", "TH", "9H", "8H", "AC", "KC", "QC",
                          "JC", "TC"]})
    bid_round(st, {1: {"bid": 3, "no_trump": True}, 3: 1})
    st.won = [5, 2, 5, 1]
    side = score_hand(st)["sides"][1]
    assert (side["set"], side["points"]) == (True, -(2 * 30 + 10))


def test_B14_a_trick_won_with_a_spade_on_another_lead_loses_the_bid():
    from pbem.engine.scoring import score_hand

    st = started(NT, {1: top_trumps(NT)})  # seat 1: every spade
    bid_round(st, {1: {"bid": 4, "no_trump": True}})
    while st.phase == "play" and not st.tricks:  # trick 1: seat 1 leads a spade (allowed:
        do(st, st.to_act()[0], st.playable(st.to_act()[0])[0])  # it holds only spades)
    assert last_trick_ok(st)
    st.tricks.append(([(2, "2H"), (3, "3H"), (0, "4H"), (1, "2S")], 1))  # a ruff: broken
    row = score_hand(st)
    assert row["sides"][1]["no_trump"] is False and row["sides"][1]["set"]
    # the no-trump 4 costs double, the partner's plain rest of the side's bid single
    assert row["sides"][1]["points"] == -(2 * 10 * 4 + 10 * (row["sides"][1]["bid"] - 4))


def last_trick_ok(st):
    return st.tricks[0][1] == 1  # a spade lead: winning it with a spade keeps the promise


def test_B14_no_trump_needs_a_spade_and_the_option():
    st = started(NT, {1: ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "AC", "KC", "QC", "JC",
                          "TC", "9C"]})
    assert not any(o.get("no_trump") for o in st.bid_options(1))
    with pytest.raises(IllegalAction, match="needs a spade"):
        do(st, 1, {"type": "bid", "bid": 3, "no_trump": True})
    with pytest.raises(IllegalAction, match="no no-trump bids"):
        do(started(STANDARD), 1, {"type": "bid", "bid": 3, "no_trump": True})
