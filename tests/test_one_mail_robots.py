"""Issue 32: one mail for one event when robots move, and "Played for you" on every path.
Real SMTP in, the real outbox out to a Maildir, the real clock. Without the change each
test fails: after a deal the robots bid in a write of their own and the seat after them got
the hand's news and then its turn mail; a timeout's notice came beside the turn mail of the
seat the timeout made next; a card played for a seat by a write that mailed it nothing (or
whose mail was settled unsent) was never named."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from mail_helpers import ANN, account, crafted, headline, running, state, text
from sqlmodel import select, update

from pbem import clock
from pbem.engine import preset, pretty
from pbem.play import start, submit
from pbem.store.games import create_game
from pbem.store.models import Game, Outbox
from pbem.store.pacing import SETTLED
from tests.test_autoplay import player_prefs

BOB = "bob@x.test"
T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def mails_to(mails, addr) -> list:
    return [m for m in mails if str(m["To"]) == addr]


def test_after_a_deal_the_seat_the_robots_leave_to_bid_gets_one_mail(env, store):
    """Ann (seat 0) claims the hand on the web; the next deal comes in her write and robot 1
    bids first, in a write of its own; then it is Bob's (seat 2) turn. Bob gets one mail:
    the turn mail, which says the hand was scored. Ann, not to act, hears the news once."""
    spades = [f"{r}S" for r in "AKQJT98765432"]
    gid, _ = crafted(store, {0: spades}, seats=[ANN, "robot", BOB, "robot"])
    submit(store, gid, 0, {"type": "bid", "bid": 13})  # robot 1 bids in the write
    submit(store, gid, 2, {"type": "bid", "bid": 1})  # robot 3 too: ann leads
    assert state(store, gid).to_act() == [0]
    env.replies()
    submit(store, gid, 0, {"type": "claim"}, source="web")
    st = state(store, gid)
    assert st.hand_no == 1 and st.to_act() == [2] and st.bids[1] is not None
    mails = env.replies()
    bobs = mails_to(mails, BOB)
    assert len(bobs) == 1, [headline(m) for m in bobs]
    [turn] = bobs
    assert str(turn["Message-ID"]).startswith(f"<turn.{gid}.2.{st.seq}.")  # the contract's
    assert headline(turn).endswith("your turn to bid"), headline(turn)
    assert "Hand 1 was scored" in text(turn)
    anns = mails_to(mails, ANN)
    assert [headline(m) for m in anns] == [f"Game {gid}: a hand was scored"]


def test_the_seat_a_timeout_and_the_robots_make_next_gets_one_mail(env, store):
    """Bob (seat 1) lets his bid time out; the robot bids for him and robots 2 and 3 bid in
    the same write; then it is Ann's turn. Ann gets one mail, the turn mail, which says
    Bob ran out of time; Bob gets one, that his time ran out."""
    with time_machine.travel(T0, tick=False) as t:
        gid = create_game(store, preset("standard"), [ANN, BOB, "robot", "robot"],
                          first_dealer=0, time_control={"move_hours": 6, "remind_hours": []})
        start(store, gid)
        assert state(store, gid).to_act() == [1]
        env.replies()
        t.shift(timedelta(hours=6))
        assert clock.tick(store) == 1
        st = state(store, gid)
        assert st.to_act() == [0] and all(b is not None for b in st.bids[1:])
        mails = env.replies()
    anns = mails_to(mails, ANN)
    assert len(anns) == 1, [headline(m) for m in anns]
    [turn] = anns
    assert str(turn["Message-ID"]).startswith(f"<turn.{gid}.0.{st.seq}.")
    assert headline(turn).endswith("your turn to bid")
    assert "bob did not move in time" in text(turn)
    assert "bob did not move in time" in turn.get_body(("html",)).get_content()
    [bobs] = mails_to(mails, BOB)
    assert "your time ran out" in headline(bobs)


# Ann (seat 1) holds one heart, so it plays itself when hearts are led (in the leader's
# write, which mails her nothing); seat 3 wins the trick with the ace, leads a club, and
# seat 0's club makes it Ann's turn.
HANDS = {
    0: ["2H", "4H", "5H", "6H", "7H", "3C", "4C", "5C", "6C", "7C", "2D", "3D", "4D"],
    1: ["3H", "2S", "3S", "4S", "5S", "6S", "8C", "9C", "TC", "5D", "6D", "7D", "8D"],
    2: ["8H", "9H", "TH", "JH", "QH", "JC", "QC", "KC", "AC", "9D", "TD", "JD", "QD"],
    3: ["KH", "AH", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS", "2C", "KD", "AD"],
}
SEATS = ["p0@x.test", ANN, "p2@x.test", "p3@x.test"]
FOR_ANN = f"Played for you: {pretty('3H')} (your only card)."


def first_trick(env, store, every_trick: bool = False) -> int:
    gid, _ = crafted(store, HANDS, seats=SEATS)  # dealer 3: seat 0 bids first and leads
    if every_trick:
        assert env.send(env.mail(account(env), "notify every trick", mid="<n@x.test>"))[0] \
            == 250
    for seat, bid in ((0, 1), (1, 3), (2, 4), (3, 5)):
        submit(store, gid, seat, {"type": "bid", "bid": bid})
    env.replies()
    submit(store, gid, 0, {"type": "play", "card": "2H"})
    assert state(store, gid).trick == [(0, "2H"), (1, "3H")]  # played for her
    submit(store, gid, 2, {"type": "play", "card": "8H"})
    return gid


def to_her_turn(store, gid) -> None:
    submit(store, gid, 3, {"type": "play", "card": "AH"})
    submit(store, gid, 3, {"type": "play", "card": "2C"})
    submit(store, gid, 0, {"type": "play", "card": "3C"})
    assert state(store, gid).to_act() == [1]


def test_a_card_played_for_her_by_a_write_that_mailed_her_nothing_is_named_next(env, store):
    gid = first_trick(env, store)
    assert mails_to(env.replies(), ANN) == []  # those writes mailed her nothing
    to_her_turn(store, gid)
    [turn] = mails_to(env.replies(), ANN)
    assert headline(turn).endswith("your turn to play")
    assert FOR_ANN in text(turn) and FOR_ANN in turn.get_body(("html",)).get_content()
    for card in ("2H", "8H", "AH", "2C", "3C"):  # no card of another hand is "for you"
        assert pretty(card) not in text(turn).split("Played for you:")[1].split("\n")[0]


def test_a_card_told_in_a_mail_that_went_is_not_named_again(env, store):
    gid = first_trick(env, store, every_trick=True)
    submit(store, gid, 3, {"type": "play", "card": "AH"})  # the trick's news: it names it
    [news] = mails_to(env.replies(), ANN)
    assert FOR_ANN in text(news), text(news)
    for seat, card in ((3, "2C"), (0, "3C")):
        submit(store, gid, seat, {"type": "play", "card": card})
    [turn] = mails_to(env.replies(), ANN)
    assert "your turn to play" in headline(turn) and "Played for you" not in text(turn)


def test_a_card_whose_mail_was_settled_unsent_is_named_in_the_next(env, store):
    """The trick's news to her is settled without a mail (as a cap or a merge settles it,
    pbem.store.pacing): her next mail names the card."""
    gid = first_trick(env, store, every_trick=True)
    submit(store, gid, 3, {"type": "play", "card": "AH"})
    with store.session() as s:
        s.exec(update(Outbox).where(Outbox.to_addr == ANN, Outbox.sent_at.is_(None))
               .values(sent_at=datetime.now(UTC), last_error=SETTLED + "over the cap"))
        s.commit()
    assert mails_to(env.replies(), ANN) == []
    for seat, card in ((3, "2C"), (0, "3C")):
        submit(store, gid, seat, {"type": "play", "card": card})
    [turn] = mails_to(env.replies(), ANN)
    assert FOR_ANN in text(turn), text(turn)
    with store.reader() as s:
        assert s.exec(select(Outbox).where(Outbox.to_addr == ANN,
                                           Outbox.dedupe_key.startswith("news:"))).all()


def test_a_timeout_that_ends_the_hand_before_the_robots_bid_is_told_in_one_mail(env, store):
    """Ann (seat 0, all the hearts, `auto off`: no hand at her table plays itself, nor her
    only card) lets her card of the last trick time out: the robot plays it, the next hand
    is dealt and robots 1 and 2 bid first, in a write of their own; then it is Bob's (seat
    3, all the spades) turn. The timeout's
    notices wait for the robots' write: Bob gets one mail, his turn mail saying Ann ran out
    of time; Ann one, the hand's news saying her time ran out."""
    suits = {0: "H", 1: "C", 2: "D", 3: "S"}
    gid, _ = crafted(store, {s: [f"{r}{x}" for r in "23456789TJQKA"] for s, x in suits.items()},
                     seats=[ANN, "robot", "robot", BOB])
    with store.session() as s:
        s.exec(update(Game).where(Game.id == gid).values(
            time_control={"move_hours": 6, "remind_hours": []}))
        s.commit()
    player_prefs(store, ANN, auto="off")  # else the hand is settled once bid: plays itself
    with time_machine.travel(T0, tick=False) as t:
        submit(store, gid, 0, {"type": "bid", "bid": 1})  # the robots bid in the write
        submit(store, gid, 3, {"type": "bid", "bid": 11})
        ranks = "23456789TJQKA"
        submit(store, gid, 0, {"type": "play", "card": "2H"})  # bob trumps every trick
        submit(store, gid, 3, {"type": "play", "card": "2S"})
        for i in range(1, 12):
            submit(store, gid, 3, {"type": "play", "card": f"{ranks[i]}S"})
            submit(store, gid, 0, {"type": "play", "card": f"{ranks[i]}H"})
        st = state(store, gid)  # Bob's only card, the ace, played itself
        assert st.to_act() == [0] and len(st.tricks) == 12
        env.replies()
        t.shift(timedelta(hours=6))
        assert clock.tick(store) == 1
        st = state(store, gid)
        assert st.hand_no == 1 and st.to_act() == [3], st.to_act()
        mails = env.replies()
    [bobs] = mails_to(mails, BOB)
    assert str(bobs["Message-ID"]).startswith(f"<turn.{gid}.3.{st.seq}.")
    assert "ann did not move in time" in text(bobs) and "Hand 1 was scored" in text(bobs)
    [anns] = mails_to(mails, ANN)
    assert headline(anns) == f"Game {gid}: a hand was scored"
    assert "ann did not move in time" in text(anns), text(anns)
