"""Undo reveals nothing and gains nothing (issue 29, items 4, 5 and 7's first): an undo is
refused once the move it takes back showed a seat a card it could not see before (the
dummy face up, leftover cards taken, one's own cards after a blind bid); it takes back the
move's time (a bank's increment, the deadlines); extra time is given once a move by the
whole table, and by a side to its own partner at most twice a hand."""

import random

import pytest
from test_properties import VARIANTS

from pbem.engine import (
    IllegalAction,
    advance,
    apply,
    legal,
    make_deal,
    new_game,
    preset,
    replay,
    view,
)
from tests.helpers import do

SUITS13 = {s: [r + s for r in "AKQJT98765432"] for s in "SHDC"}


def variant(name):
    base, options = VARIANTS[name]
    return preset(base).with_options(**options)


def refused_undo(st, seat, words):
    """The undo is refused with `words`, changes nothing, and no page offers it."""
    before = vars(st.snapshot())
    with pytest.raises(IllegalAction, match=words):
        apply(st, seat, {"type": "undo"})
    assert vars(st) == before
    assert view(st, seat)["undo"] is None


def dummy_lead():
    """dummy-3: seat 1 leads (the dealer's left); the dummy (spades) goes face up."""
    st, log = new_game(preset("dummy-3"), 0), []
    deal = {"seq": 1, "type": "deal", "dealer": 0,
            "hands": [SUITS13["H"], SUITS13["D"], SUITS13["C"]], "dummy": SUITS13["S"]}
    advance(st, deal)
    log.append(deal)
    for seat, action in ((1, {"type": "bid", "bid": 2}), (2, {"type": "bid", "bid": 3}),
                         (0, {"type": "bid", "bid": 4})):
        log += do(st, seat, action)
    assert view(st, 1)["dummy"]["hand"] is None  # face down before the lead
    log += do(st, 1, "AD")
    assert view(st, 1)["dummy"]["hand"] == SUITS13["S"]
    return st, log


def test_the_opening_leader_who_saw_the_dummy_cannot_take_the_lead_back():
    st, _ = dummy_lead()
    refused_undo(st, 1, "you cannot take it back: it showed you the dummy")


def test_a_logged_undo_of_the_lead_from_before_the_rule_still_replays():
    """The log format holds: a log written when this undo was allowed replays as before
    (the engine refuses only a player's undo made now)."""
    st, log = dummy_lead()
    old = log + [{"seq": st.seq + 1, "type": "undo", "seat": 1, "undo": st.seq}]
    again = replay(preset("dummy-3"), old)
    assert again.trick == [] and "AD" in again.hands[1] and again.turn == 1
    assert view(again, 1)["dummy"]["hand"] is None


def test_a_card_after_the_lead_may_still_be_taken_back():
    st, _ = dummy_lead()
    do(st, 0, "2S")  # from the dummy, face up already: it shows nothing new
    assert view(st, 0)["undo"]["card"] == "2S"
    do(st, 0, {"type": "undo"})
    assert "2S" in st.dummy_hand


def test_a_blind_bid_that_showed_the_bidder_its_cards_cannot_be_taken_back():
    st = new_game(variant("blind-bids"), 0)
    advance(st, make_deal(st, random.Random(1)))
    seat = st.to_act()[0]
    blind = next(a for a in legal(st, seat) if a.get("blind"))
    assert view(st, seat)["hand"] is None
    do(st, seat, blind)
    assert view(st, seat)["hand"]  # the bid showed the cards
    refused_undo(st, seat, "it showed you cards you had not seen")


def test_the_last_bid_that_gave_leftover_cards_cannot_be_taken_back():
    """D6 high side: the bidding's end hands the leftover cards to the side that bid more."""
    st = new_game(variant("high-side"), 0)
    advance(st, make_deal(st, random.Random(2)))
    while st.phase == "pass":  # the pass to partner before the bidding
        seat = st.to_act()[0]
        k = legal(st, seat)[0]["count"]
        do(st, seat, {"type": "pass", "cards": st.hands[seat][:k]})
    while True:
        seat = st.to_act()[0]
        before = st.snapshot()
        do(st, seat, {"type": "bid", "bid": 3})
        if st.phase != "bid":
            break
    assert any(len(st.hands[s]) > len(before.hands[s]) for s in range(st.n))
    refused_undo(st, seat, "you cannot take it back: it showed")
