"""Orders that cut the follows and the bidding waits (issue 14): `cover` (beat the trick
when the seat can, low when its partner wins it or the trick is trumped; never for a void
seat; spades only by name), and bids given ahead, made by the one door at the seat's turn
(`"auto": "order"`), by mail and from the table page, dropped with a mail when not allowed
then. Their secrecy is in tests/test_orders.py."""

import pytest
from helpers import deal, do, fixed_hands
from sqlmodel import select

from pbem import orders
from pbem.engine import new_game, preset
from pbem.engine.orders import next_bid, next_card, read
from pbem.gamelog import export as write_log
from pbem.play import import_log, start, submit
from pbem.store.models import Outbox
from tests.test_orders import rows, state

STD = preset("standard")
SEATS = ["a@x.test", "b@x.test", "c@x.test", "d@x.test"]
# sides (0, 2) and (1, 3); with dealer 3 seat 0 bids and leads first
COVER_HANDS = {
    0: ["KH", "9H", "4H", "AC", "KC", "QC", "JC", "TC", "9C", "8C", "5C", "4C", "3C"],
    1: ["QH", "8H", "3H", "3S", "2S", "AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D"],
    2: ["AH", "JH", "TH", "5H", "7C", "6C", "2C", "5D", "4D", "3D", "2D", "AS", "KS"],
    3: ["7H", "6H", "2H", "QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "4S", "6D"],
}
HEARTS, CLUBS, SPADES = [{"kind": "cover", "suits": [s]} for s in "HCS"]


def playing(bids=(3, 3, 3, 3)):
    st = new_game(STD, 3)
    deal(st, fixed_hands(STD, COVER_HANDS))
    for seat in range(4):
        do(st, seat, {"type": "bid", "bid": bids[seat]})
    return st


@pytest.mark.parametrize("line, want", [
    ("cover in hearts", [HEARTS]),
    ("Cover in spades", [SPADES]),
    ("cover", [{"kind": "cover", "suits": ["H", "D", "C"]}]),  # spades only by name
    ("duck in clubs", [{"kind": "low", "suit": "C"}]),
    ("cover hearts", None), ("cover me", None),
])
def test_cover_and_duck_are_read(line, want):
    assert read(line) == want


def test_a_cover_of_a_suit_not_in_the_game_is_an_error():
    with pytest.raises(ValueError):
        read("cover in wands")


def test_cover_beats_the_trick_with_the_lowest_card_that_can():
    st = playing()
    do(st, 0, "4H")
    assert next_card(st, 1, [HEARTS]) == (0, "8H")  # not the QH: the 8H is enough
    do(st, 1, "8H")
    assert next_card(st, 2, [HEARTS]) == (0, "TH")
    do(st, 2, "TH")
    assert next_card(st, 3, [HEARTS]) == (0, "2H")  # nothing of seat 3's beats the TH


def test_cover_plays_low_when_the_partner_wins_the_trick():
    st = playing()
    do(st, 0, "KH")
    do(st, 1, "3H")
    assert next_card(st, 2, [HEARTS]) == (0, "5H")  # not the AH over its partner's KH
    st = playing()
    do(st, 0, "4H")
    do(st, 1, "QH")
    assert next_card(st, 2, [HEARTS]) == (0, "AH")  # an opponent wins: take it


def test_cover_plays_low_on_a_trumped_trick_and_never_for_a_void_seat():
    st = playing()
    do(st, 0, "3C")
    assert next_card(st, 1, [CLUBS, {"kind": "play", "card": "2S"}]) == (1, "2S")  # void
    assert next_card(st, 1, [CLUBS]) == (-1, None)  # it stays: the player decides
    do(st, 1, "2S")
    assert next_card(st, 2, [CLUBS]) == (0, "2C")  # the 6C would beat the 3C, not the 2S


def test_spades_are_covered_only_by_name():
    st = playing()
    for seat, card in ((0, "3C"), (1, "2S"), (2, "2C"), (3, "2H")):
        do(st, seat, card)
    do(st, 1, "3S")  # seat 1 won with its trump, and spades are broken
    assert next_card(st, 2, read("cover")) == (-1, None)
    assert next_card(st, 2, [SPADES]) == (0, "KS")


def test_cover_takes_a_nil_bidding_partners_trick_over():
    st = playing(bids=("nil", 3, 3, 3))
    do(st, 0, "9H")
    do(st, 1, "3H")
    assert next_card(st, 2, [HEARTS]) == (0, "TH")  # its partner bid nil: cover the 9H


# -- bids ahead ------------------------------------------------------------------------------


def bidding(rules=STD):
    st = new_game(rules, 3)
    deal(st, fixed_hands(rules))
    return st


def test_a_bid_order_acts_at_its_seats_turn_only_and_is_checked_then():
    st = bidding()
    mine = [{"kind": "lead", "card": "AS"}, {"kind": "bid", "bid": 4}]
    assert next_bid(st, 2, mine) == (-1, None)  # seat 0 is to bid
    do(st, 0, {"type": "bid", "bid": 3})
    do(st, 1, {"type": "bid", "bid": 3})
    assert next_bid(st, 2, mine) == (1, {"type": "bid", "bid": 4})
    tour = preset("tournament-300")  # a side's bids must come to 4: 0 and 2 bid first
    st = bidding(tour)
    do(st, 0, {"type": "bid", "bid": 1})
    assert next_bid(st, 2, [{"kind": "bid", "bid": 2}]) == (0, None)  # 1 + 2 < 4: drop
    assert next_bid(st, 2, [{"kind": "bid", "bid": 3}]) == (0, {"type": "bid", "bid": 3})


@pytest.mark.parametrize("action, why", [
    ({"type": "bid", "bid": 5, "blind": True}, "blind"),
    ({"type": "bid", "bid": "blind nil"}, "blind"),
    ({"type": "bid", "bid": 14}, "not a bid of this game"),
    ({"type": "play", "card": "2C"}, "only a bid"),
])
def test_a_bid_ahead_is_refused_blind_or_out_of_range(store, action, why):
    gid = bidding_game(store)
    with pytest.raises(ValueError, match=why):
        orders.give_bid(store, gid, 2, action, "x", state(store, gid))
    assert rows(store, gid) == []


def test_a_bid_ahead_is_refused_at_ones_turn_after_ones_bid_and_before_looking(store):
    gid = bidding_game(store)
    with pytest.raises(ValueError, match="your turn"):
        orders.give_bid(store, gid, 0, {"type": "bid", "bid": 3}, "bid 3", state(store, gid))
    submit(store, gid, 0, {"type": "bid", "bid": 3})
    with pytest.raises(ValueError, match="bid already"):
        orders.give_bid(store, gid, 0, {"type": "bid", "bid": 3}, "bid 3", state(store, gid))
    st = state(store, gid)
    st.looked[3] = False  # as when seat 3 may bid blind (its side 100 behind)
    with pytest.raises(ValueError, match="look at your cards first"):
        orders.give_bid(store, gid, 3, {"type": "bid", "bid": 3}, "bid 3", st)
    assert rows(store, gid) == []


# -- through the door ------------------------------------------------------------------------


def bidding_game(store, rules=STD, hands=None):
    st = new_game(rules, 3)
    ev = deal(st, hands or fixed_hands(rules))
    gid = import_log(store, write_log(rules, [ev], SEATS, first_dealer=3))
    start(store, gid)
    return gid


def dropped_mails(store):
    with store.session() as s:
        return list(s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("order:"))).all())


