"""At the table, in the engine and the door: `say`, `concede`/`resign` and `undo` events,
their checks (the attacks), their replay from a log, and what they leave alone: other
seats' pending moves and links, and deadlines."""

import random
from datetime import timedelta

import pytest
from helpers import bid_round, deal, do, fixed_hands, play_out, top_trumps
from sqlmodel import select
from web_helpers import game_state, humans_game

from pbem.engine import IllegalAction, apply, choose, new_game, preset, replay, score_pad, view
from pbem.engine.acts import TALK_KEEP, TALK_MAX
from pbem.gamelog import make_header, replay_log, write_log
from pbem.play import TALK_PER_HOUR, Refused, Stale, submit
from pbem.store.models import Deadline, Move, Outbox


def playing(rules=None):
    """A standard game dealt fixed hands and bid: seat 1 leads the first trick."""
    st = new_game(rules or preset("standard"))
    deal(st)
    bid_round(st)
    return st


def refused(st, seat, action, words):
    before = st.snapshot()
    with pytest.raises(IllegalAction, match=words):
        do(st, seat, action)
    assert st.seq == before.seq and st.hands == before.hands and st.talk == before.talk


# -- say --------------------------------------------------------------------------------


def test_say_is_public_bounded_and_one_line():
    st = playing()
    do(st, 3, {"type": "say", "text": "good luck <b>all</b>"})  # not this seat's turn: fine
    assert view(st, 0)["talk"] == [{"seq": st.seq, "seat": 3, "text": "good luck <b>all</b>"}]
    assert view(st, None)["talk"] == view(st, 1)["talk"]
    assert st.move_seq == st.seq - 1  # talk moves nothing
    refused(st, 0, {"type": "say", "text": "x" * (TALK_MAX + 1)}, "at most 300")
    refused(st, 0, {"type": "say", "text": "two\nlines"}, "one line")
    refused(st, 0, {"type": "say", "text": "bell\x07"}, "one line")
    refused(st, 0, {"type": "say", "text": "   "}, "say what")
    refused(st, 0, {"type": "say", "text": 5}, "say what")
    refused(st, 7, {"type": "say", "text": "hi"}, "not a seat")
    for i in range(TALK_KEEP + 5):
        do(st, i % 4, {"type": "say", "text": f"line {i}"})
    assert len(st.talk) == TALK_KEEP and st.talk[-1]["text"] == f"line {TALK_KEEP + 4}"


def test_no_talk_once_the_game_is_over():
    st = playing()
    do(st, 0, {"type": "concede"})
    do(st, 2, {"type": "concede"})
    assert st.phase == "over"
    refused(st, 1, {"type": "say", "text": "gg"}, "the game is over")


# -- resign -------------------------------------------------------------------------------


def test_a_side_resigns_when_both_partners_say_so():
    st = playing()
    assert do(st, 1, {"type": "concede"})[0]["type"] == "concede"
    assert view(st, 0)["offers"] == [1] and st.phase == "play"
    refused(st, 1, {"type": "concede"}, "offered to resign already")
    refused(st, 0, {"type": "concede", "off": True}, "not offered")
    do(st, 1, {"type": "concede", "off": True})  # taken back
    assert st.offers == set()
    do(st, 1, {"type": "concede"})
    do(st, 0, {"type": "concede"})  # the other side's offer is a separate one
    assert st.offers == {0, 1} and st.phase == "play"
    ev = do(st, 3, {"type": "concede"})
    assert ev == [{"seq": st.seq, "type": "resign", "seat": 3}]
    assert st.phase == "over" and st.winner == 0 and st.resigned == 3


def test_an_offer_lapses_at_the_end_of_the_hand():
    st = playing()
    do(st, 2, {"type": "concede"})
    play_out(st)
    assert st.offers == set()
    assert st.phase == "deal"


