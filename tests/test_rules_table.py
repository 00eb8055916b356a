"""Catalogue rules T (table), D (deck and trumps) and L (deal), each on a crafted deal."""

import random
from collections import Counter

import pytest

from pbem.engine import (
    IllegalAction,
    RulesError,
    advance,
    legal,
    make_deal,
    new_game,
    preset,
    replay,
    view,
)
from pbem.engine.tricks import table_for
from tests.helpers import bid_round, deal, deal_event, do, fixed_hands, play_out, top_trumps

STANDARD = preset("standard")
SUITS13 = {s: [r + s for r in "AKQJT98765432"] for s in "SHDC"}


def ready_to_play(rules, hands, dealer=0):
    st = new_game(rules, dealer)
    deal(st, hands)
    bid_round(st)
    assert st.phase == "play"
    return st


def trick_winner(st):
    return st.tricks[-1][1]


# -- T: table and players ------------------------------------------------------------


def test_T1_partners_opposite_clockwise():
    st = new_game(STANDARD, first_dealer=1)
    assert st.sides == ((0, 2), (1, 3))
    assert st.partner(0) == 2 and st.partner(3) == 1
    deal(st)
    order = []
    while st.phase == "bid":
        order.append(st.to_act()[0])
        do(st, order[-1], {"type": "bid", "bid": 3})
    assert order == [2, 3, 0, 1]
    played = []
    for _ in range(4):
        played.append(st.turn)
        do(st, st.turn, legal(st, st.turn)[0]["card"])
    assert played == [2, 3, 0, 1]


def test_T1_side_scores_both_partners_tricks():
    hands = [SUITS13["S"], SUITS13["H"], SUITS13["D"], SUITS13["C"]]
    st = ready_to_play(STANDARD, hands)
    play_out(st)
    row = st.history[-1]["sides"]
    assert row[0]["tricks"] == 13 and row[1]["tricks"] == 0


def test_T2_cutthroat_everyone_for_themselves():
    r = preset("cutthroat-4")
    st = new_game(r, 0)
    assert st.sides == ((0,), (1,), (2,), (3,))
    assert all(st.partner(s) is None for s in range(4))
    deal(st, fixed_hands(r, {2: SUITS13["S"]}))
    bid_round(st)
    play_out(st)
    scores = [side["tricks"] for side in st.history[-1]["sides"]]
    assert scores == [0, 0, 13, 0]


def test_T2a_must_beat_the_highest_card_so_far():
    hands = [
        ["AH", "KH", "QH", "JH", "TH", "8H", "7H", "6H", "4H", "2H", "4D", "3D", "2D"],
        ["5H"] + SUITS13["S"][:12],
        ["3H", "9H"] + SUITS13["C"][:11],
        ["2S", "3C", "2C"] + SUITS13["D"][:10],  # void in hearts
    ]
    for rules, seat2, seat3 in (
        (preset("cutthroat-4"), {"9H"}, {"2S"}),
        (STANDARD.with_options(partnerships=False, blind_nil_exchange=0),
         {"3H", "9H"}, set(hands[3])),
    ):
        st = ready_to_play(rules, hands)
        do(st, 1, "5H")
        assert {a["card"] for a in legal(st, 2)} == seat2
        do(st, 2, "9H")
        assert {a["card"] for a in legal(st, 3)} == seat3


def test_T2a_cannot_beat_plays_any_card_of_the_suit():
    r = preset("cutthroat-4")
    hands = [
        ["2H"] + SUITS13["D"][:12],
        ["AH"] + SUITS13["S"][:12],
        ["3H", "4H"] + SUITS13["C"][:11],
        ["2S", "3C", "2C", "2D"] + SUITS13["H"][1:10],
    ]
    st = ready_to_play(r, hands)
    do(st, 1, "AH")
    assert {a["card"] for a in legal(st, 2)} == {"3H", "4H"}


def test_T3_three_players_17_each_one_out():
    r = preset("cutthroat-3")
    st = new_game(r, 0)
    ev = make_deal(st, random.Random(3))
    assert [len(h) for h in ev["hands"]] == [17, 17, 17] and len(ev["out"]) == 1
    assert Counter(sum(ev["hands"], []) + ev["out"]) == Counter(r.deck())
    do_deal = replay(r, [ev])
    assert ev["out"][0] not in sum(do_deal.hands, [])
    bid_round(do_deal)
    play_out(do_deal)
    assert sum(side["tricks"] for side in do_deal.history[-1]["sides"]) == 17