def test_the_door_makes_bids_ahead_at_each_seats_turn(store):
    gid = bidding_game(store)
    st = state(store, gid)
    orders.give_bid(store, gid, 3, {"type": "bid", "bid": 2}, "bid 2", st)
    orders.give_bid(store, gid, 2, {"type": "bid", "bid": 5}, "bid 5", st)
    orders.give_bid(store, gid, 2, {"type": "bid", "bid": "nil"}, "bid nil", st)  # replaces
    submit(store, gid, 0, {"type": "bid", "bid": 4})
    assert state(store, gid).bids == [4, None, None, None]  # seat 1 has no order: it waits
    result = submit(store, gid, 1, {"type": "bid", "bid": 3})
    made = [ev for ev in result.events if ev.get("auto") == "order"]
    assert [(ev["seat"], ev["type"], ev["bid"]) for ev in made] == [(2, "bid", "nil"),
                                                                  (3, "bid", 2)]
    st = state(store, gid)  # the log replays: the bids are ordinary bids
    assert st.bids == [4, 3, "nil", 2] and st.phase == "play"
    assert [(r.seat, r.state) for r in rows(store, gid)] == [(3, "done"), (2, "dropped"),
                                                             (2, "done")]
    assert dropped_mails(store) == []  # a replaced bid is no news