def test_a_cutthroat_player_resigns_alone():
    st = new_game(preset("cutthroat-4"))
    deal(st)
    ev = do(st, 2, {"type": "concede"})
    assert ev[0]["type"] == "resign" and st.phase == "over"
    st = new_game(preset("cutthroat-4"))
    deal(st)
    refused(st, 2, {"type": "concede", "off": True}, "no partner")


# -- undo ---------------------------------------------------------------------------------


def test_undo_puts_the_card_back_and_the_turn():
    st = playing()
    seat = st.turn
    before = st.snapshot()
    card = st.playable(seat)[-1]
    do(st, seat, card)
    do(st, 0, {"type": "say", "text": "oops?"})  # talk is not acting
    assert view(st, seat)["undo"] == {"seq": st.seq - 1, "type": "play", "card": card}
    refused(st, (seat + 1) % 4, {"type": "undo"}, "no move of yours")
    refused(st, (seat + 1) % 4, {"type": "undo", "undo": st.seq - 1}, "no move of yours")
    refused(st, seat, {"type": "undo", "undo": st.seq}, "you may take back is move")
    do(st, seat, {"type": "undo"})
    assert st.hands == before.hands and st.trick == before.trick and st.turn == seat
    assert st.talk[-1]["text"] == "oops?"
    refused(st, seat, {"type": "undo"}, "no move of yours")  # one step only


def test_no_undo_after_the_next_seat_acts_nor_of_a_hand_ending_card_or_claim():
    st = playing()
    seat = st.turn
    do(st, seat, st.playable(seat)[0])
    nxt = st.turn
    do(st, nxt, st.playable(nxt)[0])
    refused(st, seat, {"type": "undo"}, "no move of yours")
    assert view(st, nxt)["undo"]["seq"] == st.seq
    while len(st.tricks) < 12 or len(st.trick) < 3:
        s = st.turn
        do(st, s, st.playable(s)[0])
    last = st.turn
    do(st, last, st.playable(last)[0])  # the hand's last card: scored, no way back
    assert st.phase == "deal"
    refused(st, last, {"type": "undo"}, "no move of yours")


def test_undo_of_a_card_that_won_a_trick_and_of_the_last_bid():
    st = new_game(preset("standard"))
    deal(st)
    for seat in (1, 2, 3):
        do(st, seat, {"type": "bid", "bid": 3})
    before_bid = st.snapshot()
    do(st, 0, {"type": "bid", "bid": 4})  # the last bid: the play begins
    assert st.phase == "play"
    do(st, 0, {"type": "undo"})
    assert st.phase == "bid" and st.bids == before_bid.bids and st.to_act() == [0]
    do(st, 0, {"type": "bid", "bid": 5})
    for _ in range(3):
        do(st, st.turn, st.playable(st.turn)[0])
    s = st.turn
    before = st.snapshot()
    do(st, s, st.playable(s)[0])  # completes the trick
    assert len(st.tricks) == 1
    do(st, s, {"type": "undo"})
    assert (st.tricks, st.won, st.trick, st.turn) == (before.tricks, before.won, before.trick, s)


def test_an_automatic_card_cannot_be_taken_back():
    st = playing()
    seat = st.turn
    card = st.playable(seat)[0]
    do(st, seat, {"type": "play", "card": card})
    st2 = playing()
    ev = dict(apply(st2, seat, {"type": "play", "card": card})[0], auto="forced")
    from pbem.engine import advance
    advance(st2, ev)
    refused(st2, seat, {"type": "undo"}, "no move of yours")


def test_a_game_with_undos_scores_as_the_game_without_the_taken_back_moves():
    """Random games where seats now and then play a card, take it back and play another:
    the score pad and hands end as in the same game without the taken-back cards."""
    for seed in range(8):
        rng = random.Random(seed)
        st, plain = new_game(preset("standard")), new_game(preset("standard"))
        for target in (st, plain):
            deal(target)
        for _ in range(400):
            if st.phase == "over" or st.phase == "deal":
                break
            seat = st.to_act()[0]
            action = choose(view(st, seat), seed=seed)
            if action["type"] == "play" and rng.random() < 0.3:
                wrong = rng.choice(st.playable(seat))
                do(st, seat, wrong)
                if st.hand_no == plain.hand_no:  # not the hand's last card
                    do(st, seat, {"type": "undo"})
                else:
                    do(plain, seat, wrong)
                    continue
            do(st, seat, action)
            do(plain, seat, action)
        assert score_pad(st) == score_pad(plain) and st.hands == plain.hands


