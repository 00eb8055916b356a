"""A substitute takes over a seat mid-game (play.hand_over): the log records the hand-over,
the seat's secrets change hands, the export and import keep who sat where, and a refused
hand-over changes nothing. Runs on SQLite, and on PostgreSQL when it is configured."""

import json

import pytest
from sqlmodel import select

from pbem.config import load
from pbem.engine import preset
from pbem.gamelog import replay_log
from pbem.mail.inbound import Processor
from pbem.play import Refused, hand_over, import_log, submit
from pbem.store.games import export
from pbem.store.models import Deadline, Move, Outbox
from tests.web_helpers import (
    counts,
    csrf,
    drive,
    game_state,
    humans_game,
    mail_links,
    seats,
    tokens,
)

SUB = "sub@x.test"


def outbox_to(store, who: str) -> list[Outbox]:
    with store.session() as s:
        return list(s.exec(select(Outbox).where(Outbox.to_addr == who)
                           .order_by(Outbox.id)).all())


def test_a_substitute_takes_over_mid_hand(store, client):
    gid = humans_game(store, preset("standard"))
    st = drive(store, gid, lambda x: x.phase == "play" and x.to_act() == [1])
    old_token = tokens(store, gid)[1]
    old_link = dict(mail_links(outbox_to(store, "p1@x.test")[-1].body_html))
    hand = list(st.hands[1])

    result = hand_over(store, gid, 1, SUB, source="organiser", ref="sub-1")
    ev = result.events[0]
    assert ev == {"seq": st.seq + 1, "type": "substitute", "seat": 1, "out": "p1@x.test",
                  "in": SUB}
    after = game_state(store, gid)
    assert after.hands[1] == hand and after.to_act() == [1]  # the seat's cards stay
    row = seats(store, gid)[1]
    assert row.token != old_token and not row.robot
    with store.session() as s:
        mv = s.exec(select(Move).where(Move.game_id == gid, Move.seq == ev["seq"])).one()
    assert (mv.actor, mv.source, mv.ref) == (None, "organiser", "sub-1")

    # the same hand-over again (its ref) changes nothing
    before = counts(store)
    assert hand_over(store, gid, 1, SUB, ref="sub-1").duplicate
    assert counts(store) == before

    # the new player has the table and a turn mail; the one who left and the others hear
    mails = outbox_to(store, SUB)
    # a game's mails have the game's subject and say what they are on their first line
    first, turn = [m.body_text.split("\n")[0] for m in mails]
    assert first == f"Game {gid}: you take over seat 1"
    assert turn.startswith(f"Game {gid}: Your turn to "), turn  # in words, no move number
    assert f"/t/{row.token}" in mails[0].body_text
    assert "seat is taken over" in outbox_to(store, "p1@x.test")[-1].body_text.split("\n")[0]
    assert "sub now plays seat 1 in place of p1" in outbox_to(store, "p0@x.test")[-1].body_text
    # the deadline is the new player's; the old one was cancelled
    with store.session() as s:
        pending = s.exec(select(Deadline).where(Deadline.game_id == gid,
                                                Deadline.state == "pending")).all()
    assert pending and {(d.seat, d.seq) for d in pending} == {(1, after.seq)}

    # the player who left: the old table, links and reply address are dead, and show nothing
    assert client.get(f"/t/{old_token}").status_code == 404
    for path in old_link.values():
        r = client.get(path)
        assert r.status_code == 400 and "no longer yours" in r.text
        assert not any(c in r.text for c in (hand[0], row.token))
        r = client.post(path, data={"csrf": csrf(client)})
        assert r.status_code == 400 and counts(store) == before
    cfg = load()
    assert not Processor(store, cfg).known(f"play+{old_token}@{cfg.mail_domain}")
    assert Processor(store, cfg).known(f"play+{row.token}@{cfg.mail_domain}")

    # the new player plays on
    card = after.playable(1)[0]
    submit(store, gid, 1, {"type": "play", "card": card}, expect_seq=after.seq, source="web")
    assert game_state(store, gid).seq > after.seq


def test_the_export_names_who_began_and_the_import_who_holds_each_seat(store):
    gid = humans_game(store, preset("standard"))
    drive(store, gid, lambda x: x.phase == "play")
    hand_over(store, gid, 2, SUB)
    hand_over(store, gid, 2, "robot")  # the substitute drops out too: a robot plays on
    text = export(store, gid)
    header = json.loads(text.splitlines()[0])
    assert header["seats"] == ["p0@x.test", "p1@x.test", "p2@x.test", "p3@x.test"]
    subs = [json.loads(x) for x in text.splitlines()[1:] if '"substitute"' in x]
    assert [(e["out"], e["in"]) for e in subs] == [("p2@x.test", SUB), (SUB, "robot")]
    assert replay_log(text).seq == game_state(store, gid).seq  # the log replays

    copy = import_log(store, text)
    held = seats(store, copy)
    assert held[2].robot and held[2].player_id is None and not held[0].robot


def test_a_robot_takes_over_and_moves_at_once(store):
    gid = humans_game(store, preset("standard"))
    st = drive(store, gid, lambda x: x.phase == "play" and x.to_act() == [3])
    result = hand_over(store, gid, 3, "robot")
    kinds = [(e["type"], e.get("seat")) for e in result.events]
    assert kinds[:2] == [("substitute", 3), ("play", 3)]
    assert game_state(store, gid).seq > st.seq + 1


def test_a_refused_hand_over_changes_nothing(store):
    gid = humans_game(store, preset("standard"))
    drive(store, gid, lambda x: x.phase == "play")
    hand_over(store, gid, 1, "robot")
    before = (export(store, gid), counts(store), tokens(store, gid))
    cases = [
        (0, "p2@x.test", "p2@x.test already has a seat in game"),  # seated at this table
        (0, "P0@X.test", "p0@x.test already has a seat in game"),  # its own seat
        (1, "robot", "a robot plays seat 1 of game"),
        (4, SUB, "there is no seat 4"),
    ]
    for seat, who, reason in cases:
        with pytest.raises(Refused, match=reason):
            hand_over(store, gid, seat, who)
        assert (export(store, gid), counts(store), tokens(store, gid)) == before
    with pytest.raises(Refused, match="there is no game 999"):
        hand_over(store, 999, 0, SUB)

    over = humans_game(store, preset("standard").with_options(max_hands=1))
    drive(store, over, lambda x: False)
    before = (export(store, over), counts(store))
    with pytest.raises(Refused, match="the game is over"):
        hand_over(store, over, 0, SUB)
    assert (export(store, over), counts(store)) == before