def test_a_bid_ahead_follows_a_robots_bid(store):
    gid = bidding_game(store)  # seats a..d: make seat 1 a robot
    from pbem.play import hand_over

    orders.give_bid(store, gid, 2, {"type": "bid", "bid": 4}, "bid 4", state(store, gid))
    hand_over(store, gid, 1, "robot")
    submit(store, gid, 0, {"type": "bid", "bid": 3})  # the robot bids, then seat 2's order
    st = state(store, gid)
    assert st.bids[1] is not None and st.bids[2] == 4 and st.bid_turns[st.bid_index] == (3,)


def test_a_bid_not_allowed_at_its_turn_is_dropped_with_a_mail(store):
    tour = preset("tournament-300")  # side bidding order 0, 2, 1, 3; a side bids 4 or more
    gid = bidding_game(store, tour)
    orders.give_bid(store, gid, 2, {"type": "bid", "bid": 1}, "bid 1", state(store, gid))
    submit(store, gid, 0, {"type": "bid", "bid": 2})
    st = state(store, gid)
    assert st.bids[2] is None and st.to_act() == [2]  # nothing was bid for seat 2
    assert [r.state for r in rows(store, gid)] == ["dropped"]
    [told] = dropped_mails(store)
    assert told.to_addr == "c@x.test" and "bid 1" in told.body_text
    assert "not allowed" in told.body_text


def test_a_partners_bid_ahead_left_when_the_bidding_ends_is_dropped_with_a_mail(store):
    gid = bidding_game(store, preset("barmore"))  # side bidding: (0, 2), then (1, 3)
    submit(store, gid, 1, {"type": "look"})  # seat 3 sees its cards with its partner
    for seat, bid in ((1, 5), (3, 6)):
        orders.give_bid(store, gid, seat, {"type": "bid", "bid": bid}, f"bid {bid}",
                        state(store, gid))
    submit(store, gid, 0, {"type": "bid", "bid": 4})
    st = state(store, gid)
    assert st.phase == "play" and st.bids[1] == 5 and st.bids[3] is None
    assert [(r.seat, r.state) for r in rows(store, gid)] == [(1, "done"), (3, "dropped")]
    [told] = dropped_mails(store)
    assert told.to_addr == "d@x.test" and "bid 6" in told.body_text


def test_a_misdeal_drops_the_bids_ahead_made_on_its_cards(store):
    tour = preset("tournament-300")
    no_spades = [r + "H" for r in "AKQJT9876543"] + ["AD"]
    gid = bidding_game(store, tour, fixed_hands(tour, {0: no_spades}))
    orders.give_bid(store, gid, 1, {"type": "bid", "bid": 3}, "bid 3", state(store, gid))
    submit(store, gid, 0, {"type": "misdeal"})  # the same dealer deals again
    st = state(store, gid)
    assert st.phase == "bid" and st.bids == [None] * 4 and st.hands[0] != no_spades
    assert [r.state for r in rows(store, gid)] == ["dropped"]
    [told] = dropped_mails(store)
    assert told.to_addr == "b@x.test" and "bidding ended" in told.body_text