def test_T3a_three_players_54_cards_18_each():
    r = preset("cutthroat-3").with_options(jokers=True, top_trumps=["BJ", "LJ"])
    assert len(r.deck()) == 54 and r.hand_size == 18
    ev = make_deal(new_game(r, 0), random.Random(1))
    assert [len(h) for h in ev["hands"]] == [18, 18, 18] and not ev.get("out")


def test_T5_two_players_draw_keep_first_or_second():
    r = preset("two-handed")
    st = new_game(r, 0)
    stock = r.deck()
    deal(st, stock=stock)
    assert st.phase == "draw" and st.to_act() == [1]
    do(st, 1, {"type": "draw", "keep": True})
    do(st, 0, {"type": "draw", "keep": False})
    assert st.hands == [[stock[3]], [stock[0]]]
    assert st.discards == [[stock[2]], [stock[1]]]
    while st.phase == "draw":
        do(st, st.turn, {"type": "draw", "keep": True})
    assert [len(h) for h in st.hands] == [13, 13] and st.phase == "bid"


def test_T6_six_players_three_sides_double_deck():
    r = preset("six-handed")
    assert len(r.deck()) == 102 and r.hand_size == 17
    assert Counter(r.deck())["AS"] == 2 and "2D" not in r.deck()
    st = new_game(r, 0)
    assert st.sides == ((0, 3), (1, 4), (2, 5))
    ev = make_deal(st, random.Random(6))
    assert all(len(h) == 17 for h in ev["hands"])


@pytest.mark.parametrize("identical, winner", [("second", 2), ("first", 1)])
def test_T6a_identical_cards_second_or_first_wins(identical, winner):
    r = preset("six-handed").with_options(identical=identical)
    low = {3: "2H", 4: "3H", 5: "4H", 0: "5H"}
    hands = fixed_hands(r, {1: ["AH"], 2: ["AH"], **{s: [c] for s, c in low.items()}})
    st = ready_to_play(r, hands)
    do(st, 1, "AH")
    do(st, 2, "AH")
    for seat in (3, 4, 5, 0):
        do(st, seat, low[seat])
    assert trick_winner(st) == winner


def test_T6a_identical_cards_cancel():
    """docs/rules.md T6a "both cancel": two identical aces win nothing; the 5H, the best other
    heart, takes the trick. When every card has its twin, the leader takes it."""
    r = preset("six-handed").with_options(identical="cancel")
    low = {3: "2H", 4: "3H", 5: "4H", 0: "5H"}
    hands = fixed_hands(r, {1: ["AH"], 2: ["AH"], **{s: [c] for s, c in low.items()}})
    st = ready_to_play(r, hands)
    do(st, 1, "AH")
    do(st, 2, "AH")
    for seat in (3, 4, 5, 0):
        do(st, seat, low[seat])
    assert trick_winner(st) == 0
    table = st.table
    assert table.winning([(1, "KH"), (2, "KH"), (3, "2S"), (4, "2S"), (5, "3C"), (0, "3C")]) == 0
    assert table.winning([(1, "KH"), (2, "AS"), (3, "AS"), (4, "2S")]) == 3  # a 2S trumps


CANCEL = preset("six-handed").with_options(identical="cancel")
ALL_PAIRED = {1: ["AH"], 2: ["AH"], 3: ["KH"], 4: ["KH"], 5: ["QH"], 0: ["QH"]}


def play_trick(st, cards):
    for seat, card in cards:
        do(st, seat, card)


@pytest.mark.parametrize("edition", [2, 1])
def test_T6a_a_trick_whose_cards_all_cancel_is_dead(edition):
    """Seed 004: "If identical cards are played in a round, they cancel and cannot take the
    trick. Tricks won by no one are "dead" and discarded." Edition 2: no seat takes it and
    its leader leads again; edition 1 (games begun before) gave it to the leader."""
    st = ready_to_play(CANCEL.with_options(edition=edition), fixed_hands(CANCEL, ALL_PAIRED))
    play_trick(st, [(s, ALL_PAIRED[s][0]) for s in (1, 2, 3, 4, 5, 0)])
    assert st.to_act() == [1] and len(st.tricks) == 1
    if edition == 1:
        assert trick_winner(st) == 1 and st.won == [0, 1, 0, 0, 0, 0]
        return
    assert trick_winner(st) is None and st.won == [0] * 6
    assert view(st, 0)["tricks"][0]["winner"] is None
    play_out(st)
    row = st.history[-1]
    assert row["dead"] >= 1 and sum(s["tricks"] for s in row["sides"]) == 17 - row["dead"]


