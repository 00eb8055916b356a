"""Cards that play themselves (issue 14): a seat's only legal card plays at once through the
one door (`"auto": "forced"` in the log), unless its player turned it off; cards of equal
value go lowest first for a player who opted in, judged only on what that player has seen;
on every preset a game with auto-play replays to the same state."""

import random

import pytest
from helpers import deal, do

from pbem.engine import PRESETS, choose, new_game, preset, view
from pbem.engine.auto import auto_card
from pbem.gamelog import replay_log
from pbem.play import start, submit
from pbem.store.games import create_game, export
from pbem.store.models import Move, Player
from tests.test_no_stall import HANDS

RANKS = "AKQJT98765432"
STD = preset("standard")


def bid_out(st, bids=(4, 3, 1, 1)):
    while st.phase == "bid":
        seat = st.to_act()[0]
        do(st, seat, {"type": "bid", "bid": bids[seat]})
    return st


def test_touching_cards_are_equal_and_the_lowest_goes_for_who_opted_in():
    st = new_game(STD, 3)
    deal(st, HANDS)
    bid_out(st)
    # spades unbroken, seat 0 leads a heart: AH to 6H, all its own, touch: the 6H goes
    assert st.turn == 0 and auto_card(st, 0) is None and auto_card(st, 0, equal=True) == "6H"
    do(st, 0, "AH")
    assert auto_card(st, 1) is None  # four hearts: a choice ...
    assert auto_card(st, 1, equal=True) == "2H"  # ... of cards that touch: the lowest goes


def test_the_last_card_of_every_seat_is_forced():
    st = new_game(STD, 3)
    deal(st, HANDS)
    bid_out(st)
    while len(st.tricks) < 12:
        seat = st.turn
        do(st, seat, choose(view(st, seat), seed=st.seq, rules=st.rules))
    for _ in range(4):
        seat = st.turn
        [last] = st.hands[seat]
        assert auto_card(st, seat) == last
        do(st, seat, last)
    assert st.phase == "deal"


GAP = [["AC", "QC"] + [r + "S" for r in "AKQJT98765"] + ["2H"],
       ["KC"] + [r + "H" for r in "AKQJT9876543"],
       [r + "D" for r in RANKS],
       [r + "C" for r in "JT98765432"] + ["4S", "3S", "2S"]]


def test_a_gap_another_player_may_hold_is_no_equal():
    st = new_game(STD, 3)
    deal(st, GAP)
    bid_out(st)
    for seat, card in ((0, "2H"), (1, "3H"), (2, "2D"), (3, "4S")):
        do(st, seat, card)
    do(st, 3, "2C")  # seat 3 won with a spade and leads a club
    assert auto_card(st, 0, equal=True) is None  # AC, QC: the KC is seat 1's, unseen by 0
    do(st, 0, "QC")
    do(st, 1, "KC")  # now seen: had seat 0 still two clubs, they would touch


def test_a_card_on_the_trick_between_two_of_mine_makes_them_unequal():
    hands = [["KH", "JH"] + [r + "D" for r in "AKQJT98765 4".replace(" ", "")],
             [r + "H" for r in "AT98765432"] + ["3D", "2D", "2C"],
             [r + "S" for r in RANKS],
             ["QH"] + [r + "C" for r in "AKQJT9876543"]]
    st = new_game(STD, 2)  # seat 3 leads
    deal(st, hands)
    bid_out(st)
    do(st, 3, "QH")
    assert auto_card(st, 0, equal=True) is None  # the KH wins the trick, the JH does not


def player_prefs(store, email, **prefs):
    with store.session() as s:
        from sqlmodel import select

        p = s.exec(select(Player).where(Player.email == email)).one()
        p.prefs = dict(p.prefs or {}, **prefs)
        s.add(p)
        s.commit()


def autos(store, gid) -> list[Move]:
    from sqlmodel import select

    with store.session() as s:
        return list(s.exec(select(Move).where(Move.game_id == gid, Move.source == "auto")))


HUMANS = ["ann@x.test", "bob@x.test", "cy@x.test", "di@x.test"]


def play_out(store, gid, rules, seed=0, limit=3000) -> None:
    rng = random.Random(seed)
    for _ in range(limit):
        st = replay_log(export(store, gid))
        if st.phase == "over":
            return
        seat = st.to_act()[0]
        submit(store, gid, seat, choose(view(st, seat), seed=rng.getrandbits(32),
                                        rules=st.rules), expect_seq=st.seq, source="web")
    raise AssertionError("no end")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_auto_play_on_every_preset_replays_the_same(store, name):
    rules = preset(name).with_options(max_hands=1)
    seats = (HUMANS * 2)[:rules.players]
    if len(set(seats)) < rules.players:
        seats = [f"p{i}@x.test" for i in range(rules.players)]
    gid = create_game(store, rules, seats, first_dealer=0)
    start(store, gid)
    play_out(store, gid, rules)
    forced = autos(store, gid)
    assert forced and all(m.payload["auto"] == "forced" and m.type == "play" for m in forced)
    for m in forced:  # it was that seat's only legal card when it went
        assert m.actor == m.payload["seat"]
    text = export(store, gid)
    assert replay_log(text).phase == "over"


def test_a_player_who_turned_it_off_is_asked_for_every_card(store):
    gid = create_game(store, STD.with_options(max_hands=1), HUMANS, first_dealer=0)
    for email in HUMANS:
        player_prefs(store, email, auto="off")
    start(store, gid)
    play_out(store, gid, STD)
    assert autos(store, gid) == []


def test_only_the_server_marks_a_play_as_made_for_the_seat(store):
    gid = create_game(store, STD, HUMANS, first_dealer=3)
    start(store, gid)
    st = replay_log(export(store, gid))
    while st.phase == "bid":
        seat = st.to_act()[0]
        submit(store, gid, seat, {"type": "bid", "bid": 3})
        st = replay_log(export(store, gid))
    card = st.playable(st.turn)[0]
    result = submit(store, gid, st.turn, {"type": "play", "card": card, "auto": "forced"})
    assert "auto" not in result.events[0]
