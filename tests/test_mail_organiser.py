"""The organiser's commands by mail to the league's organiser address (issues 16 and 29),
through the running SMTP handler: a ruling, more hours, a robot move, a reminder and a
message, from the organiser's verified address only. A player at their own account address,
a forged organiser's mail (its domain disowns it) or a bad number gets the reason and
changes nothing."""

import pytest
from mail_helpers import account, organiser_address, running, text
from sqlmodel import select

from pbem.league.manage import OPERATOR
from pbem.organise.seasons import start_season
from pbem.store.models import Move
from tests.league_helpers import ORGANISER, fixtures, league, play_out, snapshot, state

MTA = "mx.pbem.test"
ELSEWHERE = "is an organiser's command: it is taken only at"


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    monkeypatch.setenv("PBEM_AUTHSERV_ID", MTA)
    with running(store, monkeypatch, tmp_path) as e:
        lid = league(store, players=8)
        start_season(store, lid, OPERATOR)
        e.replies()
        e.lid = lid
        yield e


def _say(env, body, frm=ORGANISER, **headers):
    """`body` from `frm`: the organiser writes to the organiser address, a player to their
    own account address."""
    to = organiser_address(env, env.lid) if frm == ORGANISER else account(env, frm)
    assert env.send(env.mail(to, body, frm=frm, **headers))[0] == 250
    return [m for m in env.replies() if m["To"] == frm]


def test_the_organiser_runs_the_tables_by_mail(env):
    lid = env.lid
    first, second = [f.game_id for f in fixtures(env.store, lid)][:2]
    play_out(env.store, first)
    env.replies()
    st = state(env.store, second)
    answers = _say(env, f"rule {lid} {first} replay: the deal was misread\n"
                         f"more {lid} {second} 24\nremind {lid} {second}\n"
                         f"robot {lid} {second}\nmessage {lid}: Round two opens on Monday.\n"
                         f"pause {lid}\nresume {lid} season 1")
    answer = next(m for m in answers if m["Subject"].startswith("Re:"))
    copy = next(m for m in answers if "a message from the organiser" in m["Subject"])
    assert "Round two opens on Monday." in text(copy)  # the organiser's own copy
    body = text(answer)
    for done in (f"rule: game {first}, ruling at move", f"more: game {second} has 24",
                 f"remind: {len(st.to_act())} player(s)", "robot: the robot made the move",
                 "message: mailed to 8 player(s)", f"pause: season 1 of league {lid} paused",
                 f"resume: season 1 of league {lid} resumed"):
        assert done in body, body
    with env.store.session() as s:
        assert s.exec(select(Move).where(Move.game_id == first,
                                         Move.type == "adjudicate")).one().source == "mail"
    assert state(env.store, second).seq > st.seq


@pytest.mark.parametrize("frm,body,headers,why", [
    ("p0@league.test", "more {lid} {game} 5", {}, ELSEWHERE),
    ("p0@league.test", "message {lid}: hello all", {}, ELSEWHERE),
    (ORGANISER, "more {lid} {game} 0", {}, "from 1 to"),
    (ORGANISER, "more {lid} {game} 99999999999", {}, "write: more"),
    (ORGANISER, "robot {lid} 999999", {}, "is not a game of"),
    (ORGANISER, "remind {lid}", {}, "write: remind"),
    (ORGANISER, "rule {lid} {game} win 1", {}, "write: rule"),
    ("p0@league.test", "pause {lid}", {}, ELSEWHERE),
    (ORGANISER, "pause {lid} season", {}, "write: pause"),
    (ORGANISER, "resume {lid}", {}, "no running season paused"),
    (ORGANISER, "more {lid} {game} 5",
     {"Authentication_Results": f"{MTA}; dmarc=fail (p=reject) header.from=league.test"},
     "was not obeyed"),
])
def test_refused_by_mail_with_nothing_changed(env, frm, body, headers, why):
    game = fixtures(env.store, env.lid)[0].game_id
    before = snapshot(env.store)
    answers = _say(env, body.format(lid=env.lid, game=game), frm=frm, **headers)
    assert len(answers) == 1 and why in text(answers[0]), text(answers[0])
    after = snapshot(env.store)
    assert after["Outbox"] == before["Outbox"] + 1  # the answer only
    assert {k: v for k, v in after.items() if k != "Outbox"} == \
        {k: v for k, v in before.items() if k != "Outbox"}


def test_the_organisers_robot_move_at_a_level_by_mail(env):
    """`robot LEAGUE GAME hard` makes the move the hard robot chooses; an unknown level is
    refused with the command's form, and nothing moves."""
    from pbem.engine import choose, view

    lid = env.lid
    gid = fixtures(env.store, lid)[0].game_id
    before = snapshot(env.store)["Move"]
    answer = text(next(m for m in _say(env, f"robot {lid} {gid} genius")
                       if m["Subject"].startswith("Re:")))
    assert "easy|medium|hard" in answer and snapshot(env.store)["Move"] == before
    st = state(env.store, gid)
    want = choose(view(st, st.to_act()[0]), seed=st.seq, rules=st.rules, level="hard")
    answer = text(next(m for m in _say(env, f"robot {lid} {gid} hard")
                       if m["Subject"].startswith("Re:")))
    assert "robot: the robot made the move" in answer
    with env.store.session() as s:
        made = s.exec(select(Move).where(Move.game_id == gid, Move.seq == st.seq + 1)).one()
    assert {k: made.payload[k] for k in want} == want and made.source == "organiser"
