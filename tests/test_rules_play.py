"""Play rules (docs/rules.md Y1-Y7, T2a, T6a), through the engine's deal, bid and play."""

import pytest
from helpers import deal, do, fixed_hands

from pbem.engine import IllegalAction, ReplayError, legal, new_game, preset, replay

RANKS = "AKQJT98765432"


def start(rules, hands=None, dealer=3, bid=3):
    """A game with these hands dealt and every seat bid (`bid` each, in the engine's order)."""
    st = new_game(rules, dealer)
    deal(st, hands if hands is not None else fixed_hands(rules))
    while st.phase == "bid":
        do(st, st.to_act()[0], {"type": "bid", "bid": bid})
    return st


def cards(st, seat):
    return [a["card"] for a in legal(st, seat)]


def suit_hands(spec):
    """Standard hands from "seat: suit ranks" pairs, e.g. {0: {"S": "AK", "H": "..."}}."""
    return {seat: [r + s for s, ranks in suits.items() for r in ranks]
            for seat, suits in spec.items()}


STD = preset("standard")


# -- Y1: who leads the first trick --------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_Y1_dealers_left_leads(dealer):
    st = start(STD, dealer=dealer)
    leader = (dealer + 1) % 4
    assert st.phase == "play" and st.to_act() == [leader]
    assert cards(st, leader)
    assert all(cards(st, s) == [] for s in range(4) if s != leader)


def test_Y1a_dealer_leads():
    st = start(STD.with_options(first_lead="dealer"), dealer=2)
    assert st.to_act() == [2]
    assert cards(st, 3) == []


def test_Y1a_barmore_dealer_leads():
    r = preset("barmore")
    st = new_game(r, 1)
    deal(st, fixed_hands(r))
    while st.phase == "bid":
        do(st, st.to_act()[0], {"type": "bid", "bid": 6})
    assert st.to_act() == [1]


def test_Y1b_holder_of_the_lowest_club_leads_it():
    r = preset("cutthroat-3")
    hands = fixed_hands(r, {2: ["2C", "AS"]})
    st = start(r, hands, dealer=0, bid=4)
    assert st.to_act() == [2]
    assert cards(st, 2) == ["2C"]
    with pytest.raises(IllegalAction):
        do(st, 2, "AS")
    do(st, 2, "2C")
    assert st.trick == [(2, "2C")]


def test_Y1b_with_the_two_of_clubs_out_the_three_leads():
    r = preset("cutthroat-3")
    hands = fixed_hands(r, {1: ["3C"]})
    st = new_game(r, 0)
    deal(st, hands, out=["2C"])
    assert st.out == ["2C"]
    while st.phase == "bid":
        do(st, st.to_act()[0], {"type": "bid", "bid": 4})
    assert st.to_act() == [1]
    assert cards(st, 1) == ["3C"]


# -- Y2: follow suit ----------------------------------------------------------------------


def test_Y2_follow_suit_if_able_otherwise_any_card():
    spec = suit_hands({
        0: {"H": "AKQJ", "C": "AKQJT98765"[:9]},
        1: {"H": "T98", "S": "AKQJT98765"},
        2: {"S": "432", "D": "AKQJT98765"},
        3: {"H": "765432", "D": "432", "C": "5432"},
    })
    st = start(STD, [spec[s] for s in range(4)])
    do(st, 0, "AH")
    assert sorted(cards(st, 1)) == ["8H", "9H", "TH"]
    do(st, 1, "8H")
    # seat 2 holds no heart: any card, a spade too
    assert sorted(cards(st, 2)) == sorted(spec[2])
    do(st, 2, "5D")
    assert set(cards(st, 3)) == {r + "H" for r in "765432"}


# -- Y3: spades may not be led until broken -------------------------------------------------


def test_Y3_spades_not_led_until_broken():
    st = start(STD)  # fixed hands: every seat holds spades and other suits
    lead = cards(st, 0)
    assert lead and not any(c[1] == "S" for c in lead)
    spade = next(c for c in st.hands[0] if c[1] == "S")
    before = (st.seq, list(st.hands[0]))
    with pytest.raises(IllegalAction, match="spades may not be led"):
        do(st, 0, spade)
    assert (st.seq, st.hands[0]) == before


def test_Y3_spades_may_be_led_once_broken():
    spec = suit_hands({
        0: {"C": "A", "S": "AKQJ", "H": "AKQJT987"},
        1: {"S": "T98", "H": "65432", "D": "AKQJT"},
        2: {"C": "KQJT98765432", "S": "7"},
        3: {"S": "65432", "D": "98765432"},
    })
    st = start(STD, [spec[s] for s in range(4)])
    do(st, 0, "AC")
    do(st, 1, "TS")  # seat 1 has no club: trumps, breaking spades
    do(st, 2, "KC")
    do(st, 3, "2S")
    assert st.broken and st.turn == 1
    assert "9S" in cards(st, 1)
    do(st, 1, "9S")