def test_T6a_a_led_card_that_cancels_with_no_other_of_its_suit_or_a_spade_is_dead():
    """The led 5H meets its twin, the others have no heart and play clubs (no trump): no
    card is left that could take the trick, so it is dead (edition 2), and the card that
    ended it can be taken back, giving no trick back to anyone."""
    packs = [[r + "H" for r in "AKQJT98765432"]] * 2
    hands = fixed_hands(CANCEL, {1: packs[0], 2: packs[1], 3: ["2C"], 4: ["3C"], 5: ["4C"],
                                 0: ["6C"]})
    st = ready_to_play(CANCEL, hands)
    play_trick(st, [(1, "5H"), (2, "5H"), (3, "2C"), (4, "3C"), (5, "4C")])
    do(st, 0, "6C")
    assert trick_winner(st) is None and st.won == [0] * 6 and st.to_act() == [1]
    do(st, 0, {"type": "undo"})
    assert not st.tricks and st.trick[-1] == (5, "4C") and st.won == [0] * 6
    do(st, 0, "6C")
    assert trick_winner(st) is None
    # one uncancelled card of the suit led still takes it
    assert st.table.taker([(1, "5H"), (2, "5H"), (3, "2H"), (4, "3C")]) == 2


@pytest.mark.parametrize("edition, holds", [(2, False), (1, True)])
def test_T6a_a_claim_must_win_a_trick_that_could_go_dead(edition, holds):
    """A claim needs every remaining trick. On the last trick every card has its twin: the
    leader's claim held when such a trick went to the leader (edition 1); from edition 2
    the trick is dead, won by no one, and the claim is refused."""
    from pbem.engine.claims import claim_holds

    r = CANCEL.with_options(edition=edition)
    st = ready_to_play(r, fixed_hands(r, ALL_PAIRED))
    assert st.to_act() == [1]
    st.hands = [list(ALL_PAIRED[s]) for s in range(6)]  # the last trick, 16 played before
    st.tricks = [([], 1)] * 16
    assert claim_holds(st, 1) is holds


def test_T6a_an_old_log_replays_as_it_was_played():
    """The log format is a contract: a log whose rules name no edition was written before
    editions, and replays on edition 1, where the all-cancelled trick was the leader's."""
    import json

    from pbem.gamelog import export, read_log, replay_log

    old = CANCEL.with_options(edition=1)
    st = new_game(old, 0)
    events = [deal(st, fixed_hands(old, ALL_PAIRED))] + bid_round(st)
    header, *lines = export(old, events, [f"p{i}" for i in range(6)]).splitlines()
    head = json.loads(header)
    del head["rules"]["edition"]  # as every log written before editions
    lines = [json.dumps(head)] + lines
    for s in (1, 2, 3, 4, 5, 0):
        card = ALL_PAIRED[s][0]
        lines.append(json.dumps({"seq": len(lines), "type": "play", "seat": s, "card": card}))
    text = "\n".join(lines) + "\n"
    assert read_log(text)[1].edition == 1
    again = replay_log(text)
    assert again.tricks[0][1] == 1 and again.won[1] == 1
    head["rules"]["edition"] = 2
    lines[0] = json.dumps(head)
    assert replay_log("\n".join(lines) + "\n").tricks[0][1] is None


def test_T7_five_players_2C_2D_removed_ten_each_without_partners():
    """docs/rules.md T7: "five players, 2C and 2D removed, 10 each"; five seats cannot sit in
    partnerships of two, so each plays alone (as in cutthroat)."""
    r = preset("cutthroat-4").with_options(players=5, remove=["2C", "2D"])
    assert len(r.deck()) == 50 and r.hand_size == 10 and len(r.sides) == 5
    st = new_game(r, 4)
    advance(st, make_deal(st, random.Random(5)))
    assert [len(h) for h in st.hands] == [10] * 5 and st.to_act() == [0]
    play_out(st, seed=2)
    assert sum(s["tricks"] for s in st.history[-1]["sides"]) == 10
    with pytest.raises(RulesError, match="without partners"):
        STANDARD.with_options(players=5, remove=["2C", "2D"])
    with pytest.raises(RulesError, match="do not deal evenly"):
        preset("cutthroat-4").with_options(players=5)
    with pytest.raises(RulesError, match="players must be"):
        STANDARD.with_options(players=7)