# -- replay from a log ----------------------------------------------------------------------


def test_a_log_with_talk_offers_and_undo_replays():
    st = new_game(preset("standard"))
    events = [deal(st)] + bid_round(st)
    s = st.turn
    for seat, action in [(s, st.playable(s)[0]), (2, {"type": "say", "text": "nice, très ♠"}),
                         (s, {"type": "undo"}), (0, {"type": "concede"}),
                         (0, {"type": "concede", "off": True}), (1, {"type": "concede"})]:
        events += do(st, seat, action)
    assert [e["type"] for e in events[-5:]] == ["say", "undo", "concede", "concede", "concede"]
    text = write_log(make_header(preset("standard"), ["a", "b", "c", "d"], 0), events)
    again = replay_log(text)
    assert again.hands == st.hands and again.talk == st.talk and again.offers == {1}
    assert again.seq == st.seq and again.move_seq == st.move_seq
    bad = [dict(e) for e in events]
    i = next(i for i, e in enumerate(bad) if e["type"] == "undo")
    bad[i]["seat"] = (s + 1) % 4  # another seat's undo in a log: refused, naming its seq
    with pytest.raises(IllegalAction, match=f"seq {bad[i]['seq']}"):
        replay(preset("standard"), bad)


# -- through the door -------------------------------------------------------------------------


def _pending(store, gid):
    with store.session() as s:
        return sorted((d.seat, d.seq, d.kind, d.hours_before, d.due) for d in s.exec(
            select(Deadline).where(Deadline.game_id == gid, Deadline.state == "pending")))


def _turn_mails(store, gid):
    with store.session() as s:
        return len(s.exec(select(Outbox.id).where(Outbox.dedupe_key.startswith(f"turn:{gid}:")))
                   .all())


def test_talk_leaves_pending_moves_links_and_deadlines_alone(store):
    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    seat, other = st.to_act()[0], (st.to_act()[0] + 2) % 4
    seen, deadlines, turns = st.seq, _pending(store, gid), _turn_mails(store, gid)
    assert deadlines  # the seat to act has a timeout and reminders
    submit(store, gid, other, {"type": "say", "text": "take your time"}, expect_seq=seen)
    submit(store, gid, seat, {"type": "say", "text": "thinking"}, expect_seq=seen)
    submit(store, gid, other, {"type": "concede"}, source="web")
    assert _pending(store, gid) == deadlines and _turn_mails(store, gid) == turns
    submit(store, gid, seat, {"type": "bid", "bid": 4}, expect_seq=seen)  # not stale
    assert game_state(store, gid).bids[seat] == 4


def test_the_clock_still_fires_after_talk(store):
    from pbem.clock import tick

    gid = humans_game(store, preset("standard"))
    seat = game_state(store, gid).to_act()[0]
    submit(store, gid, (seat + 1) % 4, {"type": "say", "text": "hurry up"})
    due = max(d[4] for d in _pending(store, gid) if d[2] == "timeout")
    tick(store, now=due + timedelta(minutes=1))
    st = game_state(store, gid)
    assert st.bids[seat] is not None  # the robot moved for the seat whose time ran out