def test_Y3a_spades_may_be_led_any_time():
    st = start(STD.with_options(spade_lead="any"))
    assert any(c[1] == "S" for c in cards(st, 0))
    do(st, 0, next(c for c in st.hands[0] if c[1] == "S"))


def _play_tricks_without_spades(st, count):
    """Play `count` tricks, each seat playing its first legal card that is not a spade."""
    suit = st.table.suit
    for _ in range(count * st.n):
        seat = st.turn
        options = cards(st, seat)
        do(st, seat, next((c for c in options if suit[c] != "S"), options[0]))


def test_Y3b_nyc_no_spade_lead_in_the_first_three_tricks():
    r = preset("nyc")
    st = new_game(r, 3)
    deal(st, fixed_hands(r))
    assert st.phase == "play"  # B13: the first hand is not bid
    suit = st.table.suit
    for _ in range(3):
        leader = st.turn
        assert any(suit[c] == "S" for c in st.hands[leader])
        assert not any(suit[c] == "S" for c in cards(st, leader))
        _play_tricks_without_spades(st, 1)
    assert not st.broken and len(st.tricks) == 3
    assert any(suit[c] == "S" for c in cards(st, st.turn))


def test_Y3b_nyc_the_2D_is_a_spade_for_leading():
    r = preset("nyc")
    st = new_game(r, 3)
    deal(st, fixed_hands(r, {0: ["2D", "AD", "KH"]}))
    assert "AD" in cards(st, 0) and "2D" not in cards(st, 0)


def test_Y3c_no_spade_on_the_first_trick_unless_nothing_else():
    spec = suit_hands({
        0: {"C": "AKQ", "H": "AKQJT98765"},
        1: {"S": "AKQJT", "D": "AKQJT987"},
        2: {"C": "JT98765432", "H": "432"},
        3: {"S": "98765432", "D": "65432"},
    })
    r = STD.with_options(first_trick_spades=False)
    st = start(r, [spec[s] for s in range(4)])
    do(st, 0, "AC")
    assert not any(c[1] == "S" for c in cards(st, 1))
    with pytest.raises(IllegalAction):
        do(st, 1, "AS")
    do(st, 1, "7D")
    do(st, 2, "2C")
    do(st, 3, "2D")
    # second trick: a void seat may trump now
    do(st, 0, "KC")
    assert "AS" in cards(st, 1)
    do(st, 1, "AS")
    assert st.broken


def test_Y3c_a_hand_of_only_spades_may_play_one_on_the_first_trick():
    spec = suit_hands({0: {"C": RANKS}, 1: {"S": RANKS}, 2: {"H": RANKS}, 3: {"D": RANKS}})
    st = start(STD.with_options(first_trick_spades=False), [spec[s] for s in range(4)])
    do(st, 0, "2C")
    assert sorted(cards(st, 1)) == sorted(spec[1])


# -- Y4: who wins a trick -------------------------------------------------------------------


def test_Y4_highest_of_the_suit_led_or_the_highest_trump_wins():
    hands = [["2H"] + [r + "C" for r in RANKS[:12]],
             [r + "H" for r in RANKS[:12]] + ["2C"],
             [r + "D" for r in RANKS[:12]] + ["2S"],
             [r + "S" for r in RANKS[:12]] + ["2D"]]
    st = start(STD, hands)
    do(st, 0, "2H")
    do(st, 1, "3H")
    do(st, 2, "AD")  # void: an off-suit ace
    do(st, 3, "2D")  # void: no trump played
    assert st.tricks[-1][1] == 1  # the 3H, highest of the suit led
    do(st, 1, "4H")
    do(st, 2, "2S")  # void: trumps
    do(st, 3, "AS")  # void: trumps higher
    do(st, 0, "AC")
    assert st.tricks[-1][1] == 3 and st.won == [0, 1, 0, 1]


@pytest.mark.parametrize("name, order", [
    ("tournament-300", ["BJ", "LJ", "2S", "AS", "KS"]),  # D3
    ("nyc", ["BJ", "LJ", "2D", "2S", "AS"]),  # D4: the 2D is a trump
])
@pytest.mark.parametrize("high_seat", [1, 3])
def test_Y4_top_trumps_win_in_order(name, order, high_seat):
    r = preset(name)
    hearts = [c for c in r.deck() if c[1] == "H"]
    low_seat = 4 - high_seat
    for high, low in zip(order, order[1:], strict=False):
        st = new_game(r, 3)
        deal(st, fixed_hands(r, {0: hearts, high_seat: [high], low_seat: [low]}))
        while st.phase == "bid":
            do(st, st.to_act()[0], {"type": "bid", "bid": 4})
        do(st, 0, "AH")
        for seat in (1, 2, 3):
            card = {high_seat: high, low_seat: low}.get(seat)
            do(st, seat, card or cards(st, seat)[-1])
        assert st.tricks[-1][1] == high_seat, (high, low)


# -- Y7: renege cannot happen ---------------------------------------------------------------