# -- D: deck and trump order ---------------------------------------------------------


def test_D1_52_cards_ace_high_spades_trump():
    deck = STANDARD.deck()
    assert len(deck) == 52 == len(set(deck))
    t = table_for(STANDARD)
    assert t.winning([(0, "KH"), (1, "AH"), (2, "2H")]) == 1
    assert t.winning([(0, "AH"), (1, "2S"), (2, "KH")]) == 1
    assert t.winning([(0, "AH"), (1, "AD")]) == 0  # off-suit never wins


def test_D1_spade_trumps_a_led_ace_in_play():
    hands = [SUITS13["H"], SUITS13["S"], SUITS13["D"], SUITS13["C"]]
    st = ready_to_play(STANDARD, hands, dealer=3)
    do(st, 0, "AH")
    do(st, 1, "2S")
    do(st, 2, "AD")
    do(st, 3, "AC")
    assert trick_winner(st) == 1 and st.broken


def test_D2_jokers_replace_two_low_cards():
    r = preset("tournament-300")
    deck = r.deck()
    assert len(deck) == 52 and {"BJ", "LJ"} <= set(deck)
    assert "2H" not in deck and "2D" not in deck
    assert top_trumps(r, 2) == ["BJ", "LJ"]


D3_ORDER = ["BJ", "LJ", "2S", "AS", "KS"]


def test_D3_joker_joker_deuce_ace_in_a_trick():
    r = preset("tournament-300").with_options(spade_lead="any")
    hands = fixed_hands(r, {1: ["AS"], 2: ["2S"], 3: ["LJ"], 0: ["BJ"]})
    st = ready_to_play(r, hands)
    for seat in (1, 2, 3):
        do(st, seat, hands[seat][0])
        assert st.tricks == [] and st.trick[-1][1] == hands[seat][0]
    do(st, 0, "BJ")
    assert trick_winner(st) == 0
    t = table_for(r)
    for hi, lo in zip(D3_ORDER, D3_ORDER[1:], strict=False):
        assert t.winning([(0, lo), (1, hi)]) == 1
        assert t.winning([(0, hi), (1, lo)]) == 0


def test_D4_deuce_of_diamonds_is_a_spade():
    r = preset("nyc")
    t = table_for(r)
    assert t.suit["2D"] == "S"
    for hi, lo in zip(["BJ", "LJ", "2D", "2S", "AS"], ["LJ", "2D", "2S", "AS", "KS"],
                      strict=True):
        assert t.winning([(0, lo), (1, hi)]) == 1
    # first hand of nyc is unbid: play starts at once, seat 1 leads
    hands = fixed_hands(r, {1: ["AD"], 2: ["2D"] + SUITS13["C"][:12], 3: ["KD"]})
    st = new_game(r, 0)
    deal(st, hands)
    do(st, 1, "AD")
    assert "2D" in {a["card"] for a in legal(st, 2)}  # void in diamonds: may trump
    do(st, 2, "2D")
    do(st, 3, "KD")
    do(st, 0, legal(st, 0)[0]["card"])
    assert trick_winner(st) == 2


def test_D4_deuce_of_diamonds_must_follow_a_spade_lead():
    r = preset("nyc").with_options(spade_lead="any")
    hands = fixed_hands(r, {1: ["AS"], 2: ["2D"] + SUITS13["H"][:12]})
    st = new_game(r, 0)
    deal(st, hands)
    do(st, 1, "AS")
    assert [a["card"] for a in legal(st, 2)] == ["2D"]


def test_D5_deuces_high_in_a_stated_order():
    r = STANDARD.with_options(top_trumps=["2S", "2H", "2D", "2C"])
    t = table_for(r)
    assert all(t.suit[c] == "S" for c in ("2H", "2D", "2C"))
    assert t.winning([(0, "AS"), (1, "2C")]) == 1
    assert t.winning([(0, "2C"), (1, "2D"), (2, "2S"), (3, "2H")]) == 2
    assert t.winning([(0, "AH"), (1, "KH")]) == 0  # the rest of hearts ranks as usual


def test_D6_widow_two_cards_lie_aside():
    r = STANDARD.with_options(jokers=True, top_trumps=["BJ", "LJ"], leftover="out")
    st = new_game(r, 0)
    ev = make_deal(st, random.Random(9))
    assert len(r.deck()) == 54 and r.hand_size == 13 and len(ev["out"]) == 2
    replayed = replay(r, [ev])
    assert not set(ev["out"]) & set(sum(replayed.hands, []))