def test_talk_is_rate_limited_and_cleaned(store):
    gid = humans_game(store, preset("standard"))
    submit(store, gid, 1, {"type": "say", "text": "  one\tline\r\nof <i>talk</i>\x00 "})
    assert game_state(store, gid).talk[-1]["text"] == "one line of <i>talk</i>"
    for i in range(TALK_PER_HOUR - 1):
        submit(store, gid, 1, {"type": "say", "text": f"again {i}"})
    with pytest.raises(Refused, match="at most 10 an hour"):
        submit(store, gid, 1, {"type": "say", "text": "one more"})
    submit(store, gid, 2, {"type": "say", "text": "my own ten"})  # per seat
    with pytest.raises(Refused, match="say what"):
        submit(store, gid, 2, {"type": "say", "text": "\x01\x02"})
    with pytest.raises(Refused, match="at most 300"):
        submit(store, gid, 2, {"type": "say", "text": "é" * 301})


def test_undo_keeps_the_seats_deadline_and_stales_the_next_seats_links(store):
    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    seat = st.to_act()[0]
    mine = [d for d in _pending(store, gid) if d[0] == seat and d[2] == "timeout"]
    submit(store, gid, seat, {"type": "bid", "bid": 3}, expect_seq=st.seq)
    nxt_seen = game_state(store, gid).seq
    nxt = game_state(store, gid).to_act()[0]
    with pytest.raises(Refused, match="no move of yours"):
        submit(store, gid, nxt, {"type": "undo"})  # someone else's move
    submit(store, gid, seat, {"type": "undo"}, source="web")
    after = [d for d in _pending(store, gid) if d[2] == "timeout"]
    assert [(d[0], d[4]) for d in after] == [(seat, mine[0][4])]  # its own time, not fresh
    with pytest.raises(Stale, match="moved on"):
        submit(store, gid, nxt, {"type": "bid", "bid": 2}, expect_seq=nxt_seen)
    with store.session() as s:
        rows = s.exec(select(Move).where(Move.game_id == gid, Move.type == "undo")).all()
    assert [(r.actor, r.payload["undo"]) for r in rows] == [(seat, nxt_seen)]


def test_a_move_made_from_the_table_before_a_move_and_its_undo_still_applies(store):
    """The seat's own move and its undo leave the table as it was: a move from the table
    seen before them (a reply to the turn mail before, or to the undo's answer) is good."""
    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    seat = st.to_act()[0]
    submit(store, gid, seat, {"type": "bid", "bid": 3}, expect_seq=st.seq)
    submit(store, gid, seat, {"type": "undo"}, source="mail")
    submit(store, gid, seat, {"type": "bid", "bid": 4}, expect_seq=st.seq, source="mail")
    assert game_state(store, gid).bids[seat] == 4


def test_a_robot_partner_agrees_to_resign(store):
    from mail_helpers import game as robots_game

    gid = robots_game(store)
    submit(store, gid, 0, {"type": "concede"})
    st = game_state(store, gid)
    assert st.phase == "over" and st.resigned == 2 and st.winner == 1
    with pytest.raises(Refused, match="the game is over"):
        submit(store, gid, 0, {"type": "say", "text": "gg"})


def test_a_claim_cannot_be_taken_back():
    st = new_game(preset("standard"))
    deal(st, fixed_hands(st.rules, {1: top_trumps(st.rules)}))
    bid_round(st)
    assert st.turn == 1
    do(st, 1, {"type": "claim"})
    assert st.phase == "deal"
    refused(st, 1, {"type": "undo"}, "no move of yours")


def test_no_undo_once_a_robot_has_acted(store):
    from mail_helpers import game as robots_game

    gid = robots_game(store)  # ann in seat 0, robots beside her: they act at once
    st = game_state(store, gid)
    submit(store, gid, 0, {"type": "bid", "bid": 3}, expect_seq=st.seq)
    assert game_state(store, gid).seq > st.seq + 1  # the robots moved on
    with pytest.raises(Refused, match="no move of yours"):
        submit(store, gid, 0, {"type": "undo"})


def test_rebuilding_deadlines_after_talk_keeps_them(store):
    from pbem.deadlines import rebuild

    gid = humans_game(store, preset("standard"))
    before = _pending(store, gid)
    submit(store, gid, 2, {"type": "say", "text": "brb"})
    assert rebuild(store) == 0  # armed at the game's last move already: talk is none
    assert _pending(store, gid) == before