def test_Y7_renege_refused_and_nothing_changes():
    st = start(STD)
    do(st, 0, cards(st, 0)[0])
    led = st.trick[0][1][1]
    wrong = next(c for c in st.hands[1] if c[1] != led)
    assert any(c[1] == led for c in st.hands[1])
    seq, hand, trick = st.seq, list(st.hands[1]), list(st.trick)
    with pytest.raises(IllegalAction, match="follow suit"):
        do(st, 1, wrong)
    assert (st.seq, st.hands[1], st.trick) == (seq, hand, trick)


def test_Y7_a_renege_in_a_log_is_an_error_naming_its_seq():
    st = start(STD)
    events = [{"seq": 1, "type": "deal", "dealer": 3, "hands": st.dealt}]
    events += [{"seq": i + 2, "type": "bid", "seat": s, "bid": 3} for i, s in enumerate(range(4))]
    lead = cards(st, 0)[0]
    events.append({"seq": 6, "type": "play", "seat": 0, "card": lead})
    wrong = next(c for c in st.hands[1] if c[1] != lead[1])
    events.append({"seq": 7, "type": "play", "seat": 1, "card": wrong})
    with pytest.raises(ReplayError) as err:
        replay(STD, events)
    assert err.value.seq == 7


def test_Y7_playing_out_of_turn_or_a_card_not_held_is_refused():
    st = start(STD)
    with pytest.raises(IllegalAction, match="not your turn"):
        do(st, 1, st.hands[1][0])
    with pytest.raises(IllegalAction, match="not in your hand"):
        do(st, 0, st.hands[1][0])
    assert st.seq == 5


# -- T2a: must beat the highest card so far ---------------------------------------------------


def test_T2a_must_beat_the_highest_card_if_able():
    r = preset("cutthroat-4")
    spec = suit_hands({
        0: {"H": "Q2", "C": "AKQJT98765", "D": "4"},
        1: {"H": "AK3", "D": "AKQJT98765"},
        2: {"H": "J4", "S": "AKQJT98765", "C": "4"},
        3: {"H": "T98765", "S": "432", "C": "32", "D": "32"},
    })
    st = start(r, [spec[s] for s in range(4)])
    do(st, 0, "QH")
    assert sorted(cards(st, 1)) == ["AH", "KH"]  # the 3H would not beat the queen
    do(st, 1, "KH")
    assert cards(st, 2) == ["JH", "4H"]  # cannot beat: any heart
    do(st, 2, "4H")
    do(st, 3, "5H")
    # a void seat must trump if it can
    do(st, 1, "AH")
    do(st, 2, "JH")
    do(st, 3, "6H")
    do(st, 0, "2H")
    do(st, 1, "3H")
    assert sorted(cards(st, 2)) == sorted(r + "S" for r in "AKQJT98765")


def test_T2a_off_without_must_beat():
    spec = {0: ["QH"] + [r + "C" for r in RANKS[:12]], 1: ["AH", "3H"]}
    st = start(STD, fixed_hands(STD, spec))
    do(st, 0, "QH")
    follow = cards(st, 1)
    assert "AH" in follow and "3H" in follow
    assert all(c[1] == "H" for c in follow)


# -- T6a: identical cards in one trick ------------------------------------------------------


@pytest.mark.parametrize("identical, winner", [("second", 1), ("first", 0)])
def test_T6a_identical_cards(identical, winner):
    r = preset("six-handed").with_options(identical=identical)
    spec = {0: ["AH"], 1: ["AH"], 2: ["KH"], 3: ["KH"], 4: ["QH"], 5: ["QH"]}
    st = start(r, fixed_hands(r, spec), dealer=5)
    for seat, card in enumerate(["AH", "AH", "KH", "KH", "QH", "QH"]):
        do(st, seat, card)
    assert st.tricks[-1][1] == winner
    assert st.won[winner] == 1


def test_Y5_rake_em_and_shake_em_big_joker_led_takes_the_highest_spades():
    """pagat: "'Rake 'em and Shake 'em' If using a 54 card deck (with two jokers), some
    play that if the big joker is led (played as the first card in a trick), then all the
    other players must play their highest spade"."""
    r = preset("tournament-300").with_options(rake=True, spade_lead="any")
    hearts = ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4H", "3H"]
    st = start(r, fixed_hands(r, {1: ["BJ"] + hearts, 2: ["LJ", "2S", "9S", "3S"]}), 0, 4)
    do(st, 1, "BJ")
    assert cards(st, 2) == ["LJ"]
    with pytest.raises(IllegalAction, match="highest spade"):
        do(st, 2, "9S")
    do(st, 2, "LJ")
    spades = [c for c in st.hands[3] if st.table.suit[c] == "S"]
    assert spades and cards(st, 3) == [max(spades, key=st.table.power.get)]
    plain = start(r.with_options(rake=False), fixed_hands(r, {1: ["BJ"] + hearts}), 0, 4)
    do(plain, 1, "BJ")
    assert len(cards(plain, 2)) > 1  # without Y5: any spade follows