def test_D6_uneven_deal_needs_leftover_out():
    with pytest.raises(RulesError, match="leftover"):
        STANDARD.with_options(jokers=True, top_trumps=["BJ", "LJ"])


def test_D7_jokers_follow_as_spades():
    r = preset("barmore")  # any card may be led
    hands = fixed_hands(r, {0: ["AS"], 1: ["LJ"] + SUITS13["H"][:12]})
    st = new_game(r, 0)
    deal(st, hands)
    bid_round(st)
    assert st.turn == 0  # barmore: the dealer leads
    do(st, 0, "AS")
    assert [a["card"] for a in legal(st, 1)] == ["LJ"]


# -- L: deal --------------------------------------------------------------------------


class NoShuffle:
    def shuffle(self, cards):
        pass


def test_L1_dealt_singly_from_dealers_left_and_deal_passes_clockwise():
    st = new_game(STANDARD, first_dealer=2)
    ev = make_deal(st, NoShuffle())
    deck = STANDARD.deck()
    assert ev["dealer"] == 2
    assert [ev["hands"][s][0] for s in (3, 0, 1, 2)] == deck[:4]
    assert ev["hands"][3][1] == deck[4]
    advance_ = replay(STANDARD, [ev])
    bid_round(advance_)
    play_out(advance_)
    assert advance_.dealer == 3 and advance_.phase == "deal"


NO_SPADES = STANDARD.with_options(misdeal=["no_spades"])
L2_HANDS = [SUITS13["S"][:7] + SUITS13["C"][:6], SUITS13["S"][7:] + SUITS13["C"][6:],
            SUITS13["H"], SUITS13["D"]]


def test_L2_misdeal_called_before_the_side_bids_same_dealer_redeals():
    st = new_game(NO_SPADES, 0)
    deal(st, L2_HANDS)
    assert {"type": "misdeal"} not in legal(st, 0)  # holds spades
    do(st, 1, {"type": "bid", "bid": 3})
    assert {"type": "misdeal"} in legal(st, 2)  # side 0 has not bid
    assert {"type": "misdeal"} not in legal(st, 3)  # partner 1 already bid
    with pytest.raises(IllegalAction):
        do(st, 3, {"type": "misdeal"})
    do(st, 2, {"type": "misdeal"})
    assert st.phase == "deal" and st.dealer == 0 and st.bids == [None] * 4
    deal(st)
    assert st.phase == "bid" and st.hand_no == 0


def test_L2_misdeal_off_by_default_and_before_bidding_in_tournament():
    st = new_game(STANDARD, 0)
    deal(st, L2_HANDS)
    assert {"type": "misdeal"} not in legal(st, 2)
    r = preset("tournament-300")
    hands = fixed_hands(r, {3: SUITS13["D"][1:12] + ["BJ", "LJ"],
                            2: SUITS13["H"][:12] + ["AD"]})
    st = new_game(r, 0)
    deal(st, hands)
    assert {"type": "misdeal"} in legal(st, 2)  # no spades (and no face cards)
    do(st, 1, {"type": "bid", "bid": 4})
    assert {"type": "misdeal"} not in legal(st, 2)  # bidding has started


@pytest.mark.parametrize("test, hand, ok", [
    ("one_spade", ["AS"] + SUITS13["H"][:12], True),
    ("one_spade", ["AS", "KS"] + SUITS13["H"][:11], False),
    ("no_faces", ["AS", "TS"] + [r + "H" for r in "A98765432"] + ["TD", "TC"], True),
    ("no_faces", ["JS"] + SUITS13["H"][1:], False),
    ("long_suit", SUITS13["H"][:7] + SUITS13["C"][:6], True),
    ("long_suit", SUITS13["H"][:6] + SUITS13["C"][:6] + ["AS"], False),
])
def test_L2_misdeal_tests(test, hand, ok):
    r = STANDARD.with_options(misdeal=[test])
    st = new_game(r, 0)
    deal(st, fixed_hands(r, {1: hand}))
    assert ({"type": "misdeal"} in legal(st, 1)) is ok


