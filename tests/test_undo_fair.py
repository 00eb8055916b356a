"""Undo reveals nothing and gains nothing (issue 29, items 4, 5 and 7's first): an undo is
refused once the move it takes back showed a seat a card it could not see before (the
dummy face up, leftover cards taken, one's own cards after a blind bid); it takes back the
move's time (a bank's increment, the deadlines); extra time is given once a move by the
whole table, and by a side to its own partner at most twice a hand."""

import random
from datetime import timedelta

import pytest
import time_machine
from sqlmodel import select
from test_properties import VARIANTS

from pbem import vacation
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
from pbem.play import Refused, submit
from pbem.store import prefs
from pbem.store.models import Player, SeatClock
from tests.helpers import do
from tests.test_clock import T0, move, pending, state
from tests.test_clock import new_game as clock_game
from tests.test_clock_bank import player_id_after
from tests.web_helpers import csrf, database, game_state, humans_game, posted, tokens

H, MINUTE = timedelta(hours=1), timedelta(minutes=1)

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


# -- the door, on SQLite and PostgreSQL ----------------------------------------------------


def test_the_door_refuses_the_leaders_undo_and_writes_nothing(store):
    gid = humans_game(store, preset("dummy-3"))
    with store.session() as s:  # no card plays itself after the lead, whatever the deal
        ids = s.exec(select(Player.id).where(Player.email.like("p%@x.test"))).all()
    for player_id in ids:
        prefs.update(store, player_id, auto="off")
    st = game_state(store, gid)
    while st.phase == "bid":
        seat = st.to_act()[0]
        submit(store, gid, seat, {"type": "bid", "bid": 4}, expect_seq=st.seq)
        st = game_state(store, gid)
    leader = st.to_act()[0]
    submit(store, gid, leader, {"type": "play", "card": legal(st, leader)[0]["card"]},
           expect_seq=st.seq, source="web")
    before = database(store)
    with pytest.raises(Refused, match="you cannot take it back: it showed you the dummy"):
        submit(store, gid, leader, {"type": "undo"}, source="web")
    assert database(store) == before


BANK = {"clock": "bank", "bank_hours": 72, "increment_hours": 24, "cap_hours": 168,
        "remind_hours": [24, 2]}


def left(store, gid, now) -> dict[int, float]:
    """Each seat's bank in hours at `now`, its wait so far paid (no rest days here)."""
    with store.session() as s:
        rows = s.exec(select(SeatClock).where(SeatClock.game_id == gid)).all()
    return {r.seat: (r.bank_seconds - ((now - r.since).total_seconds() if r.since else 0))
            / 3600 for r in rows}


def deadlines_now(store, gid) -> dict:
    """The pending deadlines by seat, kind and hours before (not by move: an undo is one)."""
    return {(seat, kind, h): due for (seat, _seq, kind, h), due in pending(store, gid).items()}


@pytest.mark.parametrize("tc", [BANK, {"move_hours": 72, "remind_hours": [24, 2]}])
def test_bid_and_undo_four_times_mint_no_time(store, tc):
    """The issue's attack: on a bank clock of 72 h (24 h a move, capped at 168 h) bob bids
    and takes it back, four times: his bank had reached the cap, and cy, asked each time
    for a few minutes, paid for them. Now every bank and deadline is as it was, and the
    reminders count to bob's deadline through his rest day (a Tuesday), not from the undo
    (on a fixed time a move they came 5 h 40 late, after his timeout)."""
    with time_machine.travel(T0, tick=False) as t:  # a Monday noon
        bob = player_id_after(store)
        prefs.update(store, bob, zone="UTC", rest=[1])
        gid = clock_game(store, tc)  # bob (seat 1) is to bid
        t.shift(5 * H)
        now = T0 + 5 * H
        banks, due = left(store, gid, now), deadlines_now(store, gid)
        for _ in range(4):
            move(store, gid)  # bob bids: cy (seat 2) is asked
            t.shift(10 * MINUTE)
            submit(store, gid, 1, {"type": "undo"}, source="web")
            now += 10 * MINUTE
        assert state(store, gid).to_act() == [1]
        assert deadlines_now(store, gid) == due
        spent = {seat: (40 / 60 if seat == 1 else 0) for seat in banks}
        assert left(store, gid, now) == pytest.approx(
            {seat: hours - spent[seat] for seat, hours in banks.items()})


# -- extra time: given by the table, once a move ---------------------------------------------


def gives(store, gid, by, hours=48):
    """`by` gives the players to act more time: the rows it moved, or the refusal's words
    (the database then unchanged)."""
    before = database(store)
    try:
        return vacation.extra_time(store, gid, hours, by=by)
    except ValueError as e:
        assert database(store) == before
        return str(e)


def test_extra_time_is_once_a_move_for_the_whole_table(store):
    """The issue's attack: ann and cy each gave bob 48 hours for one move (96 h)."""
    with time_machine.travel(T0, tick=False):
        gid = clock_game(store, {"move_hours": 72})  # bob (seat 1) is to bid
        due = deadlines_now(store, gid)
        assert gives(store, gid, 0) == 3  # his timeout and two reminders
        assert "given for this move already" in gives(store, gid, 2)
        assert deadlines_now(store, gid) == {k: d + 48 * H for k, d in due.items()}


def test_a_move_taken_back_is_no_new_move_for_extra_time(store):
    """Bid and undo, again and again, do not let the table give bob more time each time."""
    with time_machine.travel(T0, tick=False):
        gid = clock_game(store, {"move_hours": 72})
        assert gives(store, gid, 0) == 3
        for _ in range(2):
            move(store, gid)
            submit(store, gid, 1, {"type": "undo"}, source="web")
            assert "given for this move already" in gives(store, gid, 2)


def test_a_side_gives_its_own_partner_more_time_at_most_twice_a_hand(store):
    """di (seat 3) gave her partner bob 48 hours at every move of his; now twice a hand, by
    either of them; an opponent still may give time, once a move."""
    with time_machine.travel(T0, tick=False):
        gid = clock_game(store, {"move_hours": 72})
        turns = 0
        while turns < 3:
            st = state(store, gid)
            if st.to_act() == [1]:
                turns += 1
                words = gives(store, gid, 3)
                if turns < 3:
                    assert words == 3
                else:
                    assert "your side gave your partner more time 2 times this hand" in words
                    assert gives(store, gid, 0) == 3  # ann, an opponent
            move(store, gid)
        assert state(store, gid).hand_no == 0  # all in one hand


def test_the_table_page_says_why_no_more_time(store, client):
    gid = humans_game(store, preset("standard"))
    toks = tokens(store, gid)
    actor = game_state(store, gid).to_act()[0]
    first, second = (actor + 1) % 4, (actor + 2) % 4
    token = csrf(client)
    r = posted(client, f"/t/{toks[first]}/extra", {"csrf": token, "hours": "48"})
    assert "48 more hours" in r.text
    before = database(store)
    r = posted(client, f"/t/{toks[second]}/extra", {"csrf": token, "hours": "48"})
    assert "No extra time: more time was given for this move already" in r.text
    assert database(store) == before