def test_L3_seeded_deal_has_every_card_once_and_replays():
    st = new_game(STANDARD, 1)
    ev = make_deal(st, random.Random(42))
    assert Counter(sum(ev["hands"], [])) == Counter(STANDARD.deck())
    assert ev == make_deal(new_game(STANDARD, 1), random.Random(42))
    assert ev != make_deal(new_game(STANDARD, 1), random.Random(43))
    advance(st, ev)
    events = [ev] + bid_round(st) + play_out(st, seed=5)
    again = replay(STANDARD, events)
    assert again.last_deal["hands"] == ev["hands"]
    assert again.history == st.history and again.scores == st.scores


def test_L3_replay_rejects_a_deal_that_is_not_the_deck():
    st = new_game(STANDARD, 0)
    ev = deal_event(st)
    gone, twice = ev["hands"][0][0], ev["hands"][1][0]
    ev["hands"][0][0] = twice
    with pytest.raises(IllegalAction, match=f"not exactly the deck: {twice} once too often, "
                                            f"{gone} missing$"):
        replay(STANDARD, [ev])
    ev["hands"][2].pop()
    with pytest.raises(IllegalAction, match="seat 2's hand has 12 cards, not 13"):
        replay(STANDARD, [ev])


@pytest.mark.parametrize("way, taker", [("dealer", 2), ("two_clubs", None)])
def test_D6_leftover_cards_to_the_dealer_or_the_two_of_clubs_who_discards_as_many(way, taker):
    """pagat: "there will be two cards left over at the end of the deal, and these are given
    to the dealer. Having looked at all 15 cards, the dealer discards any two cards face
    down. Some play that the two extra cards are given to the holder of the two of clubs"."""
    import json

    from pbem.engine import view

    r = preset("standard").with_options(jokers=True, top_trumps=("BJ", "LJ"), leftover=way)
    st = new_game(r, 2)
    deal(st)
    if taker is None:
        taker = next(s for s in range(4) if "2C" in st.hands[s])
    extra = list(st.passed_to[taker])
    assert len(extra) == 2 and len(st.hands[taker]) == 15 and st.out == []
    assert st.phase == "pass" and st.to_act() == [taker]
    others = [s for s in range(4) if s != taker]
    for s in others:  # nobody else sees them
        shown = json.dumps({k: v for k, v in view(st, s).items() if k != "rules"})
        assert not any(f'"{c}"' in shown for c in extra)
    gone = st.hands[taker][:2]
    do(st, taker, {"type": "pass", "cards": gone})
    assert st.phase == "bid" and all(len(h) == 13 for h in st.hands) and st.out == gone


def _unseen_by(st, seats, cards):
    import json

    from pbem.engine import view

    for s in seats:
        shown = json.dumps({k: v for k, v in view(st, s).items() if k != "rules"})
        assert not any(f'"{c}"' in shown for c in cards), (s, cards)


D6_JOKERS = dict(jokers=True, top_trumps=("BJ", "LJ"))


@pytest.mark.parametrize("bids, takers", [
    ({1: 2, 2: 5, 3: 4, 0: 3}, [2]),  # seats 0+2 bid 8, 1+3 bid 6: seat 2, who bid more
    ({1: 4, 2: 3, 3: 3, 0: 4}, [1, 0]),  # 7 each: each side's higher bidder takes one
])
def test_D6_leftover_cards_to_the_higher_bidding_team_after_the_bidding(bids, takers):
    """pagat (Michael Mitchell): "the two cards remaining after the deal are taken by the
    team that bids the greater number of tricks ... If the teams bid equal numbers of
    tricks ... each team gets one of the remaining cards ... the player(s) who have taken
    the extra cards discard unwanted cards face down ... before the play begins"."""
    r = STANDARD.with_options(leftover="high_side", **D6_JOKERS)
    st = new_game(r, 0)
    ev = deal(st)
    extra = ev["out"]
    assert st.phase == "bid" and all(len(h) == 13 for h in st.hands)
    _unseen_by(st, range(4), extra)  # nobody sees them while bidding
    bid_round(st, bids)
    assert st.phase == "pass" and sorted(st.to_act()) == sorted(takers)
    per = 2 // len(takers)
    assert sorted(c for t in takers for c in st.passed_to[t]) == sorted(extra)
    assert all(len(st.hands[t]) == 13 + per for t in takers)
    for t in takers:  # each taker sees its own card(s) only
        _unseen_by(st, [s for s in range(4) if s not in takers], st.passed_to[t])
    with pytest.raises(IllegalAction, match=f"pass exactly {per} cards"):
        do(st, takers[0], {"type": "pass", "cards": st.hands[takers[0]][:per + 1]})
    gone = []
    for t in takers:
        gone += st.hands[t][:per]
        do(st, t, {"type": "pass", "cards": st.hands[t][:per]})
    assert st.phase == "play" and all(len(h) == 13 for h in st.hands)
    assert sorted(st.out) == sorted(gone)


def test_D6_higher_bidding_team_needs_two_sides():
    with pytest.raises(RulesError, match="high_side"):
        preset("cutthroat-3").with_options(leftover="high_side")


def test_D6_the_dealers_discard_after_the_bidding():
    """pagat: "Some play that the discard takes place after the bidding": the dealer takes
    the two cards up and bids with 15, then discards two face down before the play."""
    r = STANDARD.with_options(leftover="dealer", leftover_after_bid=True, **D6_JOKERS)
    st = new_game(r, 3)
    ev = deal(st)
    assert st.phase == "bid" and len(st.hands[3]) == 15 and st.out == []
    _unseen_by(st, [0, 1, 2], ev["out"])
    bid_round(st)
    assert st.phase == "pass" and st.to_act() == [3]
    gone = st.hands[3][-2:]
    do(st, 3, {"type": "pass", "cards": gone})
    assert st.phase == "play" and all(len(h) == 13 for h in st.hands) and st.out == gone
    with pytest.raises(RulesError, match="leftover_after_bid"):
        STANDARD.with_options(leftover="out", leftover_after_bid=True, **D6_JOKERS)
    unbid = r.with_options(first_hand_unbid=True)  # B13: no bidding, the discard still due
    st = new_game(unbid, 3)
    deal(st)
    assert st.phase == "pass" and st.to_act() == [3] and len(st.hands[3]) == 15


def test_T4_three_players_with_an_exposed_dummy_played_by_the_highest_bidder():
    """pagat: Dan Corkill's 'Dummy Hand' Spades, "four hands are dealt, three to the
    players and one dummy, and the highest bidder plays with the dummy hand as a partner,
    the dummy being exposed, bridge-style": face up once the first card is led, the
    declarer playing it from the seat opposite."""
    import json

    from pbem.engine import parse_action, view

    r = preset("dummy-3")
    assert r.hand_size == 13 and r.hands == 4
    st = new_game(r, 0)
    hands = [SUITS13["H"], SUITS13["D"], SUITS13["C"]]
    advance(st, {"seq": 1, "type": "deal", "dealer": 0, "hands": hands,
                 "dummy": SUITS13["S"]})

    def shown(seat):
        return json.dumps({k: v for k, v in view(st, seat).items() if k != "rules"})

    def dummy_seen():
        return [s for s in (None, 0, 1, 2) if any(f'"{c}"' in shown(s) for c in SUITS13["S"])]

    bid_round(st, {1: 2, 2: 3, 0: 3})  # seats 2 and 0 bid 3: seat 2 bid it first
    assert st.phase == "play" and st.declarer == 2 and st.turn == 1
    assert view(st, 0)["dummy"] == {"declarer": 2, "size": 13, "hand": None}
    assert dummy_seen() == []  # not even its declarer sees it before the opening lead
    do(st, 1, "AD")
    assert dummy_seen() == [None, 0, 1, 2]
    assert view(st, None)["dummy"]["hand"] == SUITS13["S"]
    # the order is declarer, its left, the dummy, its right: 1 led, then 2, 0, the dummy
    assert st.turn == 2 and not view(st, 2)["dummy"]["on_turn"]
    with pytest.raises(IllegalAction, match="'AS' is not in your hand"):
        do(st, 2, "AS")  # the dummy's card at the declarer's own turn
    do(st, 2, "2C")
    do(st, 0, "2H")
    assert st.turn == 2 and view(st, 2)["dummy"]["on_turn"]
    assert [a["card"] for a in legal(st, 2)] == SUITS13["S"]
    with pytest.raises(IllegalAction, match="'3C' is not in the dummy"):
        do(st, 2, "3C")
    with pytest.raises(IllegalAction, match="not your turn"):
        do(st, 0, "AS")  # only the declarer plays the dummy
    do(st, 2, parse_action("play 2S", r))  # as a mail or the web page sends it
    assert st.tricks[-1] == ([(1, "AD"), (2, "2C"), (0, "2H"), (2, "2S")], 2)
    assert st.won == [0, 0, 1] and st.turn == 2 and st.playing_hand == 3  # the dummy leads
    trick = view(st, 1)["tricks"][-1]["cards"]
    assert [x.get("dummy", False) for x in trick] == [False, False, False, True]
    do(st, 2, "3S")
    assert st.turn == 1  # after the dummy, the declarer's right
    play_out(st)
    assert [side["tricks"] for side in st.history[0]["sides"]] == [0, 0, 13]
    assert st.last_deal["dummy"] == SUITS13["S"] and st.last_deal["declarer"] == 2


def test_T4_dummy_rules_refused_where_they_cannot_play():
    with pytest.raises(RulesError, match="dummy"):
        STANDARD.with_options(dummy=True)
    with pytest.raises(RulesError, match="claims=false"):
        preset("dummy-3").with_options(claims=True)
    st = new_game(preset("dummy-3"), 0)
    ev = make_deal(st, random.Random(4))
    ev["dummy"] = ev["dummy"][:12]
    with pytest.raises(IllegalAction, match="the dummy"):
        replay(preset("dummy-3"), [ev])


def test_T4_undo_gives_the_dummy_its_card_back_and_a_bid_undone_unmakes_the_declarer():
    st = new_game(preset("dummy-3"), 0)
    advance(st, {"seq": 1, "type": "deal", "dealer": 0,
                 "hands": [SUITS13["H"], SUITS13["D"], SUITS13["C"]], "dummy": SUITS13["S"]})
    do(st, 1, {"type": "bid", "bid": 2})
    do(st, 2, {"type": "bid", "bid": 3})
    do(st, 0, {"type": "bid", "bid": 1})
    assert st.declarer == 2
    do(st, 0, {"type": "undo"})
    assert (st.phase, st.declarer) == ("bid", None) and "dummy" not in view(st, 0)
    do(st, 0, {"type": "bid", "bid": 4})  # now seat 0 bids most: play 0, 1, dummy, 2
    do(st, 1, "AD")
    do(st, 0, "2S")  # from the dummy
    do(st, 0, {"type": "undo"})
    assert "2S" in st.dummy_hand and st.trick == [(1, "AD")] and st.playing_hand == 3
    do(st, 0, "3S")
    do(st, 2, "2C")
    do(st, 0, "2H")
    assert st.tricks[-1] == ([(1, "AD"), (0, "3S"), (2, "2C"), (0, "2H")], 0)
    assert len(st.hands[0]) == 12 and len(st.dummy_hand) == 12 and st.playing_hand == 3


def test_T4_the_deal_commitment_covers_the_dummy():
    """L3 with T4: a dummy card swapped with another after the deal breaks the
    commitment, so the server cannot change the dummy mid-hand either."""
    from pbem.engine.commitment import deal_digest

    st = new_game(preset("dummy-3"), 0)
    ev = make_deal(st, random.Random(5))
    swapped = dict(ev, dummy=[ev["hands"][0][0]] + ev["dummy"][1:],
                   hands=[[ev["dummy"][0]] + ev["hands"][0][1:]] + ev["hands"][1:])
    assert deal_digest(ev, "salt") != deal_digest(swapped, "salt")
    plain = {k: v for k, v in ev.items() if k != "dummy"}
    assert deal_digest(plain, "salt") != deal_digest(ev, "salt")


def test_T5a_draw_two_see_both_keep_one():
    """docs/rules.md T5a "draw two, keep one" (the source describes only T5b): the drawer sees
    both top cards, then keeps one and discards the other; the other player sees neither."""
    from pbem.engine import choose, view

    r = preset("two-handed").with_options(draw_two=True)
    st = new_game(r, 0)
    stock = r.deck()
    deal(st, stock=stock)
    mine = view(st, 1)
    assert (mine["drawn"], mine["drawn_second"]) == (stock[0], stock[1])
    assert "drawn" not in view(st, 0) and "drawn_second" not in view(st, 0)
    do(st, 1, {"type": "draw", "keep": False})  # keep the second
    assert st.hands[1] == [stock[1]] and st.discards[1] == [stock[0]]
    first, second = view(st, 0)["drawn"], view(st, 0)["drawn_second"]
    better = max(first, second, key=st.table.power.get)
    do(st, 0, choose(view(st, 0)))
    assert st.hands[0] == [better]  # the robot keeps the better card
    assert "drawn_second" not in view(new_game(preset("two-handed"), 0), 0)
    with pytest.raises(RulesError, match="draw_two"):
        STANDARD.with_options(draw_two=True)
